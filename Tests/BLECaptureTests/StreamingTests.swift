import BLECapture
import BLECore
import Foundation
import Testing

/// A source that hands out its bytes in short, irregular reads, as a pipe does.
final class TricklingSource: ByteSource {
    let name = "<pipe>"
    private let bytes: [UInt8]
    private var position = 0
    private var rng: SplitMix64
    private let maxRead: Int

    init(_ bytes: [UInt8], seed: UInt64, maxRead: Int) {
        self.bytes = bytes
        rng = SplitMix64(seed: seed)
        self.maxRead = maxRead
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        let n = min(buffer.count, bytes.count - position, Int.random(in: 1...maxRead, using: &rng))
        guard n > 0, let target = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}

/// Records larger than reads, reads smaller than records, records across the 1 MiB window.
@Suite("Streaming")
struct StreamingTests {
    /// A btsnoop H4 stream of `count` records with sizes from tiny to the 65,540-byte maximum.
    static func btsnoopStream(count: Int, seed: UInt64) -> (bytes: [UInt8], payloads: [[UInt8]]) {
        var rng = SplitMix64(seed: seed)
        var bytes = Array("btsnoop\0".utf8) + [UInt8].be32(1) + .be32(1002)
        var payloads: [[UInt8]] = []
        for i in 0..<count {
            let size = i % 97 == 0 ? 65_539 : Int.random(in: 0...3000, using: &rng)
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ i) }
            payloads.append(payload)
            // original, included (+1 for the H4 byte), flags 1 (received data), drops, time
            bytes += [UInt8].be32(UInt32(size + 1)) + .be32(UInt32(size + 1)) + .be32(1) + .be32(0)
                + .be64(0x00E2_E7D7_274D_C000 + UInt64(i)) + [0x02] + payload
        }
        return (bytes, payloads)
    }

    @Test("btsnoop through irregular reads, across many window refills", arguments: [(UInt64(1), 7), (2, 5000), (3, 200_000)])
    func btsnoopTrickle(_ seed: UInt64, _ maxRead: Int) throws {
        let (bytes, payloads) = Self.btsnoopStream(count: 2000, seed: seed)
        #expect(bytes.count > 3 << 20)
        var reader = try CaptureFile.open(source: TricklingSource(bytes, seed: seed, maxRead: maxRead))
        var offset = 16
        var index = 0
        while let record = try reader.next() {
            #expect(record.payload == payloads[index])
            #expect(record.fileOffset == offset)
            #expect(record.timestamp == 1_700_000_000_000_000 + Int64(index))
            offset += 24 + 1 + payloads[index].count
            index += 1
        }
        #expect(index == payloads.count)
        #expect(reader.bytesRead == bytes.count)
        #expect(reader.warnings.isEmpty)
    }

    @Test("PacketLogger through irregular reads")
    func packetLoggerTrickle() throws {
        var rng = SplitMix64(seed: 9)
        var bytes: [UInt8] = []
        var payloads: [[UInt8]] = []
        for i in 0..<1500 {
            let size = i % 50 == 0 ? 65_000 : Int.random(in: 0...2000, using: &rng)
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 ^ i) }
            payloads.append(payload)
            // length, seconds, microseconds (LE) | type 03 ACL received | payload
            bytes += [UInt8].le32(UInt32(9 + size)) + .le32(1_700_000_000) + .le32(UInt32(i)) + [0x03] + payload
        }
        var reader = try CaptureFile.open(source: TricklingSource(bytes, seed: 4, maxRead: 3000))
        var index = 0
        while let record = try reader.next() {
            #expect(record.payload == payloads[index] && record.kind == .acl)
            index += 1
        }
        #expect(index == payloads.count)
    }

    @Test("a truncated stream through a pipe still warns at the right offset")
    func truncatedTrickle() throws {
        let (bytes, payloads) = Self.btsnoopStream(count: 300, seed: 5)
        let cut = Array(bytes.dropLast(3))
        var reader = try CaptureFile.open(source: TricklingSource(cut, seed: 5, maxRead: 4096))
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == payloads.count - 1)
        let last = bytes.count - (24 + 1 + payloads[payloads.count - 1].count)
        #expect(reader.warnings.map(\.offset) == [last])
    }

    @Test("pcap and pcapng from a trickling pipe are read whole, then decoded",
          arguments: [SampleCaptures.pcapH4WithPHDR, SampleCaptures.pcapngH4WithPHDR])
    func pcapTrickle(_ sample: SampleCapture) throws {
        var reader = try CaptureFile.open(source: TricklingSource(sample.bytes, seed: 8, maxRead: 9))
        let result = drain(&reader)
        #expect(result.error == nil)
        #expect(result.records.map(\.fileOffset) == sample.records.map(\.offset))
    }

    @Test("a live btsnoop pipe yields its first record before the writer closes it")
    func livePipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        // Only the header and the first record are written; the pipe stays open.
        let first = Array(SampleCaptures.btsnoopH4.bytes.prefix(44))
        first.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) }
        var reader = try CaptureFile.open(source: FileDescriptorSource(fileDescriptor: fds[0], name: "<live>", closesOnDeinit: true))
        let record = try reader.next()
        #expect(record?.payload == [0x03, 0x0C, 0x00])
    }
}
