import BLECore
import BLECapture

/// A btsnoop file another program is still writing (`--follow`): Android's HCI snoop log
/// pulled from a device, `btmon -w`.
///
/// Reads the file to its end, then polls for appends every `pollIntervalMilliseconds`
/// (wall-clock polling is fine here: this is recording, not replay). A record cut short at
/// the end stays buffered until the writer appends the rest. Rotation: when the path is
/// replaced (Android renames the log to `FILE.last` and starts a new `FILE`), the old file is
/// read to its end through the descriptor still open on it, then the new file is followed
/// from its header; a file truncated in place is read again from its start.
public final class FollowSource: LiveSource {
    public let name: String
    public let pollIntervalMilliseconds: Int
    private var collected: [String] = []
    /// Notes: nothing was lost (a file labelled 1001 read as H4).
    public private(set) var notes: [String] = []
    /// Files followed so far (1 + rotations seen).
    public private(set) var generation = 1

    private var fileDescriptor: Int32?
    private var identity: FileIdentity
    private var position = 0
    private var decoder: LiveStreamDecoder
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var lastFormat: LiveStreamFormat?
    /// The last bytes read before `position`: a writer only appends, so when they differ the
    /// file was rewritten in place (truncated and written again, perhaps already longer).
    private var tail: [UInt8] = []
    static let tailLength = 32
    /// `FILE.last` when last looked at: a different file there after a rotation that is not the
    /// file followed means the log was rotated twice between two polls.
    private var backupIdentity: FileIdentity?
    /// Reading a `FILE.last` that was never followed; the path's file comes next.
    private var readingMissed = false

    /// Opens `path`; it must exist (a typo would otherwise wait forever) and be a regular file:
    /// opening a FIFO waited forever for a writer, even with `--until-idle`, and a FIFO has no
    /// end to follow nor a rotation to notice (`--stdin < FIFO` reads it).
    public init(path: String, pollIntervalMilliseconds: Int = 100) throws(LiveError) {
        name = path
        self.pollIntervalMilliseconds = pollIntervalMilliseconds
        if let kind = FileKind.nonRegular(path) {
            throw LiveError(source: path, kind: .unavailable, message:
                "\(kind), not a file another program appends to: record it with --stdin < \(path)")
        }
        let fd: Int32
        do {
            fd = try Syscall.openForReading(path)
        } catch {
            throw LiveError(source: path, kind: .unavailable, message: "cannot open: \(error)")
        }
        guard let id = Syscall.identity(fd) else {
            try? Syscall.closeDescriptor(fd)
            throw LiveError(source: path, kind: .io, message: "cannot stat the file")
        }
        fileDescriptor = fd
        identity = id
        backupIdentity = Syscall.identity(path + ".last")
        decoder = LiveStreamDecoder(source: path)
    }

    deinit {
        if let fileDescriptor { try? Syscall.closeDescriptor(fileDescriptor) }
    }

    /// The current file's format; after a rotation, the previous file's until the new header arrives.
    public var format: LiveStreamFormat? { decoder.format ?? lastFormat }

    /// Recoverable oddities so far, and a record still incomplete when the recording stops.
    public var warnings: [String] { decoder.warnings(collected, source: name) }

