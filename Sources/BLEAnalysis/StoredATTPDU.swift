import BLECore
import BLEDecode
import BLETimeline

/// One ATT PDU as the timeline stores it, decoded again for analysis.
public struct StoredATTPDU: Sendable {
    public var packetID: Int
    public var timestamp: Int64
    public var direction: Direction
    public var opcode: ATTOpcode
    /// Nil when the stored PDU was malformed.
    public var pdu: ATTPDU?
    /// The whole PDU as it was on the wire.
    public var bytes: [UInt8]
    /// The Enhanced ATT bearer (its L2CAP channel ID); nil on the fixed ATT channel.
    public var bearer: UInt16?
    /// The capture writer cut the PDU (`att_pdu.cut`): `pdu` is nil, only the opcode is known.
    public var isCut = false

    public init(packetID: Int, timestamp: Int64, direction: Direction, opcode: ATTOpcode, pdu: ATTPDU?, bytes: [UInt8] = [],
                bearer: UInt16? = nil) {
        self.bytes = bytes
        self.bearer = bearer
        self.packetID = packetID
        self.timestamp = timestamp
        self.direction = direction
        self.opcode = opcode
        self.pdu = pdu
    }

    /// All ATT PDUs of one connection in packet order.
    public static func load(connection: Int64, from db: SQLiteDatabase) throws -> [StoredATTPDU] {
        var out: [StoredATTPDU] = []
        try forEach(connection: connection, in: db) { out.append($0) }
        return out
    }

    /// Streams the ATT PDUs of one connection in packet order (memory stays flat).
    public static func forEach(connection: Int64, in db: SQLiteDatabase, _ body: (StoredATTPDU) throws -> Void) throws {
        let s = try db.prepare("""
            SELECT packet_id, ts_us, direction, opcode, pdu, bearer, cut FROM att_pdu WHERE connection_id = ?1 ORDER BY packet_id, rowid
            """)
        try s.bind([.integer(connection)])
        while try s.step() {
            let bytes = s.blob(4) ?? []
            // A cut PDU is never decoded from what was left of it (that would make up fields).
            let isCut = s.int(6) != 0
            let pdu = isCut ? nil : try? ATTPDU(decoding: bytes[...])
            var stored = StoredATTPDU(packetID: s.int(0), timestamp: s.int64(1),
                                      direction: Direction(rawValue: s.text(2) ?? "?") ?? .unknown,
                                      opcode: ATTOpcode(UInt8(truncatingIfNeeded: s.int(3))), pdu: pdu, bytes: bytes,
                                      bearer: s.optionalInt(5).map { UInt16(truncatingIfNeeded: $0) })
            stored.isCut = isCut
            try body(stored)
        }
    }
}

extension Direction {
    /// The other side of the link (`.unknown` stays unknown).
    var opposite: Direction {
        switch self {
        case .sent: .received
        case .received: .sent
        case .unknown: .unknown
        }
    }
}
