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
            try refuseAirCaptures(source.store, path: path)
            // Long ATT PDUs stay in the timeline, read back when needed (issue 17): the timeline
            // (a capture's scratch one too) then stays open for as long as the sessions are used.
            let pdus = PDUSource()
            var sessions = try RecordingLoader.load(source.store, pduSource: pdus)
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
    /// host's view of the link: who asked, what its controller reported, and when.
    static func refuseAirCaptures(_ store: TimelineStore, path: String) throws {
        let air = try store.database.rows("""
            SELECT file_name, link_type FROM capture WHERE format IN ('pcap', 'pcapng') AND link_type IN (251, 256, 272)
            """)
        guard let first = air.first else { return }
        throw RecordingLoader.Failure(message: "\(path): \(first[0].string ?? "") is a Bluetooth LE link-layer (air) capture from a sniffer (LINKTYPE \(first[1].int ?? 0)); replay needs an HCI capture taken on the central's host (btsnoop, PacketLogger, pcap 187/201/254). Use timeline, diagnose or report for air captures.")
    }
}
