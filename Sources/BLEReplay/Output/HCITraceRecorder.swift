#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECapture
import BLECore

/// The simulated session as HCI records, as a host's snoop log would show it (DESIGN.md
/// "Replay semantics", outputs): commands and ACL the host sends, events and ACL the
/// controller delivers. Frame numbers count from 1 like Wireshark's.
public final class HCITraceRecorder {
    /// Unix microseconds of virtual time zero (keeps the written capture's dates meaningful).
    public let epoch: Int64
    /// Whether records are kept (for `--write-capture`); frame numbers are counted either way.
    public let keepsRecords: Bool
    /// The btsnoop datalink written: 1002 (H4) for one controller; 2001 (Linux monitor, each
    /// record with its controller index in the flags, as `btmon -w` writes) when the recording's
    /// links were on several controllers, whose handles are numbered apart (two links on handle
    /// 0x0040 at once): in one H4 stream their packets merged into one link.
    public let datalink: UInt32
    public private(set) var frameCount = 0
    /// Records kept in memory while they take less than `memoryLimit` bytes (payload plus
    /// `recordOverhead` each: most are ACL fragments of 27 bytes); past it, every
    /// record goes to a btsnoop file in the temporary directory as it comes (`Spill`), so a
    /// replay of large PDUs does not hold each simulated packet for the whole run (issue 17).
    public static let memoryLimit = 4 << 20
    /// What a kept record costs besides its payload: the record and the payload array's header.
    static let recordOverhead = 128
    private var kept: [CaptureRecord] = []
    private var keptBytes = 0
    private var spill: Spill?
    /// The first failure to write the spill file, reported by `writeBtsnoop`.
    private var spillFailure: CaptureError?

    /// The trace file the records go to once they outgrow memory: unlinked as soon as it is open,
    /// so nothing is left behind however the process ends; read through its descriptor.
    private struct Spill {
        let file: TemporaryFile
        let writer: BtsnoopWriter
    }

    public init(epoch: Int64, keepsRecords: Bool, severalControllers: Bool = false) {
        self.epoch = epoch
        self.keepsRecords = keepsRecords
        datalink = severalControllers ? 2001 : 1002
    }

    /// Every record kept, in order (read back from the spill file once the trace outgrew memory).
    public var records: [CaptureRecord] {
        guard let spill else { return kept }
        do {
            try spill.writer.flush()
            var reader = try CaptureFile.open("/dev/fd/\(spill.file.descriptor)")
            var out: [CaptureRecord] = []
            while let r = try reader.next() { out.append(r) }
            return out
        } catch {
            return []
        }
    }

    /// Appends one record; returns its frame number.
    /// `rawType`: a note's monitor opcode (Close Index 9, Delete Index 1), written as such in a
    /// datalink 2001 trace (`RecordEncoding.monitorPacket`).
    @discardableResult
    public func append(_ payload: @autoclosure () -> [UInt8], kind: PacketKind, direction: Direction,
                       at time: VirtualTime, controller: UInt16 = 0, rawType: UInt16 = 0) -> Int {
        frameCount += 1
        if keepsRecords {
            let p = payload()
            keep(CaptureRecord(frameNumber: frameCount, timestamp: epoch &+ time, direction: direction,
                               kind: kind, payload: p, fileOffset: 0, controllerIndex: controller, rawType: rawType))
        }
        return frameCount
    }

    private func keep(_ record: CaptureRecord) {
        if let spill {
            guard spillFailure == nil else { return }
            do { try spill.writer.write(record) } catch { spillFailure = error }
            return
        }
        kept.append(record)
        keptBytes += record.payload.count + Self.recordOverhead
        guard keptBytes > Self.memoryLimit else { return }
        do {
            let file = try TemporaryFile.inTemporaryDirectory(prefix: "blereplay-trace")
            let writer = try BtsnoopWriter(path: file.path, datalink: datalink)
            unlink(file.path)
            for r in kept { try writer.write(r) }
            spill = Spill(file: file, writer: writer)
            kept = []
            keptBytes = 0
        } catch let error as CaptureError {
            spillFailure = error
        } catch {
            spillFailure = CaptureError(path: TemporaryFile.temporaryDirectory(), kind: .unwritable, message: "\(error)")
        }
    }

    /// Counts `count` records the trace does not keep (`keepsRecords` false); returns the last
    /// one's frame number, as `append` would have.
    @discardableResult
    public func skip(_ count: Int) -> Int {
        frameCount += count
        return frameCount
    }

    public func command(_ payload: @autoclosure () -> [UInt8], at time: VirtualTime, controller: UInt16 = 0) {
        append(payload(), kind: .command, direction: .sent, at: time, controller: controller)
    }

    public func event(_ payload: @autoclosure () -> [UInt8], at time: VirtualTime, controller: UInt16 = 0) {
        append(payload(), kind: .event, direction: .received, at: time, controller: controller)
    }

    /// Writes the records as btsnoop (`datalink`: 1002 H4, or 2001 for several controllers), which tshark and btmon decode,
    /// through a `TemporaryFile` beside `path` renamed into place when complete.
    public func writeBtsnoop(to path: String) throws(CaptureError) {
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(path)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: error.message)
        }
        if let spillFailure { throw CaptureError(path: path, kind: .unwritable, message: "the trace could not be kept: \(spillFailure)") }
        if let spill {
            // The spill file is the trace so far, as a btsnoop file: copied, it stays open for more.
            try spill.writer.flush()
            try Self.copy(spill.file.descriptor, to: temporary, target: path)
        } else {
            let writer = try BtsnoopWriter(path: temporary.path, datalink: datalink)
            for r in kept { try writer.write(r) }
            try writer.close()
        }
        do {
            try temporary.moveIntoPlace(path)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: error.message)
        }
    }

    /// Copies the whole file open as `source` into `temporary` (named for `target` in errors),
    /// 1 MiB at a time.
    private static func copy(_ source: Int32, to temporary: TemporaryFile, target: String) throws(CaptureError) {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CaptureError(path: target, kind: .unreadable, message: "the trace: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            offset += off_t(n)
            var done = 0
            while done < n {
                let w = chunk.withUnsafeBytes { write(temporary.descriptor, $0.baseAddress! + done, n - done) }
                if w < 0 {
                    if errno == EINTR { continue }
                    throw CaptureError(path: target, kind: .unwritable, message: String(cString: strerror(errno)))
                }
                done += w
            }
        }
    }
}
