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
        public init(bytes: [UInt8], source: String, packetID: Int) {
            self.bytes = bytes; self.source = source; self.packetID = packetID
        }
    }

    public var services: [Service] = []
    public var characteristics: [Characteristic] = []
    public var descriptors: [Descriptor] = []
    public var includes: [Include] = []
    public var values: [UInt16: Value] = [:]

    public init() {}

    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty }

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> Service? {
        services.filter { $0.startHandle <= handle && handle <= $0.endHandle }
            .min { ($0.endHandle - $0.startHandle) < ($1.endHandle - $1.startHandle) }
    }

    /// The characteristic a descriptor handle belongs to: the last one declared before it in its service.
    public func characteristic(owning handle: UInt16) -> Characteristic? {
        let service = service(containing: handle)
        let floor = service?.startHandle ?? 0
        return characteristics
            .filter { c in c.valueHandle < handle && floor <= c.declarationHandle }
            .max { $0.declarationHandle < $1.declarationHandle }
    }

    /// The characteristic whose value lives at `handle`.
    public func characteristic(valueHandle handle: UInt16) -> Characteristic? {
        characteristics.first { $0.valueHandle == handle }
    }

    /// The UUID of whatever lives at `handle` (characteristic value or descriptor).
    public func uuid(at handle: UInt16) -> BluetoothUUID? {
        characteristic(valueHandle: handle)?.uuid ?? descriptors.first { $0.handle == handle }?.uuid
    }

    /// Handles that requests used but no discovery revealed.
    public func undiscoveredHandles(used: Set<UInt16>) -> [UInt16] {
        used.filter { h in
            h != 0 && characteristic(valueHandle: h) == nil && !descriptors.contains { $0.handle == h }
                && !characteristics.contains { $0.declarationHandle == h } && !services.contains { $0.startHandle == h }
        }.sorted()
    }

    /// CCCD state per characteristic value handle: 0x0001 notifications, 0x0002 indications.
    public var clientConfigurations: [UInt16: UInt16] {
        var out: [UInt16: UInt16] = [:]
        for d in descriptors where d.uuid == BluetoothUUID(uint16: 0x2902) {
            guard let v = values[d.handle], v.bytes.count >= 2, let c = characteristic(owning: d.handle) else { continue }
            out[c.valueHandle] = UInt16(v.bytes[0]) | UInt16(v.bytes[1]) << 8
        }
        return out
    }
}

/// Rebuilds a server's GATT database from the discovery procedures and reads/writes a client ran
/// (Core v5.4 Vol 3 Part G 4.4-4.8).
public struct GATTReconstructor {
    public private(set) var database = GATTDatabase()
    /// Handles named by requests (for "used but never discovered").
    public private(set) var usedHandles: Set<UInt16> = []
    /// The side that acted as server (answered the discovery).
    public private(set) var serverDirection: Direction?

    private var lastRequest: [Direction: StoredATTPDU] = [:]

    static let primaryService = BluetoothUUID(uint16: 0x2800)
    static let secondaryService = BluetoothUUID(uint16: 0x2801)
    static let include = BluetoothUUID(uint16: 0x2802)
    static let characteristic = BluetoothUUID(uint16: 0x2803)

    public init() {}

    public mutating func add(_ p: StoredATTPDU) {
        guard let pdu = p.pdu else { return }
        switch p.opcode.kind {
        case .request:
            lastRequest[p.direction] = p
            if let h = pdu.attributeHandle, p.opcode != .readByTypeRequest, p.opcode != .readByGroupTypeRequest,
               p.opcode != .findInformationRequest, p.opcode != .findByTypeValueRequest {
                usedHandles.insert(h)
            }
            if p.opcode == .writeRequest, let h = pdu.attributeHandle, let v = pdu.value {
                setValue(h, v, "write", p.packetID)
            }
        case .command:
            if let h = pdu.attributeHandle, let v = pdu.value {
                usedHandles.insert(h)
                setValue(h, v, "write", p.packetID)
            }
        case .notification, .indication:
            switch pdu {
            case .multipleHandleValueNotification:
                break
            default:
                if let h = pdu.attributeHandle, let v = pdu.value {
                    setValue(h, v, p.opcode.kind == .notification ? "notification" : "indication", p.packetID)
                }
            }
        case .response:
            guard let request = lastRequest[p.direction.opposite], let requestPDU = request.pdu else { return }
            lastRequest[p.direction.opposite] = nil
            serverDirection = p.direction
            response(pdu, to: requestPDU, request: request, packetID: p.packetID)
        default:
            break
        }
    }

