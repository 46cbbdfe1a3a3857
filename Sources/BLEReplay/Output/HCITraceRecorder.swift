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
    public private(set) var records: [CaptureRecord] = []
    public private(set) var frameCount = 0

    public init(epoch: Int64, keepsRecords: Bool) {
        self.epoch = epoch
        self.keepsRecords = keepsRecords
    }

    /// Appends one record; returns its frame number.
    @discardableResult
    public func append(_ payload: @autoclosure () -> [UInt8], kind: PacketKind, direction: Direction,
                       at time: VirtualTime) -> Int {
        frameCount += 1
        if keepsRecords {
            let p = payload()
            records.append(CaptureRecord(frameNumber: frameCount, timestamp: epoch &+ time, direction: direction,
                                         kind: kind, payload: p, fileOffset: 0))
        }
        return frameCount
    }

    /// Counts `count` records the trace does not keep (`keepsRecords` false); returns the last
    /// one's frame number, as `append` would have.
    @discardableResult
    public func skip(_ count: Int) -> Int {
        frameCount += count
        return frameCount
    }

    public func command(_ payload: @autoclosure () -> [UInt8], at time: VirtualTime) {
        append(payload(), kind: .command, direction: .sent, at: time)
    }

    public func event(_ payload: @autoclosure () -> [UInt8], at time: VirtualTime) {
        append(payload(), kind: .event, direction: .received, at: time)
    }

    /// Writes the records as btsnoop (datalink 1002, H4), which tshark and btmon decode,
    /// through a `TemporaryFile` beside `path` renamed into place when complete.
    public func writeBtsnoop(to path: String) throws(CaptureError) {
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(path)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: error.message)
        }
        let writer = try BtsnoopWriter(path: temporary.path, datalink: 1002)
        for r in records { try writer.write(r) }
        try writer.close()
        do {
            try temporary.moveIntoPlace(path)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: error.message)
        }
    }
}
