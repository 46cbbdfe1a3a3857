import Dispatch
import Synchronization
import BLECore
import BLECapture
import BLEDecode

/// Reads and decodes a capture on a second thread while the caller writes SQLite rows:
/// the two halves of an import take about as long as each other, and the machine has two cores.
///
/// Batches travel through a bounded channel, so memory stays flat however large the capture.
final class DecodePipeline: Sendable {
    /// One record and what the decoder made of it.
    ///
    /// A struct, not a tuple: an array of tuples was destroyed through the tuple's generic
    /// metadata, field by field (`tuple_destroy`, a tenth of the decoding thread's instructions
    /// in callgrind); a struct's destroy is compiled for it.
    struct Decoded: Sendable {
        var record: CaptureRecord
        var packet: DecodedPacket
    }

    /// A run of decoded records, with how far into the file the reader got.
    struct Batch: Sendable {
        var packets: [Decoded]
        var bytesRead: Int
    }

    /// How the reading ended.
    struct End: Sendable {
        var warnings: [CaptureWarning] = []
        /// How the file was read, when the user should know (`CaptureReader.notes`): not damage.
        var notes: [CaptureWarning] = []
        /// Records whose timestamp is absurd (`TimestampAudit`): warned about, not damage.
        var timestampWarnings: [CaptureWarning] = []
        /// Damage in the middle of the file (records before it were delivered).
        var stopError: CaptureError?
        /// The file could not be opened at all.
        var openError: CaptureError?
    }

    enum Message: Sendable {
        case batch(Batch)
        /// Partial reassemblies and connections still open at the end of the capture
        /// (`PacketDecoder.finish`), a chunk at a time, after the last batch.
        case finishProblems([DecodeError])
        case end(End)
    }

    /// A batch ends at `batchSize` records or `batchBytes` bytes of record payload, whichever
    /// comes first: counted in records alone, 2,048 records of 64 KiB made 128 MiB per batch and
    /// the channel's slots a gigabyte. Bounded in bytes, what is in flight stays a few MiB.
    static let batchSize = 2048
    static let batchBytes = 1 << 20
    private let channel = BoundedChannel<Message>(capacity: 8)
    private let cancelled = Flag()
    /// Batches the writer is done with. The reading thread lets go of them, so the thousands of
    /// small deallocations a batch carries are not paid on the writer's thread, the slower one.
    private let spent = SpentBatches()

    /// Starts reading `input` on a background thread; `summaries` false decodes no summary
    /// (`DecoderOptions.summaries`).
    init(input: CaptureInput, keepKeys: Bool, summaries: Bool = true) {
        let channel = self.channel
        let cancelled = self.cancelled
        let spent = self.spent
        DispatchQueue.global(qos: .userInitiated).async {
            // The reader (and what it holds: a gzip capture's scratch file) is let go of before
            // `.end` is sent: the receiver may finish, and the process exit, as soon as it arrives.
            let end = Self.read(input, keepKeys: keepKeys, summaries: summaries, channel: channel,
                                cancelled: cancelled, spent: spent)
            channel.send(.end(end))
        }
    }

    /// Reads and decodes `input` into batches sent on `channel`; the end of the capture, to send
    /// once the reader is gone.
    private static func read(_ input: CaptureInput, keepKeys: Bool, summaries: Bool, channel: BoundedChannel<Message>,
                             cancelled: Flag, spent: SpentBatches) -> End {
        var end = End()
        var reader: any CaptureReader
        do throws(CaptureError) {
            reader = try input.open()
        } catch {
            end.openError = error
            return end
        }
        var options = DecoderOptions.forCapture(reader.info, keepKeys: keepKeys)
        options.summaries = summaries
        var decoder = PacketDecoder(options: options)
        var audit = TimestampAudit()
        var batch: [Decoded] = []
        var batchBytes = 0
        batch.reserveCapacity(Self.batchSize)
        while true {
            let record: CaptureRecord?
            do throws(CaptureError) {
                record = try reader.next()
            } catch {
                end.stopError = error
                break
            }
            guard let record else { break }
            audit.check(record)
            batchBytes += record.payload.count
            let packet = decoder.decode(record)
            batch.append(Decoded(record: record, packet: packet))
            if batch.count == Self.batchSize || batchBytes >= Self.batchBytes {
                if cancelled.isSet { break }
                channel.send(.batch(Batch(packets: batch, bytesRead: reader.bytesRead)))
                batchBytes = 0
                // The next batch fills an array the writer is done with, emptied here, or a new one.
                batch = spent.release() ?? []
                batch.reserveCapacity(Self.batchSize)
            }
        }
        if !batch.isEmpty { channel.send(.batch(Batch(packets: batch, bytesRead: reader.bytesRead))) }
        end.warnings = reader.warnings
        end.notes = reader.notes
        end.timestampWarnings = audit.warnings
        decoder.finish { channel.send(.finishProblems($0)) }
        return end
    }

    /// The next message; `.end` comes last, exactly once.
    func next() -> Message { channel.receive() }

    /// Hands a written batch back to the reading thread, which frees it.
    func recycle(_ batch: Batch) {
        spent.list.withLock { $0.append(batch) }
    }

    /// Lets go of the batches written after the reader's last release on a background thread:
    /// the writer still has the indexes and the analysis ahead of it.
    func releaseSpentBatchesAside() {
        let spent = self.spent
        DispatchQueue.global(qos: .utility).async { spent.release() }
    }

    final class SpentBatches: Sendable {
        let list = Mutex<[Batch]>([])
        /// Lets go of every spent batch's records: the deallocations happen here, outside the
        /// lock. Returns one of the emptied arrays, its capacity kept, for the next batch (the
        /// others are freed): a new array per batch was a 2,048-element allocation each time.
        @discardableResult
        func release() -> [Decoded]? {
            var released: [Batch] = []
            list.withLock { swap(&released, &$0) }
            guard var reused = released.popLast()?.packets else { return nil }
            released.removeAll()
            reused.removeAll(keepingCapacity: true)
            return reused
        }
    }

    /// Stops the reader early (the writer failed) and waits for it to finish.
    func cancel() {
        cancelled.set()
        while true {
            if case .end = channel.receive() { return }
        }
    }
}

/// A capture's SHA-256 and size (`CaptureInput.contentDigest`), computed on another thread (or at once) and
/// waited for when needed.
final class DigestFuture: Sendable {
    private let box = ResultBox()
    private let done = DispatchGroup()

    init(input: CaptureInput, now: Bool) {
        done.enter()
        let box = self.box
        let group = done
        let work: @Sendable () -> Void = {
            box.set(input.contentDigest())
            group.leave()
        }
        if now { work() } else { DispatchQueue.global(qos: .utility).async(execute: work) }
    }

    /// The hex digest, nil when the file could not be read.
    var value: String? { digest?.hex }

    /// The digest and the size of the capture's own bytes (`CaptureInput.contentDigest`).
    var digest: (hex: String, size: Int64)? {
        done.wait()
        return box.get()
    }

    private final class ResultBox: Sendable {
        private let state = Mutex<(hex: String, size: Int64)?>(nil)
        func set(_ v: (hex: String, size: Int64)?) { state.withLock { $0 = v } }
        func get() -> (hex: String, size: Int64)? { state.withLock { $0 } }
    }
}
