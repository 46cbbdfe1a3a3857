import Testing
import BLECore
import BLECapture
@testable import BLELive

/// The streaming btsnoop and H4 decoders against BLECapture's reader: same records whatever
/// the chunking, "need more bytes" on every prefix, errors at the right offset.
@Suite struct StreamDecoderTests {
    /// Feeds `bytes` in seeded random chunks (1 byte up to 3 KiB) and collects every record.
    static func decodeChunked(_ bytes: [UInt8], seed: UInt64, arrival: Int64 = 0) throws -> [CaptureRecord] {
        var decoder = LiveStreamDecoder(source: "test")
        var rng = SplitMix(seed: seed)
        var records: [CaptureRecord] = []
        var i = 0
        while i < bytes.count {
            let n = min(bytes.count - i, 1 + Int(rng.next() % (rng.next() % 4 == 0 ? 3072 : 40)))
            decoder.feed(bytes[i..<(i + n)])
            i += n
            while let r = try decoder.next(arrival: arrival) { records.append(r.record) }
        }
        #expect(decoder.pendingBytes == 0)
        return records
    }

    @Test(arguments: Live.btsnoopCaptures)
    func chunkedBtsnoopEqualsReader(name: String) throws {
        let path = Live.capture(name)
        let bytes = try Live.btsnoopChunks(path)
        let all = bytes.header + bytes.records.flatMap { $0 }
        let expected = try Live.records(path).map { Live.RecordKey($0) }
        for seed in [1, 2, 3] as [UInt64] {
            let got = try Self.decodeChunked(all, seed: seed).map { Live.RecordKey($0) }
            #expect(got.count == expected.count)
            #expect(got == expected)
        }
    }

    @Test func everyPrefixNeedsMoreBytesWithoutError() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-lock-pairing.btsnoop"))
        let bytes = chunks.header + chunks.records.prefix(4).flatMap { $0 }
        let boundaries = Set(chunks.records.prefix(4).reduce(into: [16]) { $0.append($0.last! + $1.count) })
        for length in 0...bytes.count {
            var decoder = LiveStreamDecoder(source: "test")
            decoder.feed(bytes[0..<length])
            var count = 0
            while try decoder.next(arrival: 0) != nil { count += 1 }
            let complete = boundaries.filter { $0 <= length }.count - 1
            #expect(count == max(0, complete), "prefix \(length)")
            #expect(decoder.format == (length >= 16 ? .btsnoop(.h4) : nil))
        }
    }

    @Test func rawH4InfersDirectionAndStampsArrival() throws {
        let path = Live.capture("android-lock-pairing.btsnoop")
        let expected = try Live.records(path)
        let got = try Self.decodeChunked(try Live.rawH4(path), seed: 7, arrival: 1_700_000_000_000_000)
        #expect(got.count == expected.count)
        var offset = 0
        for (g, e) in zip(got, expected) {
            #expect(g.kind == e.kind && g.payload == e.payload && g.rawType == e.rawType)
            #expect(g.direction == (e.kind == .command ? .sent : e.kind == .event ? .received : .unknown))
            #expect(g.timestamp == 1_700_000_000_000_000)
            #expect(g.fileOffset == offset)
            offset += g.payload.count + 1
        }
    }

    @Test func iso14BitLength() throws {
        // 05 ISO | 60 00 handle 0x060 | 03 c0: length 0xC003 & 0x3FFF = 3 | 01 02 03
        var decoder = LiveStreamDecoder(source: "t")
        decoder.feed([0x05, 0x60, 0x00, 0x03, 0xC0, 0x01, 0x02, 0x03, 0x04, 0x0E])
        let r = try #require(try decoder.next(arrival: 5)?.record)
        #expect(r.kind == .iso && r.payload == [0x60, 0x00, 0x03, 0xC0, 0x01, 0x02, 0x03] && r.originalLength == 8)
        #expect(try decoder.next(arrival: 5) == nil)
        #expect(decoder.pendingBytes == 2)
    }

    @Test func unknownH4TypeMidStreamIsAnErrorAtItsOffset() throws {
        var decoder = LiveStreamDecoder(source: "pipe")
        // 01 03 0c 00: HCI Reset | 07: no H4 type
        decoder.feed([0x01, 0x03, 0x0C, 0x00, 0x07, 0x00])
        #expect(try decoder.next(arrival: 0)?.record.kind == .command)
        let error = #expect(throws: LiveError.self) { try decoder.next(arrival: 0) }
        #expect(error?.offset == 4 && error?.kind == .malformed)
        #expect(error?.description == "pipe: byte 4: 0x07 is no H4 packet type (0x01-0x05); the stream cannot be resynchronised")
    }

    /// `adb shell tail -f btsnoop_hci.log`: no file header, the first bytes in the middle of a
    /// record. Decoding starts at the first whole record and gives the reader's records from there.
    @Test(arguments: [0, 1, 7, 23, 24, 100])
    func streamJoinedMidFileStartsAtTheFirstWholeRecord(cut: Int) throws {
        let path = Live.capture("android-lock-pairing.btsnoop")
        let chunks = try Live.btsnoopChunks(path)
        let expected = try Live.records(path)
        // Starts `cut` bytes into record 5 (index 4): record 6 is the first whole one, unless cut is 0.
        let start = 16 + chunks.records[0..<4].reduce(0) { $0 + $1.count } + min(cut, chunks.records[4].count - 1)
        let all = chunks.header + chunks.records.flatMap { $0 }
        let firstWhole = cut == 0 ? 4 : 5
        for seed in [1, 2] as [UInt64] {
            var decoder = LiveStreamDecoder(source: "adb")
            var rng = SplitMix(seed: seed)
            var got: [CaptureRecord] = []
            var i = start
            while i < all.count {
                let n = min(all.count - i, 1 + Int(rng.next() % 3072))
                decoder.feed(all[i..<(i + n)])
                i += n
                while let r = try decoder.next(arrival: 0) { got.append(r.record) }
            }
            #expect(decoder.format == .btsnoop(.h4))
            #expect(got.count == expected.count - firstWhole)
            #expect(got.map(\.payload) == expected[firstWhole...].map(\.payload))
            #expect(got.map(\.timestamp) == expected[firstWhole...].map(\.timestamp))
            let remarks = decoder.takeRemarks()
            #expect(remarks.count == 1)
            #expect(remarks.first?.contains("no btsnoop file header") == true)
        }
    }

    /// `adb shell` on Windows turns every 0x0A into 0x0D 0x0A: refused at once, saying why,
    /// before any damaged record is decoded.
    @Test(arguments: [false, true])
    func crlfConvertedStreamIsRefused(h4: Bool) throws {
        let path = Live.capture("android-lock-pairing.btsnoop")
        let chunks = try Live.btsnoopChunks(path)
        let original = h4 ? try Live.rawH4(path) : chunks.header + chunks.records.flatMap { $0 }
        var converted: [UInt8] = []
        for byte in original {
            if byte == 0x0A { converted.append(0x0D) }
            converted.append(byte)
        }
        var decoder = LiveStreamDecoder(source: "adb")
        decoder.feed(converted.prefix(8192))
        let error = #expect(throws: LiveError.self) { while try decoder.next(arrival: 0) != nil {} }
        #expect(error?.offset == 0)
        #expect(error?.message.contains("converted from LF to CR LF") == true)
        #expect(error?.message.contains("adb exec-out") == true)
    }

    @Test func garbageWithoutZeroBytesIsRefusedAtOnce() {
        var decoder = LiveStreamDecoder(source: "tcp")
        decoder.feed(Array("HTTP/1.1 400 Bad Request\r\nServer: x\r\n\r\n".utf8))
        let error = #expect(throws: LiveError.self) { try decoder.next(arrival: 0) }
        #expect(error?.offset == 0)
    }

    @Test func neitherBtsnoopNorH4() {
        var decoder = LiveStreamDecoder(source: "x")
        decoder.feed(Array("hello".utf8))
        let error = #expect(throws: LiveError.self) { try decoder.next(arrival: 0) }
        #expect(error?.message.contains("first byte 0x68") == true)
    }

    @Test(arguments: [
        // bad magic after the 'b'
        (Array("bt-snoop".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA], 0, "no btsnoop magic"),
        // version 2
        (Array("btsnoop\0".utf8) + [0, 0, 0, 2, 0, 0, 3, 0xEA], 8, "version 2"),
        // datalink 1004 (H5)
        (Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEC], 12, "datalink 1004"),
        // included 9 > original 8
        (Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA] + [0, 0, 0, 8, 0, 0, 0, 9] + [UInt8](repeating: 0, count: 16), 16,
         "included length 9 exceeds original length 8"),
    ] as [([UInt8], Int, String)])
    func malformedBtsnoop(bytes: [UInt8], offset: Int, message: String) {
        var decoder = LiveStreamDecoder(source: "s")
        decoder.feed(bytes)
        let error = #expect(throws: LiveError.self) { try decoder.next(arrival: 0) }
        #expect(error?.offset == offset)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }
}

