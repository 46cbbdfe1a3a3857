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
                let store = try TimelineStore(path: path)
                try refuseAirCaptures(store, path: path)
                return Loaded(sessions: try RecordingLoader.load(store), messages: [], damaged: false)
            } catch let failure as RecordingLoader.Failure {
                throw failure
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
            try refuseAirCaptures(store, path: path)
            return Loaded(sessions: try RecordingLoader.load(store), messages: messages,
                          damaged: results.contains { $0.status == .partial })
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
