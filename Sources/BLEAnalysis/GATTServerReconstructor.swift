import BLECore
import BLEDecode

/// Rebuilds one server's GATT database from the discovery procedures and reads/writes a client ran
/// against it (Core v5.4 Vol 3 Part G 4.4-4.8). It must see only the PDUs between that server and
/// its client: `GATTReconstructor` sorts a link's PDUs by `GATTServerSide` first.
public struct GATTServerReconstructor {
    /// The database as learned so far: the declarations Find Information listed and whose value
    /// a read returned are decoded, and its descriptors found, only here, so that the order of
    /// the procedures does not matter (`GATTDeclarations`).
    public var database: GATTDatabase {
        var g = learned
        readMultipleValues(into: &g)
        g.decodeReadDeclarations()
        g.descriptors = g.findInformationDescriptors()
        return g
    }
    /// What the PDUs said, as they came: services, includes, characteristics by type, values,
    /// and every attribute type Find Information listed.
    private var learned = GATTDatabase()
    /// Handles named by requests (for "used but never discovered").
    public private(set) var usedHandles: Set<UInt16> = []

    private var lastRequest: [Direction: StoredATTPDU] = [:]
    /// The server's prepare queue per client direction: each Prepare Write the server accepted
    /// (its Prepare Write Response came), until an Execute Write writes or cancels them all
    /// (Core v5.4 Vol 3 Part F 3.4.6.1-3.4.6.4).
    private var preparedWrites: [Direction: [(handle: UInt16, offset: Int, part: [UInt8])]] = [:]
    /// The link's ATT_MTU and the lengths its whole values show, which tell the values of a Read
    /// Multiple Response apart: the rule the replay's values follow (`ReadMultipleValues`).
    private var lengths = ReadMultipleValues()
    /// Read Multiple Responses (Core v5.4 Vol 3 Part F 3.4.4.8), whose values are known only once
    /// every value of the link has told its length (`database`).
    private var readMultiples: [(packetID: Int, handles: [UInt16], response: [UInt8], mtu: Int)] = []

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
        case .command:
            if let h = pdu.attributeHandle, let v = pdu.value {
                usedHandles.insert(h)
                setValue(h, v, "write", p.packetID, whole: p.opcode == .writeCommand)
            }
        case .notification, .indication:
            switch pdu {
            case .multipleHandleValueNotification(let n):
                // Each handle's value after its length (3.4.7.4).
                for t in n.handleValueTuples { setValue(t.attributeHandle, t.value, "notification", p.packetID, whole: true) }
            default:
                if let h = pdu.attributeHandle, let v = pdu.value {
                    setValue(h, v, p.opcode.kind == .notification ? "notification" : "indication", p.packetID,
                             whole: lengths.isWhole(v.count, carriedBy: p.opcode, bearer: p.bearer))
                }
            }
        case .response:
            // Find Information Response names each attribute it lists with its type (Core v5.4
            // Vol 3 Part F 3.4.3.2): kept even when the request was not captured.
            if case .findInformationResponse(let rs) = pdu {
                for info in rs.information { learned.attributeTypes[info.handle] = info.uuid }
            }
            guard let request = lastRequest[p.direction.opposite], let requestPDU = request.pdu else { return }
            lastRequest[p.direction.opposite] = nil
            response(pdu, to: requestPDU, request: request, p)
        default:
            break
        }
    }

    /// The handle's value now; the type it was read by, once known, stays (a handle's type does
    /// not change while the link lasts). A `whole` value tells the handle's length
    /// (`ReadMultipleValues.isWhole`).
    private mutating func setValue(_ handle: UInt16, _ bytes: [UInt8], _ source: String, _ packetID: Int,
                                   readByType: BluetoothUUID? = nil, whole: Bool = false) {
        learned.values[handle] = GATTDatabase.Value(bytes: bytes, source: source, packetID: packetID,
                                                    readByType: readByType ?? learned.values[handle]?.readByType)
        if whole { lengths.note(handle, wholeCount: bytes.count) }
    }

    /// The values of the Read Multiple Responses that the link's lengths explain
    /// (`ReadMultipleValues.concatenated`), each the handle's value unless a later PDU gave another.
    private func readMultipleValues(into g: inout GATTDatabase) {
        for m in readMultiples {
            for v in lengths.concatenated(handles: m.handles, responseCount: m.response.count, mtu: m.mtu) {
                let current = g.values[v.handle]
                guard current.map({ $0.packetID < m.packetID }) ?? true else { continue }
                g.values[v.handle] = GATTDatabase.Value(bytes: Array(m.response[v.start..<(v.start + v.count)]), source: "read",
                                                        packetID: m.packetID, readByType: current?.readByType)
            }
        }
    }

    private mutating func response(_ pdu: ATTPDU, to requestPDU: ATTPDU, request: StoredATTPDU, _ p: StoredATTPDU) {
        let packetID = p.packetID
        switch (requestPDU, pdu) {
        case (.exchangeMTURequest(let rq), .exchangeMTUResponse(let rs)) where request.bearer == nil:
            lengths.exchangedMTU(clientRx: rq.clientRxMTU, serverRx: rs.serverRxMTU)
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
                for e in rs.attributeDataList {
                    guard let c = GATTDatabase.Characteristic(declarationHandle: e.handle, value: e.value) else { continue }
                    if let i = learned.characteristics.firstIndex(where: { $0.declarationHandle == e.handle }) {
                        learned.characteristics[i] = c
                    } else {
                        learned.characteristics.append(c)
                    }
                }
                learned.characteristics.sort { $0.declarationHandle < $1.declarationHandle }
            } else if rq.attributeType == Self.include {
                for e in rs.attributeDataList where e.value.count == 4 || e.value.count == 6 {
                    let start = UInt16(e.value[0]) | UInt16(e.value[1]) << 8
                    let end = UInt16(e.value[2]) | UInt16(e.value[3]) << 8
                    let uuid = e.value.count == 6 ? BluetoothUUID(littleEndian: e.value[4...]) : nil
                    if !learned.includes.contains(where: { $0.declarationHandle == e.handle }) {
                        learned.includes.append(GATTDatabase.Include(declarationHandle: e.handle, startHandle: start, endHandle: end, uuid: uuid))
                    }
                }
            } else {
                // Read Using Characteristic UUID (Vol 3 Part G 4.8.2): values by type.
                for e in rs.attributeDataList {
                    setValue(e.handle, e.value, "read", packetID, readByType: rq.attributeType,
                             whole: lengths.isWhole(e.value.count, carriedBy: p.opcode, bearer: p.bearer))
                }
            }
        case (.writeRequest(let rq), .writeResponse):
            // Written only once the server said so: an Error Response leaves the value as it was
            // (Core v5.4 Vol 3 Part F 3.4.5.1-3.4.5.2).
            setValue(rq.attributeHandle, rq.attributeValue, "write", request.packetID, whole: true)
        case (.prepareWriteRequest(let rq), .prepareWriteResponse):
            preparedWrites[request.direction, default: []].append((rq.attributeHandle, Int(rq.valueOffset), rq.partAttributeValue))
        case (.executeWriteRequest(let rq), .executeWriteResponse):
            // Flags 0x01 writes every queued part in the order prepared, 0x00 cancels them all
            // (Vol 3 Part F 3.4.6.3); a long write (Vol 3 Part G 4.9.4) is parts at rising offsets.
            let queue = preparedWrites.removeValue(forKey: request.direction) ?? []
            guard rq.flags == 0x01 else { return }
            var written: [UInt16: [UInt8]] = [:]
            for part in queue {
                let current = written[part.handle] ?? learned.values[part.handle]?.bytes ?? []
                written[part.handle] = current.count >= part.offset ? Array(current[0..<part.offset]) + part.part : part.part
            }
            for (h, v) in written { setValue(h, v, "write", request.packetID) }
        case (.executeWriteRequest, _):
            // An Execute Write refused: the server's queue is gone either way (Vol 3 Part F 3.4.6.3).
            preparedWrites[request.direction] = nil
        case (.readRequest, .readResponse):
            if let h = requestPDU.attributeHandle, let v = pdu.value {
                setValue(h, v, "read", packetID, whole: lengths.isWhole(v.count, carriedBy: p.opcode, bearer: p.bearer))
            }
        case (.readBlobRequest, .readBlobResponse):
            guard let h = requestPDU.attributeHandle, let v = pdu.value, request.bytes.count >= 5 else { return }
            let offset = Int(request.bytes[3]) | Int(request.bytes[4]) << 8
            var current = learned.values[h]?.bytes ?? []
            // Only a part joined to the value read before it is a whole value (a long read).
            let joined = learned.values[h] != nil && current.count >= offset
            if current.count >= offset {
                current = Array(current[0..<offset]) + v
            } else {
                current = v
            }
            setValue(h, current, "read", packetID,
                     whole: joined && lengths.isWhole(v.count, carriedBy: p.opcode, bearer: p.bearer))
        case (.readMultipleVariableRequest(let rq), .readMultipleVariableResponse):
            for v in ReadMultipleValues.variable(handles: rq.setOfHandles, response: p.bytes) {
                setValue(v.handle, Array(p.bytes[v.start..<(v.start + v.count)]), "read", packetID, whole: true)
            }
        case (.readMultipleRequest(let rq), .readMultipleResponse):
            readMultiples.append((packetID, rq.setOfHandles, p.bytes, lengths.mtu(request.bearer)))
        default:
            break
        }
    }

    private mutating func addService(_ s: GATTDatabase.Service) {
        if let i = learned.services.firstIndex(where: { $0.startHandle == s.startHandle }) {
            learned.services[i] = s
        } else {
            learned.services.append(s)
        }
        learned.services.sort { $0.startHandle < $1.startHandle }
    }
}
