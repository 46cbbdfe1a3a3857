import BLECapture
import BLECore
import Foundation
import Testing

/// The format comes from the bytes, never the name; failures name the file and say why.
@Suite("Format detection")
struct DetectionTests {
    @Test("detect(prefix:) recognises each format's first bytes")
    func detectPrefix() throws {
        #expect(CaptureFile.detect(prefix: Array("btsnoop\0".utf8)) == .btsnoop)
        #expect(CaptureFile.detect(prefix: [0xA1, 0xB2, 0xC3, 0xD4]) == .pcap)
        #expect(CaptureFile.detect(prefix: [0xD4, 0xC3, 0xB2, 0xA1]) == .pcap)
        #expect(CaptureFile.detect(prefix: [0xA1, 0xB2, 0x3C, 0x4D]) == .pcap)  // nanosecond pcap
        #expect(CaptureFile.detect(prefix: [0x4D, 0x3C, 0xB2, 0xA1]) == .pcap)
        #expect(CaptureFile.detect(prefix: [0x0A, 0x0D, 0x0D, 0x0A]) == .pcapng)
        #expect(CaptureFile.detect(prefix: SampleCaptures.packetLoggerLE.bytes) == .packetLogger)
        #expect(CaptureFile.detect(prefix: SampleCaptures.packetLoggerBE.bytes) == .packetLogger)
        #expect(CaptureFile.detect(prefix: try SampleCaptures.bugreport(version: 1)) == .btsnooz)
        #expect(CaptureFile.detect(prefix: []) == nil)
        #expect(CaptureFile.detect(prefix: Array("btsnoo".utf8)) == nil)
        #expect(CaptureFile.detect(prefix: Array("hello world, this is text\n".utf8)) == nil)
        #expect(CaptureFile.detect(prefix: [UInt8](repeating: 0, count: 64)) == nil)
    }

