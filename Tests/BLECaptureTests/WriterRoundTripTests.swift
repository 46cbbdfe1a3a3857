import BLECapture
import BLECore
import Testing

/// Read a real capture, write it, read it back: the same records.
@Suite("Writer round trips")
struct WriterRoundTripTests {
    static let h4Captures = [
        "android-classic-spp.btsnoop", "android-lock-long-session.btsnoop", "android-lock-pairing.btsnoop",
        "android-pongbot.btsnoop", "android-yeelock.btsnoop",
    ]

    @Test("btsnoop H4 -> BtsnoopWriter 1002: same records, same bytes", arguments: h4Captures)
    func btsnoopH4(_ name: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let source = TestFiles.capture(name)
        let original = readAll(path: source)
        let output = directory + "/out.btsnoop"
        let writer = try BtsnoopWriter(path: output)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output)
        #expect(copy.error == nil && copy.warnings.isEmpty)
        #expect(copy.records.map { RecordView(record: $0, includeOffsets: true) }
            == original.records.map { RecordView(record: $0, includeOffsets: true) })
        // Android's flags are exactly direction | command/event, so the file comes back byte for byte.
        #expect(try readFile(output) == readFile(source))
    }

    @Test("btmon monitor -> BtsnoopWriter 2001: same records")
    func btsnoopMonitor() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let original = readAll(path: TestFiles.capture("btmon-monitor.btsnoop"))
        let output = directory + "/out.btsnoop"
        let writer = try BtsnoopWriter(path: output, datalink: 2001)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output)
        #expect(copy.error == nil)
        #expect(copy.info?.linkType == 2001)
        #expect(copy.records.map { RecordView(record: $0, includeOffsets: true) }
            == original.records.map { RecordView(record: $0, includeOffsets: true) })
    }

    @Test("monitor -> PcapWriter 254: same records")
    func pcapMonitor() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let original = readAll(path: TestFiles.capture("btmon-monitor.btsnoop"))
        let output = directory + "/out.pcap"
        let writer = try PcapWriter(path: output, linkType: 254)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output)
        #expect(copy.error == nil)
        #expect(copy.info?.format == .pcap && copy.info?.linkType == 254)
        #expect(copy.records.map { RecordView(record: $0, includeOffsets: false) }
            == original.records.map { RecordView(record: $0, includeOffsets: false) })
    }

    @Test("pcap/pcapng 201 -> PcapWriter 201: same records",
          arguments: ["scale-h4-phdr.pcap", "smartwatch-h4-phdr.pcapng"])
    func pcapH4(_ name: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let source = TestFiles.capture(name)
        let original = readAll(path: source)
        let output = directory + "/out.pcap"
        let writer = try PcapWriter(path: output)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output)
        #expect(copy.error == nil && copy.warnings.isEmpty)
        #expect(copy.info?.format == .pcap && copy.info?.linkType == 201)
        // A classic pcap written from a classic pcap keeps every offset too.
        let sameOffsets = name.hasSuffix(".pcap")
        #expect(copy.records.map { RecordView(record: $0, includeOffsets: sameOffsets) }
            == original.records.map { RecordView(record: $0, includeOffsets: sameOffsets) })
        if sameOffsets { #expect(try readFile(output) == readFile(source)) }
    }

    @Test("every HCI capture -> btsnoop H4 and pcap 201 -> the same packets", arguments: [
        "android-yeelock.btsnoop", "btmon-monitor.btsnoop", "ios-glasses.pklg", "ios-glasses-app-control.pklg",
        "scale-h4-phdr.pcap", "smartwatch-h4-phdr.pcapng",
    ])
    func crossFormat(_ name: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let original = readAll(path: TestFiles.capture(name))
        let packets = original.records.filter { $0.kind != .note && $0.kind != .other }.map(PacketView.init)
        #expect(!packets.isEmpty)

        let btsnoop = directory + "/out.btsnoop"
        let btsnoopWriter = try BtsnoopWriter(path: btsnoop)
        let pcap = directory + "/out.pcap"
        let pcapWriter = try PcapWriter(path: pcap, linkType: 201)
        for record in original.records {
            try btsnoopWriter.write(record)
            try pcapWriter.write(record)
        }
        try btsnoopWriter.close()
        try pcapWriter.close()
        #expect(btsnoopWriter.recordsWritten == packets.count)
        #expect(pcapWriter.recordsWritten == packets.count)
        #expect(readAll(path: btsnoop).records.map(PacketView.init) == packets)
        #expect(readAll(path: pcap).records.map(PacketView.init) == packets)
    }

    @Test("PacketLogger -> BtsnoopWriter 2001 keeps notes as System Notes")
    func packetLoggerNotesToMonitor() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let original = readAll(path: TestFiles.capture("ios-glasses.pklg"))
        let output = directory + "/out.btsnoop"
        let writer = try BtsnoopWriter(path: output, datalink: 2001)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output).records
        #expect(copy.count == original.records.count)
        // A System Note is text up to its NUL: PacketLogger notes padded with NULs lose the padding.
        func text(_ record: CaptureRecord) -> [UInt8] {
            record.kind == .note ? Array(record.payload.reversed().drop { $0 == 0 }.reversed()) : record.payload
        }
        let mismatches = zip(copy, original.records).filter { text($0) != text($1) || $0.kind != $1.kind }
        #expect(mismatches.isEmpty)
        #expect(copy.first?.rawType == MonitorOpcode.systemNote.rawValue)
    }

    @Test("writers refuse link types they cannot write")
    func unsupportedLinkTypes() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        #expect(throws: CaptureError.self) { try BtsnoopWriter(path: directory + "/a", datalink: 1004) }
        #expect(throws: CaptureError.self) { try PcapWriter(path: directory + "/b", linkType: 272) }
        do {
            _ = try BtsnoopWriter(path: directory + "/missing/dir/x.btsnoop")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unwritable)
            #expect(error.description.hasPrefix(directory + "/missing/dir/x.btsnoop: cannot create: "))
        }
    }

    @Test("H1 (1001) round trip keeps commands, events and ACL")
    func btsnoopH1() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let original = readAll(path: TestFiles.capture("android-lock-pairing.btsnoop"))
        let output = directory + "/h1.btsnoop"
        let writer = try BtsnoopWriter(path: output, datalink: 1001)
        for record in original.records { try writer.write(record) }
        try writer.close()
        let copy = readAll(path: output)
        #expect(copy.info?.linkType == 1001)
        #expect(copy.records.map(PacketView.init) == original.records.map(PacketView.init))
    }
}
