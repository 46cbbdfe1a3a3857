import BLEAnalysis
import BLECore
import BLEDecode

/// Answers ATT requests from a reconstructed GATT database (`--unmatched database`): the
/// discovery procedures of Core v5.4 Vol 3 Part G 4.4-4.7 and reads and writes of known values.
/// Writes are kept for the rest of the connection.
public struct GATTServerEmulator: Sendable {
    public var database: GATTDatabase
    public var serverRxMTU: UInt16
    /// Values written during the connection (GATTDatabase.Value has no public initializer).
    public private(set) var written: [UInt16: [UInt8]] = [:]
    /// The prepare queue of a long write (Core v5.4 Vol 3 Part F 3.4.6), in the order received.
    var prepared: [(handle: UInt16, offset: Int, part: [UInt8])] = []
    var mtu = 23

    public init(database: GATTDatabase, serverRxMTU: UInt16) {
        self.database = database
        self.serverRxMTU = serverRxMTU
    }

    static let primary = BluetoothUUID(uint16: 0x2800)
    static let secondary = BluetoothUUID(uint16: 0x2801)
    static let include = BluetoothUUID(uint16: 0x2802)
    static let characteristic = BluetoothUUID(uint16: 0x2803)

    /// The response (or Error Response) to a request.
    /// - Parameter recorded: the value a handle holds at this moment as the recording shows it
    ///   (`ValueHistory`), which comes before the database's last value (Docs/replay.md "Values the
    ///   recording never showed"); a value written on the link comes before both.
    public mutating func answer(_ request: [UInt8], recorded: (UInt16) -> [UInt8]? = { _ in nil }) -> [UInt8] {
        let op = ATTOpcode(request.first ?? 0)
        guard let pdu = try? ATTPDU(decoding: request[...]) else {
            return error(op, 0, .invalidPDU)
        }
        switch pdu {
        case .exchangeMTURequest(let r):
            mtu = max(23, min(Int(r.clientRxMTU), Int(serverRxMTU)))
            return ATTPDU.exchangeMTUResponse(ATTExchangeMTUResponse(serverRxMTU: serverRxMTU)).encoded()
        case .readByGroupTypeRequest(let r):
            guard r.attributeGroupType == Self.primary || r.attributeGroupType == Self.secondary else {
                return error(op, r.startingHandle, .unsupportedGroupType)
            }
            let wanted = r.attributeGroupType == Self.primary
            var list: [ATTReadByGroupTypeResponse.AttributeData] = []
            for s in database.services where s.isPrimary == wanted && s.startHandle >= r.startingHandle && s.startHandle <= r.endingHandle {
                let v = s.uuid.littleEndianBytes
                if let first = list.first, first.value.count != v.count { break }
                if 2 + (list.count + 1) * (4 + v.count) > mtu { break }
                list.append(.init(handle: s.startHandle, endGroupHandle: s.endHandle, value: v))
            }
            if list.isEmpty { return error(op, r.startingHandle, .attributeNotFound) }
            return ATTPDU.readByGroupTypeResponse(ATTReadByGroupTypeResponse(attributeDataList: list)).encoded()
        case .findByTypeValueRequest(let r):
            var list: [ATTFindByTypeValueResponse.HandlesInformation] = []
            if r.attributeType == 0x2800 || r.attributeType == 0x2801 {
                for s in database.services where s.isPrimary == (r.attributeType == 0x2800)
                    && s.startHandle >= r.startingHandle && s.startHandle <= r.endingHandle
                    && BluetoothUUID(littleEndian: r.attributeValue) == s.uuid {
                    if 1 + (list.count + 1) * 4 > mtu { break }
                    list.append(.init(foundAttributeHandle: s.startHandle, groupEndHandle: s.endHandle))
                }
            }
            if list.isEmpty { return error(op, r.startingHandle, .attributeNotFound) }
            return ATTPDU.findByTypeValueResponse(ATTFindByTypeValueResponse(handlesInformation: list)).encoded()
        case .readByTypeRequest(let r):
            return readByType(r, recorded: recorded)
        case .findInformationRequest(let r):
            var list: [ATTFindInformationResponse.Information] = []
            for (handle, uuid) in attributeTypes() where handle >= r.startingHandle && handle <= r.endingHandle {
                if let first = list.first, first.uuid.littleEndianBytes.count != uuid.littleEndianBytes.count { break }
                if 2 + (list.count + 1) * (2 + uuid.littleEndianBytes.count) > mtu { break }
                list.append(.init(handle: handle, uuid: uuid))
            }
            guard let first = list.first else { return error(op, r.startingHandle, .attributeNotFound) }
            let format: ATTFindInformationResponse.Format = first.uuid.littleEndianBytes.count == 2 ? .uuid16 : .uuid128
            return ATTPDU.findInformationResponse(ATTFindInformationResponse(format: format, information: list)).encoded()
        case .readRequest(let r):
            guard let value = value(at: r.attributeHandle, recorded: recorded) else { return error(op, r.attributeHandle, .invalidHandle) }
            return [ATTOpcode.readResponse.rawValue] + value.prefix(mtu - 1)
        case .readBlobRequest(let r):
            guard let value = value(at: r.attributeHandle, recorded: recorded) else { return error(op, r.attributeHandle, .invalidHandle) }
            let offset = Int(r.valueOffset)
            guard offset <= value.count else { return error(op, r.attributeHandle, .invalidOffset) }
            return [ATTOpcode.readBlobResponse.rawValue] + value[offset...].prefix(mtu - 1)
        case .writeRequest(let r):
            guard known(r.attributeHandle) else { return error(op, r.attributeHandle, .invalidHandle) }
            guard writable(r.attributeHandle, property: Self.writeProperty) else { return error(op, r.attributeHandle, .writeNotPermitted) }
            written[r.attributeHandle] = r.attributeValue
            return [ATTOpcode.writeResponse.rawValue]
        case .prepareWriteRequest(let r):
            // Vol 3 Part F 3.4.6.1: queued and echoed back; checked when executed.
            guard known(r.attributeHandle) else { return error(op, r.attributeHandle, .invalidHandle) }
            guard writable(r.attributeHandle, property: Self.writeProperty) else { return error(op, r.attributeHandle, .writeNotPermitted) }
            prepared.append((r.attributeHandle, Int(r.valueOffset), r.partAttributeValue))
            return ATTPDU.prepareWriteResponse(ATTPrepareWriteResponse(attributeHandle: r.attributeHandle, valueOffset: r.valueOffset,
                                                                     partAttributeValue: r.partAttributeValue)).encoded()
        case .executeWriteRequest(let r):
            // Vol 3 Part F 3.4.6.3: 0x01 writes every queued part in order, 0x00 cancels them.
            let queue = prepared
            prepared = []
            guard r.flags == ATTExecuteWriteRequest.immediatelyWriteAllPendingPreparedValues else {
                return [ATTOpcode.executeWriteResponse.rawValue]
            }
            var values: [UInt16: [UInt8]] = [:]
            for q in queue {
                var v = values[q.handle] ?? []
                guard q.offset <= v.count else { return error(op, q.handle, .invalidOffset) }
                v.replaceSubrange(q.offset..<min(v.count, q.offset + q.part.count), with: q.part)
                guard v.count <= 512 else { return error(op, q.handle, .invalidAttributeValueLength) }
                values[q.handle] = v
            }
            for (h, v) in values { written[h] = v }
            return [ATTOpcode.executeWriteResponse.rawValue]
        default:
            return error(op, pdu.attributeHandle ?? 0, .requestNotSupported)
        }
    }

