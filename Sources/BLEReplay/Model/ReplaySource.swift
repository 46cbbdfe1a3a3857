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
}
