import BLECore
import BLEDecode

/// A GATT server's attribute database as far as a client discovered and used it.
public struct GATTDatabase: Sendable, Equatable {
    public struct Service: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var startHandle: UInt16
        public var endHandle: UInt16
        public var isPrimary: Bool
        public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool) {
            self.uuid = uuid; self.startHandle = startHandle; self.endHandle = endHandle; self.isPrimary = isPrimary
        }
    }
    public struct Characteristic: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        /// Characteristic Properties bit field (Core v5.4 Vol 3 Part G 3.3.1.1).
        public var properties: UInt8
        public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: UInt8) {
            self.uuid = uuid; self.declarationHandle = declarationHandle; self.valueHandle = valueHandle
            self.properties = properties
        }
    }
    public struct Descriptor: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
        public init(uuid: BluetoothUUID, handle: UInt16) { self.uuid = uuid; self.handle = handle }
    }
    public struct Include: Sendable, Equatable {
        public var declarationHandle: UInt16
        public var startHandle: UInt16
        public var endHandle: UInt16
        public var uuid: BluetoothUUID?
        public init(declarationHandle: UInt16, startHandle: UInt16, endHandle: UInt16, uuid: BluetoothUUID?) {
            self.declarationHandle = declarationHandle; self.startHandle = startHandle; self.endHandle = endHandle
            self.uuid = uuid
        }
    }
    /// A value as last read, written or notified.
    public struct Value: Sendable, Equatable {
        public var bytes: [UInt8]
        public var source: String
        public var packetID: Int
        /// The attribute type the client read the handle by (Read Using Characteristic UUID, Core
        /// v5.4 Vol 3 Part G 4.8.2: a Read By Type Request names it, and every handle of the
        /// response has it), when the client did; a Device Name read so, with no discovery, is
        /// still the Device Name.
        public var readByType: BluetoothUUID?
        public init(bytes: [UInt8], source: String, packetID: Int, readByType: BluetoothUUID? = nil) {
            self.bytes = bytes; self.source = source; self.packetID = packetID; self.readByType = readByType
        }
    }

    public var services: [Service] = []
    public var characteristics: [Characteristic] = []
    public var descriptors: [Descriptor] = []
    public var includes: [Include] = []
    public var values: [UInt16: Value] = [:]
    /// Every attribute type Find Information listed (Core v5.4 Vol 3 Part F 3.4.3.2), by handle:
    /// declarations, values and descriptors alike (see `GATTDeclarations`).
    public var attributeTypes: [UInt16: BluetoothUUID] = [:]

    public init() {}

    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty && attributeTypes.isEmpty }

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> Service? {
        services.filter { $0.startHandle <= handle && handle <= $0.endHandle }
            .min { ($0.endHandle - $0.startHandle) < ($1.endHandle - $1.startHandle) }
    }

    /// The characteristic a descriptor handle belongs to: the last one declared before it in its
    /// service. Nil when that declaration is one never read (`unreadDeclarations`).
    public func characteristic(owning handle: UInt16) -> Characteristic? {
        guard let d = declaration(owning: handle) else { return nil }
        return characteristics.first { $0.declarationHandle == d }
    }

    /// The characteristic whose value lives at `handle`.
    public func characteristic(valueHandle handle: UInt16) -> Characteristic? {
        characteristics.first { $0.valueHandle == handle }
    }

    /// The UUID of whatever lives at `handle` (characteristic value or descriptor).
    public func uuid(at handle: UInt16) -> BluetoothUUID? {
        characteristic(valueHandle: handle)?.uuid ?? descriptors.first { $0.handle == handle }?.uuid
    }

    /// Handles that requests used but no discovery revealed (Find Information's types count as
    /// discovered: a declaration never read, and the value after it, are not listed here).
    public func undiscoveredHandles(used: Set<UInt16>) -> [UInt16] {
        used.filter { h in
            h != 0 && attributeTypes[h] == nil && characteristic(valueHandle: h) == nil && !descriptors.contains { $0.handle == h }
                && !characteristics.contains { $0.declarationHandle == h } && !services.contains { $0.startHandle == h }
        }.sorted()
    }

    /// CCCD state per characteristic value handle: 0x0001 notifications, 0x0002 indications.
    public var clientConfigurations: [UInt16: UInt16] {
        var out: [UInt16: UInt16] = [:]
        for d in descriptors where d.uuid == BluetoothUUID(uint16: 0x2902) {
            guard let v = values[d.handle], v.bytes.count >= 2, let valueHandle = valueHandle(owning: d.handle) else { continue }
            out[valueHandle] = UInt16(v.bytes[0]) | UInt16(v.bytes[1]) << 8
        }
        return out
    }
}
