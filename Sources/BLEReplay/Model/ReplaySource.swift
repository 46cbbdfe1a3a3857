#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLETimeline

/// Opens a CAPTURE or timeline DB as replayable sessions.
///
/// A capture is imported into a timeline in a fresh private directory (`mkdtemp`), so several
/// replays can load captures at the same time in one process (tests run in parallel), and the
/// directory is removed afterwards.
public enum ReplaySource {
    public struct Loaded: Sendable {
        public var sessions: [RecordedSession]
        /// Import warnings and errors (a damaged capture still loads what precedes the damage).
        public var messages: [String]
        public var damaged: Bool
    }

    public static func load(path: String) throws(RecordingLoader.Failure) -> Loaded {
        guard access(path, R_OK) == 0 else {
            throw RecordingLoader.Failure(message: "\(path): \(String(cString: strerror(errno)))")
        }
        if TimelineSource.isTimelineFile(path) {
            do {
                return Loaded(sessions: try RecordingLoader.load(TimelineStore(path: path)), messages: [], damaged: false)
            } catch {
                throw RecordingLoader.Failure(message: "\(path): \(error)")
            }
        }
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/blereplay-replay-XXXXXX".utf8CString)
        guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw RecordingLoader.Failure(message: "cannot make a temporary directory in \(base)")
        }
        let dir = String(cString: dirPointer)
        let db = dir + "/timeline.db"
        defer {
            unlink(db)
            rmdir(dir)
        }
        let results: [CaptureImportResult]
        do {
            results = try Importer.importCaptures([path], into: db)
        } catch {
            throw RecordingLoader.Failure(message: error.description)
        }
        var messages: [String] = []
        for r in results {
            messages += r.warnings.map { "warning: \($0)" }
            if let e = r.error { messages.append("error: \(e)") }
        }
        if let failed = results.first(where: { $0.status == .failed }) {
            throw RecordingLoader.Failure(message: failed.error ?? "\(path): cannot be read")
        }
        do {
            let store = try TimelineStore(path: db)
            return Loaded(sessions: try RecordingLoader.load(store), messages: messages,
                          damaged: results.contains { $0.status == .partial })
        } catch {
            throw RecordingLoader.Failure(message: "\(path): \(error)")
        }
    }
}
