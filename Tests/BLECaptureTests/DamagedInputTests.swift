import BLECapture
import BLECore
import Testing

/// Corrupt records in the middle throw `.corrupt` at the record's offset after the good
/// records; a record cut by the end of the file ends the stream with a warning.
@Suite("Damaged input")
struct DamagedInputTests {
    /// Reads until the first error, then asks once more: the error must repeat.
    func readExpectingError(_ bytes: [UInt8]) throws -> (records: [CaptureRecord], error: CaptureError) {
        var reader = try CaptureFile.open(source: MemorySource(bytes, name: "damaged"))
        var records: [CaptureRecord] = []
        do {
            while let record = try reader.next() { records.append(record) }
        } catch {
            #expect(throws: error) { try reader.next() }
            return (records, error)
        }
        Issue.record("no error")
        return (records, CaptureError(path: "", kind: .corrupt, message: ""))
    }

    @Test("btsnoop: included length above original length")
    func btsnoopIncludedAboveOriginal() throws {
        var bytes = SampleCaptures.btsnoopH4.bytes
        bytes[44 + 7] = 0x08  // record 2 @44: included length 7 -> 8, original still 7
        let (records, error) = try readExpectingError(bytes)
        #expect(records.count == 1)
        #expect(error.kind == .corrupt && error.offset == 44)
        #expect(error.description == "damaged: byte 44: record 2: included length 8 exceeds original length 7")
    }

    @Test("btsnoop: impossible included length")
    func btsnoopHugeLength() throws {
        var bytes = SampleCaptures.btsnoopH4.bytes
        // record 3 @75: original and included length 0x00100000 (1 MiB)
        bytes.replaceSubrange(75..<83, with: [UInt8].be32(0x0010_0000) + .be32(0x0010_0000))
        let (records, error) = try readExpectingError(bytes)
        #expect(records.count == 2)
        #expect(error.offset == 75)
        #expect(error.message == "record 3: included length 1048576 exceeds the largest HCI packet (65540)")
    }

