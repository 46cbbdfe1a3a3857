import BLECore
import BLEDecode

/// The fleet report's scratch timelines keep only the packet rows the report reads
/// (`ImportOptions.referencedPacketRowsOnly`, set by `report` alone, never by `import`).
///
/// What `report` reads of the `packet` table is the timestamp of a few rows: each connection's
/// first, completing and last packet (`CaptureFactsLoader.loadConnections`) and the capture's last
/// record (`Analyzer`'s capture end). A row a new connection names is written at once (it never
/// changes); the latest of each connection and of the capture are held while the capture is
/// written and stored at `finish`; every other row is never written. Everything else the writer
/// stores (connections, ATT PDUs, errors, …) is unchanged, so the analysis reads the same rows.
/// Findings, which read more packets, are not computed on such a timeline (`Analyzer.analyze`
/// with `findings: false`).
struct ReferencedPacketRows {
    /// The columns of a held packet row, and nothing else: not the record's bytes nor the
    /// decoded events, which a held row of each of tens of thousands of links would otherwise
    /// keep (issue 17: memory under 100 MB whatever the input).
    struct Held {
        var columns: PacketRowColumns
        var summary: String
        var connectionID: Int64?
        /// Already stored: a new connection named it.
        var written = false

        init(_ record: CaptureRecord, _ packet: DecodedPacket, connectionID: Int64?) {
            columns = PacketRowColumns(record, packet)
            summary = packet.summary
            self.connectionID = connectionID
        }
    }

    /// The latest packet of each connection (`last_packet_id`): `latest[slot[id]]`. The rows sit
    /// in an array and the map holds only their places, so a capture of tens of thousands of open
    /// links keeps about 80 bytes a link, not a map bucket of a whole row.
    var slot: [Int64: Int32] = [:]
    var latest: [Held] = []
    /// The capture's last record.
    var last: Held?
}

extension TimelineWriter {
    /// Writes the row of a packet a new connection names (`first_packet_id`,
    /// `complete_packet_id`); holds that of a packet the report may read as the latest of its
    /// connection or of the capture, instead of writing it.
    func holdPacketRow(_ record: CaptureRecord, _ packet: DecodedPacket, connectionID: Int64?,
                       namedByNewConnection: Bool) throws(SQLiteError) {
        var held = ReferencedPacketRows.Held(record, packet, connectionID: connectionID)
        if namedByNewConnection {
            try writeHeld(held)
            held.written = true
        }
        if let connectionID {
            if let i = referencedRows.slot[connectionID] {
                referencedRows.latest[Int(i)] = held
            } else {
                referencedRows.slot[connectionID] = Int32(referencedRows.latest.count)
                referencedRows.latest.append(held)
            }
        }
        referencedRows.last = held
    }

    /// Writes the held rows not yet written, each frame once, in frame order, as `write` writes a
    /// packet row (raw bytes never kept).
    func writeReferencedPacketRows() throws(SQLiteError) {
        var rows = referencedRows.latest.filter { !$0.written }
        if let last = referencedRows.last, !last.written { rows.append(last) }
        referencedRows = ReferencedPacketRows()
        rows.sort { $0.columns.frame < $1.columns.frame }
        var written: Int?
        for held in rows where held.columns.frame != written {
            written = held.columns.frame
            try writeHeld(held)
        }
    }

    private func writeHeld(_ held: ReferencedPacketRows.Held) throws(SQLiteError) {
        bindPacketColumns(held.columns, connectionID: held.connectionID)
        try insertPacket.run(borrowing: held.summary, at: 7, nil, at: 13)
    }
}
