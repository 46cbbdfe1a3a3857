import BLECore
import Foundation

/// `CBUUID`: a Bluetooth UUID with `uuidString` as CoreBluetooth prints it (`180D`, or the
/// upper-case 128-bit form).
///
/// Sendable, as Apple's is (so `static let service = CBUUID(string: "180D")` compiles in Swift 6);
/// final, because a checked Sendable class must be (Apple's is open; nobody subclasses it).
public final class CBUUID: NSObject, NSCopying, Sendable {
    /// The BLECore value.
    public let bluetoothUUID: BluetoothUUID

    public init(bluetoothUUID: BluetoothUUID) {
        self.bluetoothUUID = bluetoothUUID
        super.init()
    }

    /// `CBUUID(string: "180D")`; a malformed string traps, as it raises on Apple's platforms.
    public convenience init(string theString: String) {
        guard let u = BluetoothUUID(theString) else { preconditionFailure("CBUUID(string:): '\(theString)' is not a UUID") }
        self.init(bluetoothUUID: u)
    }

    /// From 2, 4 or 16 bytes, most significant first (as Apple's `init(data:)`).
    public convenience init(data theData: Data) {
        let bytes = Array(theData)
        switch bytes.count {
        case 2: self.init(bluetoothUUID: BluetoothUUID(uint16: UInt16(bytes[0]) << 8 | UInt16(bytes[1])))
        case 4: self.init(bluetoothUUID: BluetoothUUID(uint32: bytes.reduce(0) { $0 << 8 | UInt32($1) }))
        case 16: self.init(bluetoothUUID: BluetoothUUID(bytes: bytes))
        default: preconditionFailure("CBUUID(data:): \(bytes.count) bytes; a UUID has 2, 4 or 16")
        }
    }

    public convenience init(nsuuid theUUID: UUID) {
        let u = theUUID.uuid
        self.init(bluetoothUUID: BluetoothUUID(bytes: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11,
                                                     u.12, u.13, u.14, u.15]))
    }

    public var uuidString: String { bluetoothUUID.uuidString }

    /// The shortest form, most significant byte first.
    public var data: Data {
        if let v = bluetoothUUID.uint16 { return Data([UInt8(v >> 8), UInt8(v & 0xFF)]) }
        if let v = bluetoothUUID.uint32 { return Data([UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]) }
        return Data(bluetoothUUID.bytes)
    }

    /// As CoreBluetooth prints a CBUUID: the name of a UUID it knows ("Heart Rate" for 180D,
    /// "Battery" for 180F), else `uuidString`. Names are the Bluetooth SIG's (BLECore
    /// AssignedNumbers) except where Apple's differ (1800, 1801).
    override public var description: String {
        if let v = bluetoothUUID.uint16 {
            if let apple = Self.appleNames[v] { return apple }
            if let name = AssignedNumbers.uuidName16(v) { return name }
        }
        return uuidString
    }

    static let appleNames: [UInt16: String] = [0x1800: "Generic Access Profile", 0x1801: "Generic Attribute Profile"]
    override public var hash: Int { bluetoothUUID.hashValue }
    override public func isEqual(_ object: Any?) -> Bool {
        (object as? CBUUID)?.bluetoothUUID == bluetoothUUID
    }

    public func copy(with zone: NSZone? = nil) -> Any { CBUUID(bluetoothUUID: bluetoothUUID) }
}