    @Test("btsnoop: truncated last record and truncated record header")
    func btsnoopTruncated() throws {
        let bytes = SampleCaptures.btsnoopH4.bytes
        let cut = readAll(bytes: Array(bytes.dropLast(5)))
        #expect(cut.error == nil && cut.records.count == 2)
        #expect(cut.warnings == [CaptureWarning(offset: 75, message:
            "truncated record at byte 75 (file ends after 31 of 36 bytes)")])
        #expect(cut.bytesRead == bytes.count - 5)
        let header = readAll(bytes: Array(bytes.prefix(75 + 10)))
        #expect(header.records.count == 2)
        #expect(header.warnings.map(\.message) == ["truncated record header at byte 75 (file ends after 10 of 24 bytes)"])
    }

    @Test("btsnoop: unsupported datalinks and versions say what they are")
    func btsnoopUnsupported() throws {
        for (datalink, name) in [(1003, "HCI BCSP"), (1004, "HCI Serial (H5)"), (2002, "simulator")] {
            var bytes = SampleCaptures.btsnoopH4.bytes
            bytes.replaceSubrange(12..<16, with: [UInt8].be32(UInt32(datalink)))
            let error = readAll(bytes: bytes).error
            #expect(error?.kind == .unsupported)
            #expect(error?.offset == 12)
            #expect(error?.message.hasPrefix("btsnoop datalink \(datalink) (\(name)) is not supported") == true)
        }
        var version2 = SampleCaptures.btsnoopH4.bytes
        version2[11] = 2
        #expect(readAll(bytes: version2).error?.kind == .unsupported)
    }

    @Test("PacketLogger: a length below 8 or absurd in the middle", arguments: [UInt32(5), 0x0100_0000])
    func packetLoggerBadLength(_ length: UInt32) throws {
        // Six records (the sample twice); record 5 @71 damaged. Detection needs a run of 3 valid records.
        var bytes = SampleCaptures.packetLoggerLE.bytes + SampleCaptures.packetLoggerLE.bytes
        bytes.replaceSubrange(71..<75, with: [UInt8].le32(length))
        let (records, error) = try readExpectingError(bytes)
        #expect(records.count == 4)
        #expect(error.kind == .corrupt && error.offset == 71)
        #expect(error.message == "record 5: length \(length) is impossible (must be 8...65549)")
        // Damage in record 2 of 3 leaves too little to call the file PacketLogger.
        var early = SampleCaptures.packetLoggerLE.bytes
        early.replaceSubrange(18..<22, with: [UInt8].le32(length))
        #expect(readAll(bytes: early).error?.kind == .unknownFormat)
    }

    @Test("PacketLogger: truncated last record")
    func packetLoggerTruncated() {
        let result = readAll(bytes: Array(SampleCaptures.packetLoggerBE.bytes.dropLast(1)))
        #expect(result.records.count == 2)
        #expect(result.warnings.map(\.message) == ["truncated record at byte 34 (file ends after 18 of 19 bytes)"])
    }

    @Test("pcap: impossible capture length in the middle")
    func pcapCorrupt() throws {
        var bytes = SampleCaptures.pcapH4WithPHDR.bytes
        bytes.replaceSubrange(56..<60, with: [UInt8].le32(0x7FFF_FFFF))  // record 2 @48: caplen
        let (records, error) = try readExpectingError(bytes)
        #expect(records.count == 1)
        #expect(error.kind == .corrupt && error.offset == 48)
        #expect(error.message.hasPrefix("record 2: libpcap: "))
    }

    /// libpcap stops at a packet block naming an interface its section never described; the
    /// error names that block, not a damaged block after it (FuzzCaptureReaders' corpus: "byte 88"
    /// for the packet block at byte 48, when 32 MB of zeros followed it).
    @Test("pcapng: a packet on an undescribed interface is the damage, not the next bad block")
    func pcapngUndescribedInterface() throws {
        // SHB (28 bytes): type, length 28, byte-order magic, version 1.0, section length -1, length
        var bytes: [UInt8] = [0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0]
        bytes += [UInt8](repeating: 0xFF, count: 8)
        bytes += [28, 0, 0, 0]
        // IDB @28 (20 bytes): type 1, length 20, LINKTYPE 201, reserved, snaplen 0, length
        bytes += [1, 0, 0, 0, 20, 0, 0, 0, 201, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0]
        // EPB @48 (40 bytes): type 6, length 40, interface 5 (undescribed), timestamp 0 (8 bytes),
        // captured 8, original 8, direction 1 + HCI event 04 0E 01 00, length
        bytes += [6, 0, 0, 0, 40, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0]
        bytes += [0, 0, 0, 1, 0x04, 0x0E, 0x01, 0x00, 40, 0, 0, 0]
        // @88: 12 zero bytes, a block of Block Total Length 0
        bytes += [UInt8](repeating: 0, count: 12)
        let (records, error) = try readExpectingError(bytes)
        #expect(records.isEmpty)
        #expect(error.kind == .corrupt && error.offset == 48, "\(error)")
        #expect(error.message.contains("interface 5"))
    }

    @Test("pcap and pcapng: truncated last record is a warning")
    func pcapTruncated() {
        let pcap = readAll(bytes: Array(SampleCaptures.pcapH4WithPHDR.bytes.dropLast(3)))
        #expect(pcap.error == nil && pcap.records.count == 1)
        #expect(pcap.warnings.map(\.message) == ["truncated record at byte 48 (file ends after 24 of 27 bytes)"])
        let pcapng = readAll(bytes: Array(SampleCaptures.pcapngH4WithPHDR.bytes.dropLast(3)))
        #expect(pcapng.error == nil && pcapng.records.count == 1)
        #expect(pcapng.warnings.map(\.message) == ["truncated record at byte 88 (file ends after 41 of 44 bytes)"])
    }

    @Test("a real Android capture cut mid-record keeps every complete record")
    func realCaptureCut() throws {
        let bytes = try readFile(TestFiles.capture("android-yeelock.btsnoop"))
        let full = readAll(bytes: bytes).records
        let cut = readAll(bytes: Array(bytes.dropLast(10)))
        #expect(cut.error == nil)
        #expect(cut.records.count == full.count - 1)
        let last = try #require(full.last)
        #expect(cut.warnings.map(\.offset) == [last.fileOffset])
    }
}
