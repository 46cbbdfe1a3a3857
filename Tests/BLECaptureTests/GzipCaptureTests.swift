import BLECapture
import BLECore
import Foundation
import Testing

/// Captures compressed with gzip (RFC 1952) read as the capture inside: the same records at
/// the same (decompressed) offsets, a cut file a warning, damage `.corrupt` after the records
/// before it, and what is no capture refused naming gzip.
@Suite("gzip-compressed captures")
struct GzipCaptureTests {
    func views(_ result: ReadResult) -> [RecordView] {
        result.records.map { RecordView(record: $0, includeOffsets: true) }
    }

    /// The records of `plain` whose bytes all lie in its first `length` bytes.
    func records(of plain: ReadResult, within length: Int, sample: SampleCapture) -> [RecordView] {
        let ends = sample.records.map { $0.offset + $0.length }
        return Array(views(plain).prefix(ends.prefix { $0 <= length }.count))
    }

    @Test("a gzip-compressed capture reads as the capture itself, from memory and from a file",
          arguments: SampleCaptures.all)
    func sameRecords(_ sample: SampleCapture) throws {
        let plain = readAll(bytes: sample.bytes)
        #expect(plain.error == nil && plain.records.count == sample.records.count)
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        for gz in [GzipFixtures.compressed(sample.bytes), GzipFixtures.storedMember(sample.bytes, blockSize: 7)] {
            let path = dir + "/\(sample.name).gz"
            try writeFile(path, gz)
            for result in [readAll(bytes: gz, name: path), readAll(path: path)] {
                #expect(result.error == nil, "\(sample): \(String(describing: result.error))")
                #expect(views(result) == views(plain), "\(sample)")
                #expect(result.info?.format == sample.format)
                #expect(result.info?.linkType == plain.info?.linkType)
                #expect(result.info?.formatDescription == (plain.info?.formatDescription ?? "") + ", gzip-compressed")
                #expect(result.warnings.isEmpty)
                #expect(result.bytesRead == gz.count, "\(sample): progress counts the compressed file's bytes")
            }
        }
    }

    @Test("a large btsnoop streams through zlib across reads of any size", arguments: [1, 5000, 200_000])
    func largeStream(_ maxRead: Int) throws {
        let (bytes, payloads) = StreamingTests.btsnoopStream(count: 1500, seed: 9)
        let gz = GzipFixtures.compressed(bytes, level: 1)
        var reader = try CaptureFile.open(source: TricklingSource(gz, seed: 4, maxRead: maxRead))
        let result = drain(&reader)
        #expect(result.error == nil)
        #expect(result.records.map(\.payload) == payloads)
        #expect(views(result) == views(readAll(bytes: bytes)))
        #expect(result.bytesRead == gz.count)
    }

    @Test("members one after another are one stream, as gzip -d reads them; an empty member is nothing")
    func multiMember() {
        let sample = SampleCaptures.btsnoopH4
        let plain = readAll(bytes: sample.bytes)
        for split in 0...sample.bytes.count {
            let gz = GzipFixtures.compressed(Array(sample.bytes[..<split])) + GzipFixtures.storedMember([])
                + GzipFixtures.storedMember(Array(sample.bytes[split...]), blockSize: 5)
            let result = readAll(bytes: gz)
            #expect(result.error == nil, "split at \(split): \(String(describing: result.error))")
            #expect(views(result) == views(plain), "split at \(split)")
            #expect(result.warnings.isEmpty, "split at \(split)")
        }
    }

    @Test("zero padding after the last member is ignored; other bytes are a warning, read no further")
    func afterTheLastMember() throws {
        let sample = SampleCaptures.packetLoggerLE
        let gz = GzipFixtures.compressed(sample.bytes)
        let plain = readAll(bytes: sample.bytes)
        let padded = readAll(bytes: gz + [UInt8](repeating: 0, count: 3000))
        #expect(padded.error == nil && padded.warnings.isEmpty)
        #expect(views(padded) == views(plain))
        let trailed = readAll(bytes: gz + [0, 0] + Array("junk".utf8))
        #expect(trailed.error == nil)
        #expect(views(trailed) == views(plain))
        let warning = try #require(trailed.warnings.last)
        #expect(warning.offset == sample.bytes.count)
        #expect(warning.message.contains("no gzip member follow gzip member 1, from compressed byte \(gz.count)"))
    }

