import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// `--tcp` against a loopback server in the test (127.0.0.1 only) that serves the stream in
/// two connections, dropping the first one mid-capture: the recorder reconnects with backoff
/// and the recording holds every record.
@Suite(.serialized) struct TCPSourceTests {
    /// A listening socket on 127.0.0.1 with a kernel-chosen port.
    static func listener() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, 4) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Serves each element of `sessions` to one accepted connection, in odd-sized writes,
    /// then closes it; closes the listener after the last one (later connects are refused).
    static func serve(_ listener: Int32, sessions: [[UInt8]]) -> Thread {
        let thread = Thread {
            for bytes in sessions {
                let client = accept(listener, nil, nil)
                var i = 0, step = 1
                while i < bytes.count {
                    let n = min(bytes.count - i, step * 97)
                    _ = bytes[i..<(i + n)].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    i += n
                    step = step % 50 + 1
                    if step == 1 { usleep(1000) }
                }
                usleep(50_000)
                close(client)
            }
            close(listener)
        }
        thread.start()
        return thread
    }

    @Test func btsnoopNetStreamDroppedOnceIsReconnected() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        let half = chunks.records.count / 2
        // Each connection of Android's btsnoop_net starts with the file header.
        let sessions = [chunks.header + chunks.records[..<half].flatMap { $0 },
                        chunks.header + chunks.records[half...].flatMap { $0 }]
        let (fd, port) = try Self.listener()
        _ = Self.serve(fd, sessions: sessions)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 2, initialBackoffMilliseconds: 50)
        let notices = Live.NoticeLog()
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/net.btsnoop", databasePath: dir + "/net.db"),
                                      untilIdleMilliseconds: 5000, notices: notices)
        #expect(source.connections == 2)
        #expect(summary.stopReason == .endOfInput)
        #expect(summary.failure == nil)
        #expect(summary.records == chunks.records.count)
        #expect(notices.lines.first == "connected to 127.0.0.1 port \(port)")
        #expect(notices.lines.contains { $0.hasPrefix("connection 1 closed by the peer after \(sessions[0].count) bytes; reconnecting in 0.05 s (attempt 1 of 2)") })
        #expect(notices.lines.contains("reconnected to 127.0.0.1 port \(port) (attempt 1)"))
        #expect(summary.warnings.count == 1)
        #expect(summary.warnings.first?.contains("gave up after 2 reconnection attempts") == true)
        let out = try Live.btsnoopChunks(dir + "/net.btsnoop")
        #expect(out.records == chunks.records)
    }

    @Test func rawH4OverTCP() throws {
        let path = Live.capture("android-yeelock.btsnoop")
        let raw = try Live.rawH4(path)
        let (fd, port) = try Self.listener()
        _ = Self.serve(fd, sessions: [raw])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 0)
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/h4.btsnoop"))
        let expected = try Live.records(path)
        #expect(summary.format == .h4 && summary.datalink == .h4)
        #expect(summary.records == expected.count)
        let written = try Live.records(dir + "/h4.btsnoop")
        #expect(written.map(\.payload) == expected.map(\.payload))
        #expect(written.map(\.kind) == expected.map(\.kind))
    }

    @Test func neverConnectingIsAnError() throws {
        let (fd, port) = try Self.listener()
        close(fd)
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 1, initialBackoffMilliseconds: 20)
        let summary = try Live.record(source, RecordingOptions(databasePath: Live.temporaryDirectory() + "/x.db"))
        #expect(summary.stopReason == .failed)
        #expect(summary.failure?.kind == .unavailable)
        #expect(summary.failure?.description == "tcp:127.0.0.1:\(port): cannot connect: Connection refused; gave up after 2 attempts")
        #expect(summary.format == nil)
    }

    @Test(arguments: [("127.0.0.1:8872", "127.0.0.1", 8872), ("localhost:1", "localhost", 1), ("[::1]:9000", "::1", 9000)]
          as [(String, String, UInt16)])
    func endpoints(text: String, host: String, port: UInt16) throws {
        let parsed = try #require(TCPSource.parseEndpoint(text))
        #expect(parsed.host == host && parsed.port == port)
    }

    @Test(arguments: ["8872", "host:", ":80", "host:0", "host:70000", "[::1]9000"])
    func badEndpoints(text: String) {
        #expect(TCPSource.parseEndpoint(text) == nil)
    }
}