    /// A Write Command changes the value too (no answer).
    public mutating func command(_ pdu: [UInt8]) {
        if case .writeCommand(let w)? = try? ATTPDU(decoding: pdu[...]), known(w.attributeHandle),
           writable(w.attributeHandle, property: Self.writeWithoutResponseProperty) {
            written[w.attributeHandle] = w.attributeValue
        }
    }

    /// Characteristic Properties bits (Core v5.4 Vol 3 Part G 3.3.1.1): Write (0x08) permits a
    /// Write Request and Prepare Write Requests, Write Without Response (0x04) a Write Command.
    static let writeProperty: UInt8 = 0x08
    static let writeWithoutResponseProperty: UInt8 = 0x04

    /// Whether the server lets the client write the attribute at `handle`: a characteristic
    /// declaration never (Vol 3 Part G 3.3.1: read-only), a characteristic value when its
    /// properties have `property` (3.3.1.1: the properties say how the value may be used; the
    /// server answers Write Not Permitted otherwise, Vol 3 Part F 3.4.5.1, 3.4.6.1; a Write
    /// Command it may not act on is dropped, 3.4.5.3), anything else (descriptors) as before.
    func writable(_ handle: UInt16, property: UInt8) -> Bool {
        if database.characteristics.contains(where: { $0.declarationHandle == handle }) { return false }
        if let c = database.characteristics.first(where: { $0.valueHandle == handle }) { return c.properties & property != 0 }
        return true
    }

