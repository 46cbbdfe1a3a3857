import BLECore
import BLEDecode

/// Reads `PacketDetails` for packets in increasing key order, one cursor per detail table
/// walked alongside the packet cursor (`timeline -v` and `--json` on a capture of any size
/// run a fixed number of queries).
final class PacketDetailsReader {
    private let att: KeyedCursor
    private let responseHandles: KeyedCursor
    private let smp: KeyedCursor
    private let reports: KeyedCursor
    private let links: KeyedCursor
    private let errors: KeyedCursor
    private let characteristics: CharacteristicIndex

    /// - Parameter captureID: read only this capture's rows (nil: every capture).
    init(database db: SQLiteDatabase, captureID: Int64?) throws {
        func cursor(_ columns: String, from table: String, captureColumn: String = "capture_id",
                    packetColumn: String = "packet_id", extra: String = "") throws -> KeyedCursor {
            var conditions = [String]()
            if captureID != nil { conditions.append("\(captureColumn) = ?1") }
            if !extra.isEmpty { conditions.append(extra) }
            let s = try db.prepare("""
                SELECT \(captureColumn), \(packetColumn), \(columns) FROM \(table)
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY 1, 2, \(table.contains(" ") ? "t.rowid" : "rowid")
                """)
            if let captureID { try s.bind([.integer(captureID)]) }
            return try KeyedCursor(s)
        }
        att = try cursor("pdu, connection_id, direction, handle", from: "att_pdu")
        responseHandles = try cursor("t.handle", from: "att_transaction t JOIN connection c ON c.id = t.connection_id",
                                     captureColumn: "c.capture_id", packetColumn: "t.response_packet_id",
                                     extra: "t.response_packet_id IS NOT NULL AND t.handle IS NOT NULL")
        smp = try cursor("name, detail", from: "smp_event")
        reports = try cursor("address, address_type, event_type, rssi, data", from: "adv_report")
        links = try cursor("name, status, detail", from: "link_event")
        errors = try cursor("layer, context, code, name, cb_error, android_status, android_name", from: "error")
        characteristics = try CharacteristicIndex(database: db)
    }

    /// The details of `row` (rows must come in packet-key order).
    func details(of row: PacketRow) throws -> PacketDetails {
        let key = PacketKey.make(capture: row.captureID, frame: row.id)
        var d = PacketDetails()
        var responseHandle: Int?
        try responseHandles.forEachRow(at: key) { s in responseHandle = s.int(2) }
        try att.forEachRow(at: key) { s in
            let bytes = s.blob(2) ?? []
            let pdu = try? ATTPDU(decoding: bytes[...])
            let opcode = bytes.first.map { ATTOpcode($0).name } ?? "(empty)"
            d.att = PacketDetails.ATT(opcodeName: opcode, fields: pdu?.fields, bytes: bytes)
            if let pdu, let value = pdu.characteristicValue, let handle = s.isNull(5) ? responseHandle : s.int(5),
               let uuid = characteristics.characteristic(connectionID: s.int64(3), handle: handle, direction: s.text(4) ?? "", opcode: bytes.first ?? 0),
               let decoded = CharacteristicValueDecoder.decode(value, uuid: uuid) {
                d.value = PacketDetails.Value(handle: handle, value: decoded)
            }
        }
        try smp.forEachRow(at: key) { s in d.smp.append(.init(name: s.text(2) ?? "", detail: s.text(3))) }
        try reports.forEachRow(at: key) { s in
            let data = AdvertisingData(decoding: (s.blob(6) ?? [])[...])
            d.reports.append(.init(address: s.text(2) ?? "", addressType: s.text(3) ?? "", eventType: s.int(4),
                                   rssi: s.optionalInt(5), data: data.fields))
        }
        try links.forEachRow(at: key) { s in d.links.append(.init(name: s.text(2) ?? "", status: s.optionalInt(3), detail: s.text(4))) }
        try errors.forEachRow(at: key) { s in
            d.errors.append(.init(layer: s.text(2) ?? "", context: s.text(3) ?? "", code: s.int(4), name: s.text(5) ?? "", cbError: s.text(6),
                                   androidStatus: s.optionalInt(7), androidName: s.text(8)))
        }
        return d
    }
}