    public func next(timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent {
        if let record = try decodeNext() { return .record(record) }
        if rewrittenInPlace() { return try truncatedInPlace(rewritten: true) }
        while try readChunk() > 0 {
            if let record = try decodeNext() { return .record(record) }
        }
        // Records held for a verdict on the datalink are judged on what the file holds so far.
        decoder.inputPaused()
        if let record = try decodeNext() { return .record(record) }
        // At the end of the file we hold: has it been replaced or truncated?
        let current = Syscall.identity(name)
        if fileDescriptor == nil || current.map({ !$0.isSameFile(as: identity) }) ?? true {
            return try rotated(to: current, timeoutMilliseconds: timeoutMilliseconds)
        }
        if let current, current.size < position {
            return try truncatedInPlace()
        }
        Syscall.sleep(milliseconds: min(pollIntervalMilliseconds, max(timeoutMilliseconds, 1)))
        return .idle
    }

    private func decodeNext() throws(LiveError) -> LiveRecord? {
        let record = try decoder.next(arrival: Syscall.wallClockMicroseconds())
        if let format = decoder.format { lastFormat = format }
        collected += decoder.takeRemarks()
        notes += decoder.takeNotes()
        return record
    }

    /// Reads what the current file has beyond `position`; 0 at its end (or when none is open).
    private func readChunk() throws(LiveError) -> Int {
        guard let fd = fileDescriptor else { return 0 }
        do {
            let n = try Syscall.readBytes(fd, into: &buffer)
            if n > 0 {
                buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                position += n
                if n >= Self.tailLength {
                    tail = Array(buffer[(n - Self.tailLength)..<n])
                } else {
                    tail = Array((tail + buffer[0..<n]).suffix(Self.tailLength))
                }
            }
            return n
        } catch {
            throw LiveError(source: name, offset: position, kind: .io, message: "read failed: \(error)")
        }
    }

    /// The path names another file now (or none): finish the old one, then follow the new one.
    private func rotated(to current: FileIdentity?, timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent {
        if let old = fileDescriptor {
            // Anything the writer appended between our last read and the rename.
            while try readChunk() > 0 {}
            decoder.inputPaused(ended: true)
            if let record = try decodeNext() { return .record(record) }
            if let warning = decoder.unfinishedRecordWarning(source: name, event: "the file was rotated") {
                collected.append(warning)
            }
            try? Syscall.closeDescriptor(old)
            fileDescriptor = nil
            decoder = LiveStreamDecoder(source: name)
            let followed = identity
            let wasMissed = readingMissed
            readingMissed = false
            // Rotated twice between two polls: FILE.last is neither the file just read nor the
            // one that was there before, so it is a log never followed; read it first.
            let backup = name + ".last"
            if !wasMissed, let last = Syscall.identity(backup), !last.isSameFile(as: followed),
               // (a size that changed too: the inode of an unlinked FILE.last is soon reused)
               backupIdentity.map({ !last.isSameFile(as: $0) || last.size != $0.size }) ?? true,
               current.map({ !last.isSameFile(as: $0) }) ?? true,
               let fd = try? Syscall.openForReading(backup), let id = Syscall.identity(fd), id.isSameFile(as: last) {
                backupIdentity = id
                fileDescriptor = fd
                identity = id
                position = 0
                tail = []
                readingMissed = true
                generation += 1
                return .notice("\(name) was rotated twice between two polls: recording the log in between from \(backup) first")
            }
            backupIdentity = Syscall.identity(backup)
        }
        guard current != nil, let fd = try? Syscall.openForReading(name), let id = Syscall.identity(fd) else {
            // Renamed away and not yet created again: wait for the new file.
            Syscall.sleep(milliseconds: min(pollIntervalMilliseconds, max(timeoutMilliseconds, 1)))
            return .idle
        }
        fileDescriptor = fd
        identity = id
        position = 0
        tail = []
        decoder = LiveStreamDecoder(source: name)
        generation += 1
        let kept = Syscall.identity(name + ".last") != nil ? " (the previous log is now \(name).last)" : ""
        return .notice("\(name) was replaced\(kept): following the new file")
    }

    /// The bytes before `position` are no longer those read (a file truncated and written
    /// again between two polls, already as long as before).
    private func rewrittenInPlace() -> Bool {
        guard let fd = fileDescriptor, !tail.isEmpty else { return false }
        guard let now = Syscall.readAt(fd, offset: position - tail.count, count: tail.count), now.count == tail.count
        else { return false }  // shorter: the size check says truncated
        return now != tail
    }

    /// The file shrank under us (truncated in place), or was rewritten: read it again from the start.
    private func truncatedInPlace(rewritten: Bool = false) throws(LiveError) -> SourceEvent {
        if let warning = decoder.unfinishedRecordWarning(source: name, event: "the file was truncated") {
            collected.append(warning)
        }
        if let fd = fileDescriptor {
            do {
                try Syscall.seek(fd, to: 0)
            } catch {
                throw LiveError(source: name, kind: .io, message: "cannot rewind after truncation: \(error)")
            }
        }
        position = 0
        tail = []
        decoder = LiveStreamDecoder(source: name)
        generation += 1
        return .notice("\(name) was \(rewritten ? "rewritten in place" : "truncated"): following it from its start")
    }
}
