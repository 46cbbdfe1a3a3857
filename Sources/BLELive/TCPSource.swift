import BLECore
import BLECapture

/// A btsnoop or raw H4 stream over TCP (`--tcp HOST:PORT`): Android's btsnoop_net server
/// (a btsnoop file header, then records) or H4 from an emulated controller.
///
/// Every connection is a new stream (btsnoop_net sends its header again). When the stream
/// drops, the source reconnects with exponential backoff (`initialBackoffMilliseconds`,
/// doubling, at most 8 s) up to `retries` attempts in a row; an attempt that delivers data
/// resets the count. Giving up after data was recorded ends the source normally; never
/// connecting at all is an error. A connection that starts the stream over, repeating records
/// an earlier connection delivered, brings nothing new (`RepeatedPrefixFilter`): the repeats
/// are not delivered again and the connection does not reset the count.
public final class TCPSource: LiveSource {
    public let host: String
    public let port: UInt16
    public let retries: Int
    public let initialBackoffMilliseconds: Int
    public var name: String { "tcp:\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    /// Warnings: something is missing from the recording.
    private var collected: [String] = []
    /// Notes: nothing was lost (the server started over; it had nothing new and the source ended).
    private var remarks: [String] = []
    /// Where the last connection dropped in the middle of a record (stream offset, bytes held):
    /// a server that sends the same cut stream again cuts the same record, said once.
    private var lastCut: (offset: Int, pending: Int)?
    /// Records a dropped connection cut in the middle, not yet delivered whole by a later one:
    /// the stream index of the record, the bytes that came of it, and its warning (in `collected`).
    private var pendingCuts: [(index: Int, bytes: [UInt8], connection: Int, offset: Int, warning: String)] = []
    /// Connections made so far (the first one included).
    public private(set) var connections = 0

    private enum State {
        case connected(Int32)
        /// Waiting until the monotonic deadline before connection attempt `attempt` (1-based).
        case waiting(until: Int64, attempt: Int)
    }

    private var state: State
    private var decoder: LiveStreamDecoder
    private var lastFormat: LiveStreamFormat?
    private var receivedOnConnection = 0
    private var recordsOnConnection = 0
    /// The attempt that made the current connection (0 for the first connection).
    private var connectionAttempt = 0
    /// A record has arrived on some connection.
    private var everReceived = false
    private var arrival: Int64 = 0
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var repeats = RepeatedPrefixFilter()
    /// Records the filter released together, delivered one per `next` call.
    private var outbox: [LiveRecord] = []
    private var outboxIndex = 0

    public init(host: String, port: UInt16, retries: Int = 5, initialBackoffMilliseconds: Int = 250) {
        self.host = host
        self.port = port
        self.retries = max(0, retries)
        self.initialBackoffMilliseconds = max(1, initialBackoffMilliseconds)
        state = .waiting(until: 0, attempt: 0)
        decoder = LiveStreamDecoder(source: "tcp:\(host):\(port)")
    }

    /// Splits `HOST:PORT` (or `[IPv6]:PORT`); nil when it is not of that form.
    public static func parseEndpoint(_ text: String) -> (host: String, port: UInt16)? {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText), port > 0 else { return nil }
        return (String(host), port)
    }

    deinit {
        if case .connected(let fd) = state { try? Syscall.closeDescriptor(fd) }
    }

    public var format: LiveStreamFormat? { decoder.format ?? lastFormat }

    /// What is missing from the recording: a record cut by a dropped connection, the source
    /// giving up on a server that went away, a record still incomplete when the recording stops.
    public var warnings: [String] { decoder.warnings(collected, source: name) }

    /// What happened without anything being lost: records a reconnection repeated (the stream
    /// started over) and were not stored again, and the end of a server that only repeats.
    public var notes: [String] {
        var notes: [String] = []
        if repeats.repeatsDropped > 0 {
            let n = repeats.repeatsDropped, c = repeats.repeatingConnections
            notes.append("\(name): \(n) record\(n == 1 ? "" : "s") repeated what an earlier connection had delivered (the stream "
                         + "started over) and \(n == 1 ? "was" : "were") not recorded again; \(c) connection\(c == 1 ? "" : "s") "
                         + "brought nothing new; nothing was lost")
        }
        return notes + remarks
    }

