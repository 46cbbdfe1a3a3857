import BLECore

/// One AD structure: a type and its data (Core v5.4 Vol 3 Part C 11, Figure 11.1).
///
/// Wire layout: `Length (1) | AD Type (1) | AD Data (Length - 1)`.
public struct ADStructure: Sendable, Hashable {
    public var type: ADType
    public var data: [UInt8]
    /// Where the Length octet was, counted from the start of the data it came from.
    public var offset: Int

    public init(type: ADType, data: [UInt8], offset: Int = 0) {
        self.type = type
        self.data = data
        self.offset = offset
    }

    /// Length, type and data; a structure longer than 255 bytes cannot be expressed and is
    /// written with its data cut to 254 bytes.
    public func encoded() -> [UInt8] {
        let body = data.prefix(254)
        return [UInt8(body.count + 1), type.rawValue] + body
    }
}

/// The Flags AD type's bits (Core Specification Supplement Part A 1.3).
public struct ADFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverableMode = ADFlags(rawValue: 0x01)
    public static let leGeneralDiscoverableMode = ADFlags(rawValue: 0x02)
    public static let brEDRNotSupported = ADFlags(rawValue: 0x04)
    /// Simultaneous LE and BR/EDR to the same device capable (controller).
    public static let simultaneousLEAndBREDRController = ADFlags(rawValue: 0x08)
    /// Simultaneous LE and BR/EDR to the same device capable (host); deprecated in newer
    /// supplements but still sent.
    public static let simultaneousLEAndBREDRHost = ADFlags(rawValue: 0x10)

    /// `LE General Discoverable Mode, BR/EDR Not Supported`.
    public var description: String {
        var parts: [String] = []
        if contains(.leLimitedDiscoverableMode) { parts.append("LE Limited Discoverable Mode") }
        if contains(.leGeneralDiscoverableMode) { parts.append("LE General Discoverable Mode") }
        if contains(.brEDRNotSupported) { parts.append("BR/EDR Not Supported") }
        if contains(.simultaneousLEAndBREDRController) { parts.append("Simultaneous LE and BR/EDR (Controller)") }
        if contains(.simultaneousLEAndBREDRHost) { parts.append("Simultaneous LE and BR/EDR (Host)") }
        if rawValue & 0xE0 != 0 { parts.append("Reserved (\(hex(rawValue & 0xE0)))") }
        return parts.isEmpty ? "None" : parts.joined(separator: ", ")
    }
}

/// The LE Role AD type (Core Specification Supplement Part A 1.17).
public struct ADLERole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let peripheralOnly = ADLERole(0x00)
    public static let centralOnly = ADLERole(0x01)
    public static let bothPeripheralPreferred = ADLERole(0x02)
    public static let bothCentralPreferred = ADLERole(0x03)

    /// As Wireshark names it, or `Reserved (0xNN)`.
    public var name: String {
        switch rawValue {
        case 0x00: "Only Peripheral Role Supported"
        case 0x01: "Only Central Role Supported"
        case 0x02: "Peripheral and Central Role supported, Peripheral Role preferred for connection establishment"
        case 0x03: "Peripheral and Central Role supported, Central Role preferred for connection establishment"
        default: "Reserved (\(hex(rawValue)))"
        }
    }
    public var description: String { name }
}