/// SplitMix64 (STYLE.md: seeded randomness only).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whatever arrives on standard input or a socket, the stream decoder answers with records, "need
/// more", or a `LiveError` — never a crash or a hang: seeded random bytes, and real captures
/// (with and without their header, cut anywhere) with random bytes overwritten.
@Suite struct StreamDecoderRobustnessTests {
    /// Feeds `bytes` in seeded chunks, drains, ends the input; returns how many records came out
    /// (or stops at the first error, which is a valid answer).
    static func drain(_ bytes: [UInt8], seed: UInt64) -> Int {
        var decoder = LiveStreamDecoder(source: "fuzz")
        var rng = SplitMix(seed: seed)
        var count = 0
        var i = 0
        do {
            while i < bytes.count {
                let n = min(bytes.count - i, 1 + Int(rng.next() % 700))
                decoder.feed(bytes[i..<(i + n)])
                i += n
                while try decoder.next(arrival: 0) != nil { count += 1 }
            }
            try decoder.inputEnded()
            while try decoder.next(arrival: 0) != nil { count += 1 }
        } catch {
            // Refusing damaged input is an answer; only a crash or a hang is a failure.
        }
        return count
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix(seed: 2026)
        for round in 0..<300 {
            let length = Int(rng.next() % 4096)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Some rounds start like a btsnoop file or an H4 command, to get past detection.
            if round % 3 == 1 { bytes = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA] + bytes }
            if round % 3 == 2 { bytes = [0x01, 0x03, 0x0C, 0x00] + bytes }
            _ = Self.drain(bytes, seed: UInt64(round))
        }
    }

    @Test func damagedRealCapturesNeverCrash() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-lock-pairing.btsnoop"))
        let body = chunks.records.prefix(200).flatMap { $0 }
        // Undamaged, the same drain gives back every record (the check the damaged rounds lack).
        #expect(Self.drain(chunks.header + body, seed: 1) == 200)
        var rng = SplitMix(seed: 7)
        for round in 0..<200 {
            var bytes = (round % 2 == 0 ? chunks.header : []) + body
            let cut = Int(rng.next() % UInt64(bytes.count))
            bytes = round % 4 < 2 ? Array(bytes[cut...]) : Array(bytes[..<max(1, cut)])
            for _ in 0..<(1 + rng.next() % 8) where !bytes.isEmpty {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            _ = Self.drain(bytes, seed: UInt64(round))
        }
    }
}
