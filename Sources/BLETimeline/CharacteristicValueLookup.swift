import BLECore
import BLEDecode

/// The characteristic value one packet carries, decoded (for the diagnosis's evidence lines and
/// anything else that looks at a few packets rather than walking them all, as `timeline -v` does).
public final class CharacteristicValueLookup {
    private let characteristics: CharacteristicIndex
    private let pduAt: SQLiteStatement
    private let requestedHandle: SQLiteStatement

    public init(database db: SQLiteDatabase) throws {
        characteristics = try CharacteristicIndex(database: db)
        pduAt = try db.prepare("""
            SELECT a.pdu, a.connection_id, a.direction, a.handle, a.packet_id FROM packet p
            JOIN att_pdu a ON a.connection_id = p.connection_id AND a.packet_id = p.frame
            WHERE p.rowid = \(PacketKey.sql(capture: "?1", frame: "?2"))
            """)
        requestedHandle = try db.prepare("SELECT handle FROM att_transaction WHERE connection_id = ?1 AND response_packet_id = ?2 LIMIT 1")
    }

    /// The decoded value of packet `frame` of `captureID`; nil when it carries no value whose
    /// characteristic is known and whose layout is defined.
    public func value(captureID: Int64, frame: Int) throws -> PacketDetails.Value? {
        try pduAt.bind([.integer(captureID), .integer(Int64(frame))])
        defer { pduAt.reset() }
        guard try pduAt.step(), let bytes = pduAt.blob(0), let pdu = try? ATTPDU(decoding: bytes[...]),
              let value = pdu.characteristicValue else { return nil }
        let connection = pduAt.int64(1)
        var handle = pduAt.optionalInt(3)
        if handle == nil {
            try requestedHandle.bind([.integer(connection), .integer(Int64(frame))])
            defer { requestedHandle.reset() }
            if try requestedHandle.step() { handle = requestedHandle.optionalInt(0) }
        }
        guard let handle, let uuid = characteristics.characteristic(connectionID: connection, handle: handle, direction: pduAt.text(2) ?? "", opcode: bytes.first ?? 0),
              let decoded = CharacteristicValueDecoder.decode(value, uuid: uuid) else { return nil }
        return PacketDetails.Value(handle: handle, value: decoded)
    }
}
