import BLETimeline

/// Opens a CAPTURE or timeline DB as replayable sessions.
///
/// `TimelineSource` does the opening: a timeline file in place, a capture imported into a
/// private temporary timeline (unique per load, so replays can run in parallel) that is removed
/// when the source is released.
public enum ReplaySource {
    public struct Loaded: Sendable {
        public var sessions: [RecordedSession]
        /// Import warnings and errors (a damaged capture still loads what precedes the damage).
        public var messages: [String]
        public var damaged: Bool
    }

    public static func load(path: String) throws(RecordingLoader.Failure) -> Loaded {
        let source: TimelineSource
        do {
            source = try TimelineSource(path: path)
        } catch {
            throw RecordingLoader.Failure(message: error.description)
        }
        var messages: [String] = []
        for r in source.importResults {
            messages += r.warnings.map { "warning: \($0)" }
            if let e = r.error { messages.append("error: \(e)") }
        }
        do {
            let air = try airCaptures(source.store, path: path)
            messages += air.notes
            // Long ATT PDUs stay in the timeline, read back when needed (issue 17): the timeline
            // (a capture's scratch one too) then stays open for as long as the sessions are used.
            let pdus = PDUSource()
            var sessions = try RecordingLoader.load(source.store, pduSource: pdus, skipping: air.ids)
            for i in sessions.indices {
                sessions[i].gaps = try CaptureGap.load(sessions[i], store: source.store)
            }
            let damaged = source.inputWasDamaged
            pdus.keep(source)
            return Loaded(sessions: sessions, messages: messages, damaged: damaged)
        } catch let failure as RecordingLoader.Failure {
            throw failure
        } catch {
            throw RecordingLoader.Failure(message: "\(path): \(error)")
        }
    }

    /// Air captures (pcap LINKTYPE 251, 256, 272) decode into the timeline, but replay needs a
    /// host's view of the link: who asked, what its controller reported, and when. A timeline of
    /// air captures only is refused; beside HCI captures they are left out, each with a note.
    static func airCaptures(_ store: TimelineStore, path: String) throws -> (ids: Set<Int64>, notes: [String]) {
        let air = try store.database.rows("""
            SELECT id, file_name, link_type FROM capture WHERE format IN ('pcap', 'pcapng') AND link_type IN (251, 256, 272) ORDER BY id
            """)
        guard let first = air.first else { return ([], []) }
        func why(_ row: [SQLiteValue]) -> String {
            "\(row[1].string ?? "") is a Bluetooth LE link-layer (air) capture from a sniffer (LINKTYPE \(row[2].int ?? 0)); replay needs an HCI capture taken on the central's host (btsnoop, PacketLogger, pcap 187/201/254)"
        }
        let captures = try store.database.scalarInt("SELECT count(*) FROM capture") ?? 0
        guard captures > air.count else {
            throw RecordingLoader.Failure(message: "\(path): \(why(first)). Use timeline, diagnose or report for air captures.")
        }
        return (Set(air.compactMap { $0[0].int64 }), air.map { "note: \(path): not replayed: \(why($0))" })
    }
}