    @Test("the file name does not matter", arguments: [
        ("android-yeelock.btsnoop", "capture.pcap", CaptureFormat.btsnoop),
        ("android-yeelock.btsnoop", "btsnoop_hci.log", .btsnoop),
        ("android-lock-long-session.btsnoop", "hci_snoop20250125165300.cfa", .btsnoop),
        ("ios-glasses.pklg", "trace.btsnoop", .packetLogger),
        ("scale-h4-phdr.pcap", "hci.pklg", .pcap),
        ("smartwatch-h4-phdr.pcapng", "noextension", .pcapng),
    ])
    func nameIndependent(_ source: String, _ name: String, _ format: CaptureFormat) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let path = directory + "/" + name
        try writeFile(path, try readFile(TestFiles.capture(source)))
        let result = readAll(path: path)
        #expect(result.info?.format == format)
        #expect(result.records.count == readAll(path: TestFiles.capture(source)).records.count)
    }

    @Test("empty, missing, directory, unknown")
    func failures() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let empty = directory + "/empty.log"
        try writeFile(empty, [])
        let emptyError = readAll(path: empty).error
        #expect(emptyError?.kind == .empty)
        #expect(emptyError?.description == "\(empty): byte 0: file is empty")

        let missing = directory + "/missing.btsnoop"
        let missingError = readAll(path: missing).error
        #expect(missingError?.kind == .unreadable && missingError?.offset == nil)
        #expect(missingError?.description == "\(missing): cannot open: No such file or directory")

        #expect(readAll(path: directory).error?.kind == .unreadable)

        let binary = directory + "/random.bin"
        try writeFile(binary, (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        let unknown = readAll(path: binary).error
        #expect(unknown?.kind == .unknownFormat)
        #expect(unknown?.message.hasPrefix("unknown capture format (first bytes 0d ") == true, "\(String(describing: unknown))")

        let zip = directory + "/bugreport.zip"
        try writeFile(zip, [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 60))
        #expect(readAll(path: zip).error?.message.hasPrefix("a ZIP archive") == true)
    }

    /// A pcap header with the given link type and one 8-byte packet.
    func pcap(linkType: UInt32, packet: [UInt8]) -> [UInt8] {
        // magic (LE), version 2.4, zone 0, sigfigs 0, snaplen 65535, link type
        [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00] + .le32(0) + .le32(0) + .le32(65535) + .le32(linkType)
            // seconds, µs, caplen, len
            + .le32(1_700_000_000) + .le32(0) + .le32(UInt32(packet.count)) + .le32(UInt32(packet.count)) + packet
    }

    @Test("non-Bluetooth and BR/EDR air link types are refused, saying what the file is; LE air is read")
    func unsupportedLinkTypes() throws {
        let hint = "; blereplay reads HCI captures (btsnoop, pcap 187/201/254, PacketLogger) and LE air captures (pcap 251/256/272, or PPI 192 around 251/256)"
        let ethernet = readAll(bytes: pcap(linkType: 1, packet: [UInt8](repeating: 0, count: 14))).error
        #expect(ethernet?.kind == .unsupported)
        #expect(ethernet?.message == "pcap with LINKTYPE_ETHERNET (1) is not a Bluetooth HCI capture" + hint)

        // LE air captures are read (BLEDecode decodes them): the frame whole, the link type as rawType.
        let leLL = readAll(bytes: pcap(linkType: 251, packet: [0xD6, 0xBE, 0x89, 0x8E, 0x00, 0x00]))
        #expect(leLL.error == nil)
        #expect(leLL.records.map(\.payload) == [[0xD6, 0xBE, 0x89, 0x8E, 0x00, 0x00]])
        #expect(leLL.records.first?.kind == .other && leLL.records.first?.rawType == 251)

        // PPI header (PPI spec 1.0.10 section 3): version 0, flags 0, length 8 (LE), DLT 251 (LE),
        // then an LE LL packet: read as that packet under LINKTYPE 251, its offset after the header
        // (pcap file header 24 + record header 16 + PPI 8).
        let ppi = readAll(bytes: pcap(linkType: 192, packet: [0x00, 0x00, 0x08, 0x00] + .le32(251) + [0xD6, 0xBE]))
        #expect(ppi.error == nil)
        #expect(ppi.records.map(\.payload) == [[0xD6, 0xBE]])
        #expect(ppi.records.first?.kind == .other && ppi.records.first?.rawType == 251)
        #expect(ppi.records.first?.fileOffset == 24 + 8)
        // PPI around 802.11 (DLT 105): refused at its first record, saying what it wraps.
        let wifi = readAll(bytes: pcap(linkType: 192, packet: [0x00, 0x00, 0x08, 0x00] + .le32(105) + [0x80, 0x00])).error
        #expect(wifi?.kind == .unsupported)
        #expect(wifi?.message == "record 1: pcap with LINKTYPE_PPI (192) wrapping LINKTYPE_IEEE802_11 (105); blereplay reads "
            + "PPI around LE link-layer packets (251/256), HCI captures (btsnoop, pcap 187/201/254, PacketLogger) and LE air "
            + "captures (pcap 251/256/272, or PPI 192 around 251/256)")
        // A PPI length beyond the frame is no PPI header.
        let bad = readAll(bytes: pcap(linkType: 192, packet: [0x00, 0x00, 0x20, 0x00] + .le32(251) + [0xD6, 0xBE])).error
        #expect(bad?.message.hasPrefix("record 1: LINKTYPE_PPI (192) frame without a valid PPI header") == true)

        let bredr = readAll(bytes: pcap(linkType: 255, packet: [0, 0, 0, 0])).error
        #expect(bredr?.message.hasPrefix("a Bluetooth BR/EDR baseband (air) capture") == true)
    }

    @Test("CaptureError descriptions")
    func errorDescription() {
        #expect(CaptureError(path: "a.log", offset: 12, kind: .corrupt, message: "bad").description == "a.log: byte 12: bad")
        #expect(CaptureError(path: "a.log", kind: .unreadable, message: "gone").description == "a.log: gone")
    }

    @Test("btsnoop streams through a pipe (stdin-style source)")
    func pipeSource() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let bytes = SampleCaptures.btsnoopMonitor.bytes
        bytes.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        let source = FileDescriptorSource(fileDescriptor: fds[0], name: "<stdin>", closesOnDeinit: true)
        var reader = try CaptureFile.open(source: source)
        let result = drain(&reader)
        #expect(result.records.count == 3)
        #expect(reader.path == "<stdin>")
        #expect(result.bytesRead == bytes.count)
    }
}
