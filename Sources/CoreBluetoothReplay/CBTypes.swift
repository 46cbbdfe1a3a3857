import Foundation

/// CoreFoundation's absolute time (seconds), which the iOS 17 disconnection callback carries.
/// Linux's Foundation does not define it.
public typealias CFAbsoluteTime = Double

/// `CBManagerState` (Apple raw values).
public enum CBManagerState: Int, Sendable, CustomStringConvertible {
    case unknown = 0
    case resetting = 1
    case unsupported = 2
    case unauthorized = 3
    case poweredOff = 4
    case poweredOn = 5

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .resetting: "resetting"
        case .unsupported: "unsupported"
        case .unauthorized: "unauthorized"
        case .poweredOff: "poweredOff"
        case .poweredOn: "poweredOn"
        }
    }
}

/// `CBManagerAuthorization`.
public enum CBManagerAuthorization: Int, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case allowedAlways = 3
}

/// `CBPeripheralState`.
public enum CBPeripheralState: Int, Sendable {
    case disconnected = 0
    case connecting = 1
    case connected = 2
    case disconnecting = 3
}

/// `CBCharacteristicWriteType`.
public enum CBCharacteristicWriteType: Int, Sendable {
    case withResponse = 0
    case withoutResponse = 1
}

/// `CBConnectionEvent`.
public enum CBConnectionEvent: Int, Sendable {
    case peerDisconnected = 0
    case peerConnected = 1
}

/// `CBCharacteristicProperties` (Core v5.4 Vol 3 Part G 3.3.1.1, plus Apple's encryption bits).
public struct CBCharacteristicProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let broadcast = CBCharacteristicProperties(rawValue: 0x01)
    public static let read = CBCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CBCharacteristicProperties(rawValue: 0x04)
    public static let write = CBCharacteristicProperties(rawValue: 0x08)
    public static let notify = CBCharacteristicProperties(rawValue: 0x10)
    public static let indicate = CBCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = CBCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = CBCharacteristicProperties(rawValue: 0x80)
    public static let notifyEncryptionRequired = CBCharacteristicProperties(rawValue: 0x100)
    public static let indicateEncryptionRequired = CBCharacteristicProperties(rawValue: 0x200)
}

/// `CBAttributePermissions`.
public struct CBAttributePermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let readable = CBAttributePermissions(rawValue: 0x01)
    public static let writeable = CBAttributePermissions(rawValue: 0x02)
    public static let readEncryptionRequired = CBAttributePermissions(rawValue: 0x04)
    public static let writeEncryptionRequired = CBAttributePermissions(rawValue: 0x08)
}

extension CBCentralManager {
    /// `CBCentralManager.Feature` (iOS 13), for `supports(_:)`. The replay's simulated controller
    /// supports none of them.
    public struct Feature: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let extendedScanAndConnect = Feature(rawValue: 1 << 0)
    }
}

/// The earlier top-level name of `CBCentralManager.Feature`.
public typealias CBCentralManagerFeature = CBCentralManager.Feature

/// `CBConnectionEventMatchingOption` (iOS 13), the keys of `registerForConnectionEvents(options:)`.
public struct CBConnectionEventMatchingOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Peripherals offering one of these services (`[CBUUID]`).
    public static let serviceUUIDs = CBConnectionEventMatchingOption(rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs")
    /// Peripherals with one of these identifiers (`[UUID]`).
    public static let peripheralUUIDs = CBConnectionEventMatchingOption(rawValue: "kCBConnectionEventMatchingOptionPeripheralUUIDs")
}

/// `CBL2CAPPSM`: an L2CAP LE credit-based channel's PSM (Core v5.4 Vol 3 Part A 4.22).
public typealias CBL2CAPPSM = UInt16

/// `CBL2CAPChannel` (iOS 11): an L2CAP connection-oriented channel with its streams.
open class CBL2CAPChannel: NSObject {
    public let peer: CBPeer
    public let psm: CBL2CAPPSM
    public let inputStream: InputStream
    public let outputStream: OutputStream

    init(peer: CBPeer, psm: CBL2CAPPSM) {
        self.peer = peer
        self.psm = psm
        inputStream = InputStream(data: Data())
        outputStream = OutputStream.toMemory()
        super.init()
    }
}