    private mutating func setValue(_ handle: UInt16, _ bytes: [UInt8], _ source: String, _ packetID: Int) {
        database.values[handle] = GATTDatabase.Value(bytes: bytes, source: source, packetID: packetID)
    }

    private mutating func response(_ pdu: ATTPDU, to requestPDU: ATTPDU, request: StoredATTPDU, packetID: Int) {
        switch (requestPDU, pdu) {
        case (.readByGroupTypeRequest(let rq), .readByGroupTypeResponse(let rs)):
            let primary = rq.attributeGroupType == Self.primaryService
            guard primary || rq.attributeGroupType == Self.secondaryService else { return }
            for e in rs.attributeDataList {
                guard let uuid = e.uuid else { continue }
                addService(GATTDatabase.Service(uuid: uuid, startHandle: e.handle, endHandle: e.endGroupHandle, isPrimary: primary))
            }
        case (.findByTypeValueRequest(let rq), .findByTypeValueResponse(let rs)):
            guard rq.attributeTypeUUID == Self.primaryService, let uuid = BluetoothUUID(littleEndian: rq.attributeValue) else { return }
            for h in rs.handlesInformation {
                addService(GATTDatabase.Service(uuid: uuid, startHandle: h.foundAttributeHandle, endHandle: h.groupEndHandle, isPrimary: true))
            }
        case (.readByTypeRequest(let rq), .readByTypeResponse(let rs)):
            if rq.attributeType == Self.characteristic {
                for e in rs.attributeDataList where e.value.count == 5 || e.value.count == 19 {
                    let valueHandle = UInt16(e.value[1]) | UInt16(e.value[2]) << 8
                    guard let uuid = BluetoothUUID(littleEndian: e.value[3...]) else { continue }
                    let c = GATTDatabase.Characteristic(uuid: uuid, declarationHandle: e.handle, valueHandle: valueHandle,
                                                        properties: e.value[0])
                    if let i = database.characteristics.firstIndex(where: { $0.declarationHandle == e.handle }) {
                        database.characteristics[i] = c
                    } else {
                        database.characteristics.append(c)
                    }
                }
                database.characteristics.sort { $0.declarationHandle < $1.declarationHandle }
            } else if rq.attributeType == Self.include {
                for e in rs.attributeDataList where e.value.count == 4 || e.value.count == 6 {
                    let start = UInt16(e.value[0]) | UInt16(e.value[1]) << 8
                    let end = UInt16(e.value[2]) | UInt16(e.value[3]) << 8
                    let uuid = e.value.count == 6 ? BluetoothUUID(littleEndian: e.value[4...]) : nil
                    if !database.includes.contains(where: { $0.declarationHandle == e.handle }) {
                        database.includes.append(GATTDatabase.Include(declarationHandle: e.handle, startHandle: start, endHandle: end, uuid: uuid))
                    }
                }
            } else {
                // Read Using Characteristic UUID (Vol 3 Part G 4.8.2): values by type.
                for e in rs.attributeDataList { setValue(e.handle, e.value, "read", packetID) }
            }
        case (.findInformationRequest, .findInformationResponse(let rs)):
            for info in rs.information {
                let declarationTypes: Set<UInt16> = [0x2800, 0x2801, 0x2802, 0x2803]
                if let v = info.uuid.uint16, declarationTypes.contains(v) { continue }
                if database.characteristic(valueHandle: info.handle) != nil { continue }
                if !database.descriptors.contains(where: { $0.handle == info.handle }) {
                    database.descriptors.append(GATTDatabase.Descriptor(uuid: info.uuid, handle: info.handle))
                }
            }
            database.descriptors.sort { $0.handle < $1.handle }
        case (.readRequest, .readResponse):
            if let h = requestPDU.attributeHandle, let v = pdu.value { setValue(h, v, "read", packetID) }
        case (.readBlobRequest, .readBlobResponse):
            guard let h = requestPDU.attributeHandle, let v = pdu.value, request.bytes.count >= 5 else { return }
            let offset = Int(request.bytes[3]) | Int(request.bytes[4]) << 8
            var current = database.values[h]?.bytes ?? []
            if current.count >= offset {
                current = Array(current[0..<offset]) + v
            } else {
                current = v
            }
            setValue(h, current, "read", packetID)
        default:
            break
        }
    }

    private mutating func addService(_ s: GATTDatabase.Service) {
        if let i = database.services.firstIndex(where: { $0.startHandle == s.startHandle }) {
            database.services[i] = s
        } else {
            database.services.append(s)
        }
        database.services.sort { $0.startHandle < $1.startHandle }
    }
}
