import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// The monitor path without a controller: the same `MonitorSource` reads monitor frames that a
/// thread in the test writes into a `socketpair(AF_UNIX, SOCK_SEQPACKET)` (one frame per
/// message, as the kernel's monitor socket delivers them).
@Suite struct MonitorSourceTests {
    /// A connected seqpacket pair: (reader, writer).
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let rc = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        try #require(rc == 0)
        // Room for a whole capture's frames while the reader is not reading yet.
        var size: Int32 = 4 << 20
        setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return (fds[0], fds[1])
    }

    /// Writes each frame as one message from another thread, then closes the writer.
    static func sendFrames(_ frames: [[UInt8]], to fd: Int32, pauseEvery: Int = 50) -> Thread {
        let thread = Thread {
            for (i, frame) in frames.enumerated() {
                _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                if i % pauseEvery == pauseEvery - 1 { usleep(2000) }
            }
            close(fd)
        }
        thread.start()
        return thread
    }

    @Test func frameLayout() throws {
        // 03 00 opcode Event Packet | 01 00 index hci1 | 04 00 length 4 | 0e 02 01 00 (Command Complete)
        let bytes: [UInt8] = [0x03, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0E, 0x02, 0x01, 0x00]
        let frame = try MonitorFrame(decoding: bytes[...])
        #expect(frame.opcode == .eventPacket && frame.controllerIndex == 1 && frame.payload == [0x0E, 0x02, 0x01, 0x00])
        #expect(frame.bytes == bytes)
        let record = frame.record(timestamp: 42, frameNumber: 1, streamOffset: 0)
        #expect(record.kind == .event && record.direction == .received && record.controllerIndex == 1 && record.rawType == 3)
        for length in 0..<bytes.count {
            #expect(throws: MonitorFrame.FormatError.self) { try MonitorFrame(decoding: bytes[0..<length]) }
        }
        #expect(throws: MonitorFrame.FormatError.self) { try MonitorFrame(decoding: (bytes + [0])[...]) }
    }

    @Test func btmonCaptureThroughASocketPair() throws {
        let expected = try Live.records(Live.capture("btmon-monitor.btsnoop"))
        let frames = expected.compactMap { MonitorFrame(record: $0)?.bytes }
        #expect(frames.count == expected.count)
        let (reader, writer) = try Self.socketPair()
        defer { close(reader) }
        let source = MonitorSource(fileDescriptor: reader, name: "socketpair")
        _ = Self.sendFrames(frames, to: writer)
        var got: [CaptureRecord] = []
        loop: while true {
            switch try source.next(timeoutMilliseconds: 2000) {
            case .record(let r): got.append(r.record)
            case .end: break loop
            case .idle, .notice: continue
            }
        }
        #expect(source.warnings.isEmpty)
        #expect(got.count == expected.count)
        for (g, e) in zip(got, expected) {
            #expect(g.kind == e.kind && g.direction == e.direction && g.payload == e.payload
                    && g.controllerIndex == e.controllerIndex && g.rawType == e.rawType, "frame \(e.frameNumber)")
        }
    }

    @Test func malformedFramesAreSkippedWithAWarning() throws {
        let (reader, writer) = try Self.socketPair()
        defer { close(reader) }
        let good = MonitorFrame(opcode: .commandPacket, controllerIndex: 0, payload: [0x03, 0x0C, 0x00]).bytes
        let frames: [[UInt8]] = [good, [0x02, 0x00, 0x00], [0x02, 0x00, 0x00, 0x00, 0x09, 0x00, 0x03], good]
        _ = Self.sendFrames(frames, to: writer)
        let source = MonitorSource(fileDescriptor: reader)
        var records = 0
        loop: while true {
            switch try source.next(timeoutMilliseconds: 2000) {
            case .record: records += 1
            case .end: break loop
            default: continue
            }
        }
        #expect(records == 2)
        #expect(source.skippedFrames == 2)
        #expect(source.warnings == [
            "monitor: frame at byte 9 skipped: 3-byte frame is shorter than the 6-byte monitor header",
            "monitor: frame at byte 12 skipped: monitor header declares 9 payload bytes, the frame carries 1",
        ])
    }

    /// Recorded through the sink, the frames make a btsnoop 2001 file whose records are the
    /// capture's (the socket pair carries no kernel timestamps: those are the arrival times).
    @Test func recordingMonitorFramesWritesDatalink2001() throws {
        let path = Live.capture("btmon-monitor.btsnoop")
        let expected = try Live.records(path)
        let (reader, writer) = try Self.socketPair()
        defer { close(reader) }
        _ = Self.sendFrames(expected.compactMap { MonitorFrame(record: $0)?.bytes }, to: writer)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try Live.record(MonitorSource(fileDescriptor: reader), RecordingOptions(outputPath: dir + "/m.btsnoop", databasePath: dir + "/m.db"))
        #expect(summary.stopReason == .endOfInput && summary.failure == nil)
        #expect(summary.records == expected.count && summary.datalink == .monitor)
        let written = try Live.records(dir + "/m.btsnoop")
        #expect(written.map { Live.RecordKey($0, timestamp: false) } == expected.map { Live.RecordKey($0, timestamp: false) })
        #expect(try Live.rows(dir + "/m.db", "SELECT count(*) FROM packet") == [[.integer(Int64(expected.count))]])
    }

    /// With `SO_TIMESTAMP` on (as `openMonitor` sets it), a record's time is when the kernel
    /// received the frame (`SCM_TIMESTAMP`), not when the recorder got round to reading it.
    @Test func kernelReceiveTimeIsTheTimestamp() throws {
        let (reader, writer) = try Self.socketPair()
        defer { close(reader) }
        var on: Int32 = 1
        try #require(setsockopt(reader, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let frame = MonitorFrame(opcode: .commandPacket, controllerIndex: 0, payload: [0x03, 0x0C, 0x00]).bytes
        let sent = Syscall.wallClockMicroseconds()
        _ = frame.withUnsafeBytes { send(writer, $0.baseAddress, $0.count, 0) }
        close(writer)
        usleep(300_000)
        let source = MonitorSource(fileDescriptor: reader)
        guard case .record(let live) = try source.next(timeoutMilliseconds: 1000) else {
            Issue.record("no record")
            return
        }
        let read = Syscall.wallClockMicroseconds()
        #expect(live.record.timestamp >= sent - 1000 && live.record.timestamp <= sent + 100_000)
        #expect(read - live.record.timestamp >= 250_000)
    }

    /// On this machine the kernel has no AF_BLUETOOTH: `open()` says so and names the other sources.
    @Test func monitorSocketWithoutBluetoothSupport() throws {
        let probe = socket(31, Int32(SOCK_RAW.rawValue), 1)
        if probe >= 0 { close(probe) }
        try #require(probe < 0 && errno == EAFNOSUPPORT, "this kernel has AF_BLUETOOTH; nothing to check")
        let error = #expect(throws: LiveError.self) { try MonitorSource.open() }
        #expect(error?.kind == .unavailable)
        #expect(error?.description == "monitor: this kernel has no Bluetooth support (AF_BLUETOOTH): use --follow, --stdin or --tcp")
    }
}