    /// Every cut of a gzip file: the records wholly before the cut, then a warning at the
    /// decompressed byte where the data ends (a file cut short is truncated, as Android's is).
    @Test("every prefix of a gzip file: the records before the cut and a warning saying where")
    func everyPrefix() {
        let sample = SampleCaptures.btsnoopH4
        let plain = readAll(bytes: sample.bytes)
        let gz = GzipFixtures.storedMember(sample.bytes)
        // From 3 bytes on: `1F 8B 08` is what tells gzip (two bytes are too short for any format).
        for cut in 3..<gz.count {
            let result = readAll(bytes: Array(gz[..<cut]))
            // Header 10 bytes, block header 5: then the stored bytes come out as they arrive.
            let available = min(sample.bytes.count, max(0, cut - 15))
            guard available >= 16 else {
                let error = result.error
                #expect(error != nil && result.records.isEmpty, "cut at \(cut)")
                #expect(error?.message.contains("cut short") == true, "cut at \(cut): \(String(describing: error))")
                continue
            }
            #expect(result.error == nil, "cut at \(cut): \(String(describing: result.error))")
            #expect(views(result) == records(of: plain, within: available, sample: sample), "cut at \(cut)")
            let last = result.warnings.last
            #expect(last?.offset == available, "cut at \(cut)")
            #expect(last?.message == "the gzip file ends at compressed byte \(cut), inside gzip member 1: cut short; "
                        + "its decompressed bytes end at byte \(available)", "cut at \(cut)")
        }
    }

    @Test("damage in the deflate data: the records before it, then .corrupt at the decompressed byte, naming the compressed one")
    func damagedBlock() throws {
        let sample = SampleCaptures.btsnoopMonitor
        let plain = readAll(bytes: sample.bytes)
        let blockSize = 50
        var gz = GzipFixtures.storedMember(sample.bytes, blockSize: blockSize)
        // Block 1's NLEN no longer the complement of its LEN (RFC 1951 3.2.4).
        let lengthAt = GzipFixtures.storedBlockLengthOffset(1, blockSize: blockSize)
        gz[lengthAt + 2] ^= 0xFF
        let result = readAll(bytes: gz, name: "cap.gz")
        #expect(views(result) == records(of: plain, within: blockSize, sample: sample))
        #expect(!result.records.isEmpty)
        let error = try #require(result.error)
        #expect(error.kind == .corrupt)
        #expect(error.offset == blockSize)
        #expect(error.description == "cap.gz: byte \(blockSize): damaged gzip data: zlib stopped at compressed byte "
                    + "\(lengthAt + 4), in gzip member 1 (invalid stored block lengths); decompressed bytes good up to byte \(blockSize)")
    }

    @Test("damage among the first records of a btsnoop labelled 1001: the records before it, then .corrupt")
    func damageWhileJudgingTheH1Label() throws {
        // 20 H1 records (the datalink-1001 check looks at the first 16), about 16 bytes each.
        let packets = Array(repeating: MislabelledH4Tests.h1Packets, count: 5).joined().prefix(20)
        let bytes = MislabelledH4Tests.btsnoop(datalink: 1001, Array(packets))
        let plain = readAll(bytes: bytes)
        #expect(plain.error == nil && plain.records.count == 20)
        let blockSize = 100
        var gz = GzipFixtures.storedMember(bytes, blockSize: blockSize)
        // Block 2 (bytes 200..<300 of the capture) damaged: within the records the check judges.
        gz[GzipFixtures.storedBlockLengthOffset(2, blockSize: blockSize) + 2] ^= 0xFF
        let result = readAll(bytes: gz, name: "h1.gz")
        let before = plain.records.prefix { $0.fileOffset + 24 + $0.payload.count <= 2 * blockSize }
        #expect(before.count >= 4)
        #expect(result.records.map(\.fileOffset) == before.map(\.fileOffset))
        #expect(result.records.map(\.payload) == before.map(\.payload))
        #expect(result.error?.kind == .corrupt)
        #expect(result.error?.offset == 2 * blockSize)
    }

    @Test("a CRC-32 that does not match: every record, then .corrupt at the end of the data", arguments: [SampleCaptures.btsnoopH4, SampleCaptures.pcapH4WithPHDR])
    func badChecksum(_ sample: SampleCapture) throws {
        var gz = GzipFixtures.compressed(sample.bytes)
        gz[gz.count - 8] ^= 0x01
        let result = readAll(bytes: gz)
        #expect(views(result) == views(readAll(bytes: sample.bytes)))
        let error = try #require(result.error)
        #expect(error.kind == .corrupt)
        #expect(error.offset == sample.bytes.count)
        #expect(error.message.contains("incorrect data check"))
    }

    @Test("a pcap cut inside gzip: the records before the cut, libpcap's warning and the gzip's")
    func pcapCut() throws {
        let sample = SampleCaptures.pcapngH4WithPHDR
        let plain = readAll(bytes: sample.bytes)
        let gz = GzipFixtures.storedMember(sample.bytes)
        let second = sample.records[1]
        let available = second.offset + second.length / 2
        let result = readAll(bytes: Array(gz[..<(15 + available)]))
        #expect(result.error == nil)
        #expect(views(result) == records(of: plain, within: available, sample: sample))
        #expect(result.records.count == 1)
        #expect(result.warnings.first?.message.hasPrefix("in the decompressed data: ") == true)
        #expect(result.warnings.last?.offset == available)
        #expect(result.warnings.last?.message.contains("cut short") == true)
    }

    @Test("the gzip magic with garbage after it is an error naming gzip, not an unknown format",
          arguments: [[0x1F, 0x8B, 0x08, 0xE0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF],
                      [0x1F, 0x8B, 0x09, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF], [0x1F, 0x8B, 0x08]] as [[UInt8]])
    func garbageAfterTheMagic(_ bytes: [UInt8]) throws {
        let error = try #require(readAll(bytes: bytes).error)
        #expect(error.kind == .corrupt)
        #expect(error.message.contains("gzip"))
    }

    @Test("what a gzip holds that is no capture is refused saying what it is")
    func notACaptureInside() throws {
        let btsnoop = GzipFixtures.compressed(SampleCaptures.btsnoopH4.bytes)
        let nested = try #require(readAll(bytes: GzipFixtures.compressed(btsnoop)).error)
        #expect(nested.kind == .unsupported && nested.message.contains("a gzip file inside a gzip file"))
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 40)
        let zipped = try #require(readAll(bytes: GzipFixtures.compressed(zip)).error)
        #expect(zipped.kind == .unsupported && zipped.message.contains("gzip-compressed ZIP archive"))
        let empty = try #require(readAll(bytes: GzipFixtures.compressed([])).error)
        #expect(empty.kind == .empty && empty.message.contains("gzip"))
        let text = try #require(readAll(bytes: GzipFixtures.compressed(Array("no capture here\n".utf8))).error)
        #expect(text.kind == .unknownFormat && text.message.hasPrefix("in the decompressed data: "))
    }

    /// A pcap of 2,000 ACL packets of 1,011 bytes (LINKTYPE 201), about 2 MB decompressed:
    /// ```
    /// D4 C3 B2 A1 02 00 04 00   magic (little-endian), version 2.4
    /// 00 00 00 00 00 00 00 00   thiszone, sigfigs
    /// FF FF 00 00 C9 00 00 00   snaplen 65535, LINKTYPE 201 (H4 with direction)
    /// per packet: ts_sec, ts_usec, incl_len, orig_len (u32 LE), then direction u32 BE = 1
    /// (received), H4 02 ACL, handle 0x0040 PB 10, length 1002, L2CAP length 998 CID 0x0041, 998 bytes
    /// ```
    @Test("probe judges a pcap inside gzip from its first MiB; open reads all of it")
    func probeOfALargePcap() throws {
        var pcap: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00] + [UInt8](repeating: 0, count: 8)
            + .le32(65_535) + .le32(201)
        for i in 0..<2000 {
            let packet = [UInt8].be32(1) + [0x02] + .le16(0x2040) + .le16(1002) + .le16(998) + .le16(0x41)
                + (0..<998).map { UInt8(truncatingIfNeeded: $0 &+ i) }
            pcap += .le32(1_700_000_000) + .le32(UInt32(i)) + .le32(UInt32(packet.count)) + .le32(UInt32(packet.count)) + packet
        }
        #expect(pcap.count > 1 << 20)   // more than probe decompresses
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        try writeFile(dir + "/big.pcap.gz", GzipFixtures.compressed(pcap))
        guard case .capture(let info) = try CaptureFile.probe(dir + "/big.pcap.gz") else {
            Issue.record("not probed as a capture")
            return
        }
        #expect(info.format == .pcap && info.linkType == 201)
        #expect(info.formatDescription.hasSuffix(", gzip-compressed"))
        let result = readAll(path: dir + "/big.pcap.gz")
        #expect(result.error == nil && result.warnings.isEmpty)
        #expect(result.records.count == 2000)
        #expect(views(result) == views(readAll(bytes: pcap)))
    }

    @Test("the capture's SHA-256 and size are those of its decompressed bytes, the plain file's")
    func digestOfTheDecompressedCapture() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let plain = SampleCaptures.btsnoopH4.bytes
        let gz = GzipFixtures.compressed(plain)
        try writeFile(dir + "/c.gz", gz)
        try writeFile(dir + "/c", plain)
        var hash = SHA256()
        plain.withUnsafeBytes { hash.update($0) }
        let expected = hexString(hash.finalize())
        #expect(CaptureInput.file(dir + "/c.gz").isGzipCompressed && !CaptureInput.file(dir + "/c").isGzipCompressed)
        #expect(CaptureInput.file(dir + "/c.gz").sha256Hex() == expected)
        #expect(CaptureInput.file(dir + "/c").sha256Hex() == expected)
        #expect(CaptureInput.file(dir + "/c.gz").contentDigest()?.size == Int64(plain.count))
        // Two members (`cat a.gz b.gz`) are one capture: the bytes of both.
        let half = plain.count / 2
        try writeFile(dir + "/two.gz", GzipFixtures.compressed(Array(plain[..<half])) + GzipFixtures.compressed(Array(plain[half...])))
        #expect(CaptureInput.file(dir + "/two.gz").sha256Hex() == expected)
        // Cut short: the digest of what the cut leaves, the same every time.
        try writeFile(dir + "/cut.gz", Array(gz[..<(gz.count * 2 / 3)]))
        let cut = CaptureInput.file(dir + "/cut.gz").contentDigest()
        #expect(cut != nil && cut?.hex != expected && cut!.size < Int64(plain.count) && cut!.size > 0)
        var prefix = SHA256()
        plain.withUnsafeBytes { prefix.update(UnsafeRawBufferPointer(rebasing: $0[..<Int(cut?.size ?? 0)])) }
        #expect(cut?.hex == hexString(prefix.finalize()))
    }

    /// android-yeelock: tshark -r on the file and on its gzip both count 690 frames;
    /// smartwatch-h4-phdr.pcapng: 810.
    @Test("real captures read the same compressed", arguments: [("android-yeelock.btsnoop", 690), ("smartwatch-h4-phdr.pcapng", 810)])
    func realCaptures(_ name: String, _ frames: Int) throws {
        let path = TestFiles.capture(name)
        let bytes = try readFile(path)
        let plain = readAll(path: path)
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        try writeFile(dir + "/\(name).gz", GzipFixtures.compressed(bytes))
        let result = readAll(path: dir + "/\(name).gz")
        #expect(result.error == nil && result.warnings.isEmpty)
        #expect(result.records.count == frames)
        #expect(views(result) == views(plain))
    }
}
