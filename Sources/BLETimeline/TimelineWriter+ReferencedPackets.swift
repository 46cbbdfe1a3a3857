import BLECore
import BLEDecode

/// The fleet report's scratch timelines keep only the packet rows the report reads
/// (`ImportOptions.referencedPacketRowsOnly`, set by `report` alone, never by `import`).
///
/// What `report` reads of the `packet` table is the timestamp of a few rows: each connection's
/// first, completing and last packet (`CaptureFactsLoader.loadConnections`) and the capture's last
/// record (`Analyzer`'s capture end). Those rows are held while the capture is written and
/// stored, whole, at `finish`; every other row is never written. Everything else the writer
/// stores (connections, ATT PDUs, errors, …) is unchanged, so the analysis reads the same rows.
/// Findings, which read more packets, are not computed on such a timeline (`Analyzer.analyze`
/// with `findings: false`).
struct ReferencedPacketRows {
    struct Held {
        var record: CaptureRecord
        var packet: DecodedPacket
        var connectionID: Int64?
    }

    /// Packets a new connection row names (`first_packet_id`, `complete_packet_id`), by frame.
    var namedByConnection: [Int: Held] = [:]
    /// The latest packet of each connection (`last_packet_id`).
    var lastOfConnection: [Int64: Held] = [:]
    /// The capture's last record.
    var last: Held?
}

extension TimelineWriter {
    /// Holds the row of a packet the report may read, instead of writing it.
    func holdPacketRow(_ record: CaptureRecord, _ packet: DecodedPacket, connectionID: Int64?, namedByNewConnection: Bool) {
        let held = ReferencedPacketRows.Held(record: record, packet: packet, connectionID: connectionID)
        if namedByNewConnection { referencedRows.namedByConnection[record.frameNumber] = held }
        if let connectionID { referencedRows.lastOfConnection[connectionID] = held }
        referencedRows.last = held
    }

    /// Writes the held rows, each frame once, as `write` writes a packet row (raw bytes never kept).
    func writeReferencedPacketRows() throws(SQLiteError) {
        var rows = referencedRows.namedByConnection
        for held in referencedRows.lastOfConnection.values { rows[held.record.frameNumber] = held }
        if let last = referencedRows.last { rows[last.record.frameNumber] = last }
        for (_, held) in rows.sorted(by: { $0.key < $1.key }) {
            bindPacketColumns(held.record, held.packet, connectionID: held.connectionID)
            try insertPacket.run(borrowing: held.packet.summary, at: 7, nil, at: 13)
        }
        referencedRows = ReferencedPacketRows()
    }
}
