import BLECore
import BLEDecode

/// The packets `--handle H` selects, as Wireshark's `btatt.handle == H` does:
///
/// - a PDU whose Attribute Handle is H (reads, writes, notifications, indications, prepared
///   writes, a Read Multiple's set), and an Error Response reporting H;
/// - the response to a request for H (a Read Response carries no handle: the transaction names it);
/// - a discovery response listing H: a Read By Group Type or Find Information Response's
///   handles, a Find By Type Value Response's found handles, a Read By Type Response's handles
///   and, in a characteristic declaration (a 5- or 19-byte value), its value handle.
///
/// A range request (Find Information, Find By Type Value, Read By Type, Read By Group Type) is
/// not about its starting handle: Wireshark calls that field `btatt.starting_handle`.
enum AttributeHandleMatch {
    static let rangeRequests: [UInt8] = [0x04, 0x06, 0x08, 0x10]
    static let listResponses: [UInt8] = [0x05, 0x07, 0x09, 0x11]
    static let executeWriteRequest: UInt8 = 0x18

    /// Packet keys (`PacketKey`) of the packets about `handle`, in `captureID` or every capture.
    static func keys(handle: Int, captureID: Int64?, db: SQLiteDatabase) throws -> Set<Int64> {
        var out = Set<Int64>()
        let key = PacketKey.sql(capture: "capture_id", frame: "packet_id")
        let inCapture = captureID == nil ? "" : " AND capture_id = ?2"
        let onlyCapture = captureID == nil ? "" : " AND capture_id = ?1"
        var bind: [SQLiteValue] = [.integer(Int64(handle))]
        if let captureID { bind.append(.integer(captureID)) }
        // The PDU's own handle (att_pdu.handle), range requests and list responses apart.
        let exclude = (rangeRequests + listResponses).map(String.init).joined(separator: ", ")
        for r in try db.rows("SELECT \(key) FROM att_pdu WHERE handle = ?1 AND opcode NOT IN (\(exclude))\(inCapture)", bind) {
            if let k = r[0].int64 { out.insert(k) }
        }
        // Read Multiple and Multiple Handle Value Notification name several handles; the column holds the first.
        for r in try db.rows("SELECT \(key), pdu FROM att_pdu WHERE opcode IN (14, 32, 35)\(onlyCapture)",
                             captureID.map { [.integer($0)] } ?? []) {
            guard let k = r[0].int64, let bytes = r[1].blob, let pdu = try? ATTPDU(decoding: bytes[...]) else { continue }
            let handles: [UInt16] = switch pdu {
            case .readMultipleRequest(let p): p.setOfHandles
            case .readMultipleVariableRequest(let p): p.setOfHandles
            case .multipleHandleValueNotification(let p): p.handleValueTuples.map(\.attributeHandle)
            default: []
            }
            if handles.contains(UInt16(truncatingIfNeeded: handle)) { out.insert(k) }
        }
        // Responses to requests for the handle. Not an Execute Write Response: the queued-write
        // transaction (TransactionMatcher) carries its first Prepare Write's handle, but Execute
        // Write names none (Core v5.4 Vol 3 Part F 3.4.6.3), and Wireshark does not match it.
        for r in try db.rows("""
            SELECT \(PacketKey.sql(capture: "c.capture_id", frame: "t.response_packet_id"))
            FROM att_transaction t JOIN connection c ON c.id = t.connection_id
            WHERE t.handle = ?1 AND t.response_packet_id IS NOT NULL AND t.opcode NOT IN (\((rangeRequests + [executeWriteRequest]).map(String.init).joined(separator: ", ")))
            \(captureID == nil ? "" : "AND c.capture_id = ?2")
            """, bind) {
            if let k = r[0].int64 { out.insert(k) }
        }
        // Discovery responses that list it.
        let h = UInt16(truncatingIfNeeded: handle)
        for r in try db.rows("SELECT \(key), pdu FROM att_pdu WHERE opcode IN (\(listResponses.map(String.init).joined(separator: ", ")))\(onlyCapture)",
                             captureID.map { [.integer($0)] } ?? []) {
            guard let k = r[0].int64, let bytes = r[1].blob, let pdu = try? ATTPDU(decoding: bytes[...]) else { continue }
            if lists(pdu, h) { out.insert(k) }
        }
        return out
    }

    static func lists(_ pdu: ATTPDU, _ h: UInt16) -> Bool {
        switch pdu {
        case .findInformationResponse(let p): return p.information.contains { $0.handle == h }
        case .findByTypeValueResponse(let p): return p.handlesInformation.contains { $0.foundAttributeHandle == h }
        case .readByGroupTypeResponse(let p): return p.attributeDataList.contains { $0.handle == h }
        case .readByTypeResponse(let p):
            return p.attributeDataList.contains { d in
                if d.handle == h { return true }
                // Characteristic declaration: properties, value handle, UUID (Core v5.4 Vol 3 Part G 3.3.1).
                guard d.value.count == 5 || d.value.count == 19 else { return false }
                return UInt16(d.value[1]) | UInt16(d.value[2]) << 8 == h
            }
        default: return false
        }
    }
}
