import BLECore
import BLEDecode

/// The columns of a `packet` row but its summary and raw bytes, as `TimelineWriter` binds them:
/// taken from a record and what the decoder made of it, without either's bytes or events.
struct PacketRowColumns {
    // The 8-byte fields first, then the small ones: 40 bytes a row, not 56, for the rows
    // `ReferencedPacketRows` holds per link.
    var frame: Int
    var timestamp: Int64
    var originalLength: Int
    var fileOffset: Int
    var controllerIndex: UInt16
    var rawType: UInt16
    /// The decoder's direction when the record has none of its own (air captures).
    var direction: Direction
    var kind: PacketKind
    var layer: PacketLayer
    var malformed: Bool

    @inline(__always)
    init(_ record: CaptureRecord, _ packet: DecodedPacket) {
        frame = record.frameNumber
        timestamp = record.timestamp
        direction = packet.direction ?? record.direction
        kind = record.kind
        originalLength = record.originalLength
        layer = packet.layer
        fileOffset = record.fileOffset
        controllerIndex = record.controllerIndex
        rawType = record.rawType
        // Problems about an earlier record (`DecodeError.frame`) are that record's, not this one's.
        malformed = packet.problems.contains { $0.frame == nil }
    }
}