    public func next(timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent {
        if let record = try decodeNext() { return .record(record) }
        switch state {
        case .waiting(let until, let attempt):
            let now = Syscall.monotonicMilliseconds()
            if now < until {
                Syscall.sleep(milliseconds: Int(min(Int64(timeoutMilliseconds), until - now)))
                return .idle
            }
            return try connect(attempt: attempt)
        case .connected(let fd):
            let n: Int
            do {
                guard try Syscall.waitReadable(fd, timeoutMilliseconds: timeoutMilliseconds) else {
                    decoder.inputPaused()
                    return try decodeNext().map { .record($0) } ?? .idle
                }
                n = try Syscall.readBytes(fd, into: &buffer)
            } catch {
                decoder.inputPaused(ended: true)
                if let record = try decodeNext() { return .record(record) }
                return try dropped(fd, why: "\(error)")
            }
            if n == 0 {
                // Records held for a verdict on the datalink come out before the connection ends.
                decoder.inputPaused(ended: true)
                if let record = try decodeNext() { return .record(record) }
                return try dropped(fd, why: "closed by the peer")
            }
            arrival = Syscall.wallClockMicroseconds()
            receivedOnConnection += n
            buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            if let record = try decodeNext() { return .record(record) }
            return .idle
        }
    }

    private func decodeNext() throws(LiveError) -> LiveRecord? {
        if outboxIndex < outbox.count {
            defer { outboxIndex += 1 }
            return outbox[outboxIndex]
        }
        while true {
            let record = try decoder.next(arrival: arrival)
            if let format = decoder.format { lastFormat = format }
            collected += decoder.takeRemarks()
            remarks += decoder.takeNotes()
            guard let record else { return nil }
            var sourceTimestamps = false
            if case .btsnoop = decoder.format { sourceTimestamps = true }
            let released = repeats.offer(record, sourceTimestamps: sourceTimestamps)
            if sourceTimestamps && repeats.lastOfferContinuedReference {
                recovered(record, index: repeats.offeredOnConnection - 1)
            }
            guard let first = released.first else { continue }
            recordsOnConnection += released.count
            everReceived = true
            outbox = Array(released.dropFirst())
            outboxIndex = 0
            return first
        }
    }

    private func connect(attempt: Int) throws(LiveError) -> SourceEvent {
        do {
            let fd = try LiveSocket.connectTCP(host: host, port: port, timeoutMilliseconds: 5000)
            state = .connected(fd)
            connections += 1
            receivedOnConnection = 0
            recordsOnConnection = 0
            connectionAttempt = attempt
            decoder = LiveStreamDecoder(source: name)
            repeats.connectionStarted()
            return .notice(connections == 1 ? "connected to \(host) port \(port)"
                                             : "reconnected to \(host) port \(port) (attempt \(attempt))")
        } catch {
            return try scheduleRetry(after: attempt, why: "cannot connect: \(error.message)")
        }
    }

    private func dropped(_ fd: Int32, why: String) throws(LiveError) -> SourceEvent {
        try? Syscall.closeDescriptor(fd)
        // The stream index of the record cut, and whether an earlier connection, whose records this
        // one repeated with the same timestamps, already delivered it whole (nothing lost).
        let cutIndex = repeats.offeredOnConnection
        var sourceTimestamps = false
        if case .btsnoop = decoder.format { sourceTimestamps = true }
        let cutWasDelivered = sourceTimestamps && repeats.referenceHolds(index: cutIndex)
        let repeated = repeats.connectionEnded()
        let onlyRepeats = repeated > 0 && recordsOnConnection == 0
        if decoder.pendingBytes > 0 && !cutWasDelivered {
            let cut = (offset: decoder.offset, pending: decoder.pendingBytes)
            // The same cut after the same repeated records is the record already said to be cut.
            if !(onlyRepeats && lastCut.map { $0 == cut } == true) {
                let warning = "\(name): byte \(decoder.offset) of connection \(connections): the stream dropped in the "
                    + "middle of a record (\(decoder.pendingBytes) bytes kept out of the recording)"
                collected.append(warning)
                if sourceTimestamps {
                    pendingCuts.append((index: cutIndex, bytes: decoder.pending, connection: connections,
                                        offset: decoder.offset, warning: warning))
                }
            }
            lastCut = cut
        }
        decoder = LiveStreamDecoder(source: name)
        let note = onlyRepeats ? " (its \(repeated) records repeat an earlier connection's: nothing new)" : ""
        // A connection that delivered no new record does not reset the count (a peer that accepts
        // and closes, sends the btsnoop header and closes, or sends the same records again).
        return try scheduleRetry(after: recordsOnConnection > 0 ? 0 : max(connectionAttempt, 1),
                                 why: "connection \(connections) \(why) after \(receivedOnConnection) bytes\(note)",
                                 onlyRepeats: onlyRepeats)
    }

    /// A later connection went on past the records it repeated with `live`, at stream `index`:
    /// when an earlier connection was cut at that index, after the same records (same btsnoop
    /// timestamps), in a record whose bytes begin `live`'s encoding, that record has now arrived
    /// whole: nothing is missing, and its warning becomes a note.
    private func recovered(_ live: LiveRecord, index: Int) {
        guard pendingCuts.contains(where: { $0.index == index }), let original = live.original?.packet else { return }
        var encoded: [UInt8] = []
        original.append(to: &encoded)
        let found = pendingCuts.filter { $0.index == index && encoded.starts(with: $0.bytes) }
        guard !found.isEmpty else { return }
        pendingCuts.removeAll { cut in found.contains { $0.warning == cut.warning } }
        for cut in found {
            if let at = collected.firstIndex(of: cut.warning) { collected.remove(at: at) }
            remarks.append("\(name): the record connection \(cut.connection) cut at byte \(cut.offset) arrived whole "
                           + "on connection \(connections), after the same records: nothing was lost")
        }
    }

    /// Waits before the next attempt, or gives up after `retries` failed attempts in a row.
    /// `onlyRepeats`: the connection that just ended sent again what was recorded, nothing new;
    /// giving up then loses nothing (a note), while giving up on a server that went away may
    /// (a warning).
    private func scheduleRetry(after attempt: Int, why: String, onlyRepeats: Bool = false) throws(LiveError) -> SourceEvent {
        let next = attempt + 1
        guard next <= retries else {
            state = .waiting(until: Int64.max, attempt: next)
            if everReceived {
                let attempts = "\(retries) reconnection attempt\(retries == 1 ? "" : "s")"
                if onlyRepeats {
                    remarks.append("\(name): \(why); the server sends nothing new (it starts the same stream over): "
                                   + "stopped after \(attempts), with every record it sent recorded once")
                } else {
                    collected.append("\(name): \(why); gave up after \(attempts)")
                }
                return .end
            }
            let attempts = retries + 1
            throw LiveError(source: name, kind: .unavailable,
                            message: "\(why); gave up after \(attempts) attempt\(attempts == 1 ? "" : "s")")
        }
        let delay = min(initialBackoffMilliseconds << min(attempt, 16), 8000)
        state = .waiting(until: Syscall.monotonicMilliseconds() + Int64(delay), attempt: next)
        let seconds = String(format3: Double(delay) / 1000)
        return .notice("\(why); reconnecting in \(seconds) s (attempt \(next) of \(retries))")
    }
}

extension String {
    /// A number with up to three decimals, without trailing zeros (`0.25`, `2`).
    init(format3 value: Double) {
        let millis = Int((value * 1000).rounded())
        var text = "\(millis / 1000)"
        let fraction = millis % 1000
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        self = text
    }
}