    func error(_ op: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: op, attributeHandle: handle, errorCode: code)).encoded()
    }

    func known(_ handle: UInt16) -> Bool {
        database.characteristics.contains { $0.valueHandle == handle || $0.declarationHandle == handle }
            || database.descriptors.contains { $0.handle == handle } || database.values[handle] != nil
    }

    /// The value at a handle: written, recorded at this moment, or the database's; declarations
    /// and services as their bytes; an empty value for an attribute known but never read.
    func value(at handle: UInt16, recorded: (UInt16) -> [UInt8]? = { _ in nil }) -> [UInt8]? {
        if let v = written[handle] { return v }
        if let v = recorded(handle) { return v }
        if let v = database.values[handle] { return v.bytes }
        if let s = database.services.first(where: { $0.startHandle == handle }) { return s.uuid.littleEndianBytes }
        if let c = database.characteristics.first(where: { $0.declarationHandle == handle }) { return declaration(c) }
        return known(handle) ? [] : nil
    }

    func declaration(_ c: GATTDatabase.Characteristic) -> [UInt8] {
        [c.properties, UInt8(c.valueHandle & 0xFF), UInt8(c.valueHandle >> 8)] + c.uuid.littleEndianBytes
    }

    /// Every attribute's handle and type, in handle order (for Find Information).
    func attributeTypes() -> [(UInt16, BluetoothUUID)] {
        var out: [(UInt16, BluetoothUUID)] = []
        for s in database.services { out.append((s.startHandle, s.isPrimary ? Self.primary : Self.secondary)) }
        for i in database.includes { out.append((i.declarationHandle, Self.include)) }
        for c in database.characteristics {
            out.append((c.declarationHandle, Self.characteristic))
            out.append((c.valueHandle, c.uuid))
        }
        for d in database.descriptors { out.append((d.handle, d.uuid)) }
        return out.sorted { $0.0 < $1.0 }
    }

    mutating func readByType(_ r: ATTReadByTypeRequest, recorded: (UInt16) -> [UInt8]? = { _ in nil }) -> [UInt8] {
        let op = ATTOpcode.readByTypeRequest
        var list: [ATTReadByTypeResponse.AttributeData] = []
        func add(_ handle: UInt16, _ value: [UInt8]) -> Bool {
            if let first = list.first, first.value.count != value.count { return false }
            if 2 + (list.count + 1) * (2 + value.count) > mtu { return false }
            list.append(.init(handle: handle, value: value))
            return true
        }
        let range = r.startingHandle...max(r.startingHandle, r.endingHandle)
        if r.attributeType == Self.characteristic {
            for c in database.characteristics where range.contains(c.declarationHandle) {
                if !add(c.declarationHandle, declaration(c)) { break }
            }
        } else if r.attributeType == Self.include {
            for i in database.includes where range.contains(i.declarationHandle) {
                let v = [UInt8(i.startHandle & 0xFF), UInt8(i.startHandle >> 8), UInt8(i.endHandle & 0xFF), UInt8(i.endHandle >> 8)]
                    + (i.uuid?.uint16 != nil ? i.uuid!.littleEndianBytes : [])
                if !add(i.declarationHandle, v) { break }
            }
        } else {
            for (handle, uuid) in attributeTypes() where range.contains(handle) && uuid == r.attributeType {
                if !add(handle, Array((value(at: handle, recorded: recorded) ?? []).prefix(min(mtu - 4, 253)))) { break }
            }
        }
        if list.isEmpty { return error(op, r.startingHandle, .attributeNotFound) }
        return ATTPDU.readByTypeResponse(ATTReadByTypeResponse(attributeDataList: list)).encoded()
    }
}
