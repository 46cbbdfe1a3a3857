@testable import BLECapture
import Foundation
import Testing

/// Zips whose end is missing or damaged (a bugreport cut short by an interrupted download):
/// libzip cannot read their central directory, so the members are read from their local
/// headers up to the damage. The zips are built from APPNOTE.TXT (`ZipFixtures`) and cut at
/// every byte; what each member yields is worked out from the layout and zlib, not written down.
@Suite("zips cut short or damaged at the end")
struct TruncatedZipTests {
    static let logDirectory = "FS/data/misc/bluetooth/logs/"
    static let members: [(name: String, data: [UInt8])] = [
        ("version.txt", Array("2.0".utf8)),
        (logDirectory + "btsnoop_hci.log", pseudoCapture(seed: 1, count: 700)),
        (logDirectory + "btsnoop_hci.log.last", pseudoCapture(seed: 2, count: 500)),
    ]

    /// Bytes that deflate a little and differ member to member (a log by its name needs no
    /// particular content).
    static func pseudoCapture(seed: UInt32, count: Int) -> [UInt8] {
        var state = seed &* 2_654_435_761
        return (0..<count).map { i in
            state = state &* 1_103_515_245 &+ 12345
            return i % 3 == 0 ? UInt8(truncatingIfNeeded: i / 7) : UInt8(truncatingIfNeeded: state >> 24) & 0x0F
        }
    }

    /// A member read to its end through `BugreportLog.source()`.
    struct Read {
        var bytes: [UInt8] = []
        var error: CaptureError?
        var cut: CaptureWarning?
    }

    static func read(_ log: BugreportLog) -> Read {
        var result = Read()
        do throws(CaptureError) {
            let source = try log.source()
            var chunk = [UInt8](repeating: 0, count: 97)
            while true {
                let n = try chunk.withUnsafeMutableBytes { buffer in
                    Result { () throws(CaptureError) -> Int in try source.read(into: buffer) }
                }.get()
                if n == 0 { break }
                result.bytes += chunk[0..<n]
            }
            result.cut = source.cutWarning
        } catch {
            result.error = error
        }
        return result
    }

    /// What member `index` yields from a zip cut at `cut`, from its layout: nothing before its
    /// data begins, all of it once its data is whole; in between, stored bytes up to the cut,
    /// or what zlib inflates from the deflated bytes up to the cut. A stored member without
    /// sizes whose descriptor the cut reaches is read to the end of the file.
    static func expectedYield(_ zip: ZipFixtures.Zip, index: Int, cut: Int, method: UInt16,
                              sizes: ZipFixtures.Sizes) -> (bytes: [UInt8], isCut: Bool)? {
        let layout = zip.layouts[index]
        guard cut >= layout.dataOffset else { return nil }
        if method == 0, sizes != .inHeader, cut < layout.end {
            return (Array(zip.bytes[layout.dataOffset..<cut]), true)
        }
        if cut >= layout.dataEnd { return (members[index].data, false) }
        let part = Array(zip.bytes[layout.dataOffset..<cut])
        return (method == 0 ? part : ZipFixtures.inflateRawPrefix(part).bytes, true)
    }

    static let cases: [(UInt16, ZipFixtures.Sizes)] = [
        (0, .inHeader), (8, .inHeader), (0, .signedDescriptor), (8, .signedDescriptor),
        (8, .unsignedDescriptor), (0, .zip64Descriptor), (8, .zip64Descriptor),
    ]

    /// Every prefix of the zip: each member whose data begins before the cut yields what the
    /// layout says, a member the cut reaches ends there with a warning at that byte, the zip's
    /// warning names the byte where the damage begins, and nothing throws but "no log".
    @Test("every prefix of a zip reads as its layout says", arguments: cases)
    func everyPrefix(method: UInt16, sizes: ZipFixtures.Sizes) throws {
        let zip = ZipFixtures.zip(Self.members, method: method, sizes: sizes)
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let path = directory + "/bugreport.zip"
        for cut in 0...zip.bytes.count {
            try writeFile(path, Array(zip.bytes[0..<cut]))
            let expected = (1..<Self.members.count).compactMap { index -> (String, [UInt8], Bool)? in
                guard let (bytes, isCut) = Self.expectedYield(zip, index: index, cut: cut, method: method, sizes: sizes),
                      !bytes.isEmpty else { return nil }
                return (Self.members[index].name, bytes, isCut)
            }
            let opened: BugreportZip
            do {
                opened = try BugreportZip.open(path)
            } catch {
                #expect(expected.isEmpty, "cut \(cut): \(error)")
                continue
            }
            #expect(opened.logs.map(\.member) == expected.map(\.0), "cut \(cut)")
            if cut == zip.bytes.count {
                #expect(opened.warnings.isEmpty)
                #expect(opened.logs.allSatisfy { if case .directory = $0.location { true } else { false } })
            } else {
                // The damage begins at the cut, or at the central directory when the cut is in it.
                let damage = cut >= zip.centralDirectoryOffset + 4 ? zip.centralDirectoryOffset : cut
                #expect(opened.warnings.count == 1, "cut \(cut)")
                #expect(opened.warnings.first?.hasPrefix("\(path): the zip's central directory cannot be read (libzip: ") == true)
                #expect(opened.warnings.first?.contains("cut short or damaged at or after byte \(damage), where ") == true,
                        "cut \(cut): \(opened.warnings)")
            }
            for (log, (name, bytes, isCut)) in Swift.zip(opened.logs, expected) {
                let read = Self.read(log)
                #expect(read.error == nil, "cut \(cut) \(name): \(String(describing: read.error))")
                let same = read.bytes == bytes
                #expect(same, "cut \(cut) \(name): \(read.bytes.count) bytes, expected \(bytes.count)")
                #expect(log.size == UInt64(bytes.count) || !isCut, "cut \(cut) \(name)")
                #expect(read.cut?.offset == (isCut ? bytes.count : nil), "cut \(cut) \(name)")
                #expect(read.cut.map { $0.message.hasPrefix("the zip is cut short at byte \(cut), inside this member") } ?? true)
                if cut < zip.bytes.count, case .localHeader(let member) = log.location {
                    let index = Self.members.firstIndex { $0.name == name } ?? 0
                    #expect(member.headerOffset == UInt64(zip.layouts[index].headerOffset))
                } else if cut < zip.bytes.count {
                    Issue.record("cut \(cut): \(name) is not found by its local header")
                }
            }
        }
    }

    /// A member the cut reaches is read by the capture readers as a file cut short: the records
    /// before the cut, then a warning, no error.
    @Test func aCutMemberReadsAsACaptureCutShort() throws {
        let capture = try readFile(TestFiles.capture("android-yeelock.btsnoop"))
        let zip = ZipFixtures.zip([(Self.logDirectory + "btsnoop_hci.log", capture)], method: 8, sizes: .signedDescriptor)
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let path = directory + "/bugreport.zip"
        let layout = zip.layouts[0]
        let cut = layout.dataOffset + layout.compressedLength / 2
        try writeFile(path, Array(zip.bytes[0..<cut]))
        let yielded = ZipFixtures.inflateRawPrefix(Array(zip.bytes[layout.dataOffset..<cut])).bytes
        let plain = readAll(bytes: Array(capture[0..<yielded.count]))
        let log = try #require(try BugreportZip.open(path).logs.first)
        var reader = try log.reader()
        let result = drain(&reader)
        #expect(result.error == nil)
        #expect(result.records.count == plain.records.count)
        #expect(result.records.count > 0 && result.records.count < readAll(bytes: capture).records.count)
        #expect(result.warnings.dropLast() == plain.warnings[...])
        #expect(result.warnings.last == CaptureWarning(offset: yielded.count, message:
            "the zip is cut short at byte \(cut), inside this member: its bytes end at byte \(yielded.count)"))
    }

    // MARK: hostile input: never a crash, never unbounded memory

    /// A local header whose name runs past the end of the file: no member, the byte said.
    @Test func aHeaderWhoseNameRunsPastTheFile() throws {
        var bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0x58]
        bytes += [UInt8](repeating: 0, count: 12) + .le16(0xFFFF) + .le16(0xFFFF) + Array("FS/data".utf8)
        let error = try #require(throws: CaptureError.self) { try BugreportZip.open(try Self.write(bytes)) }
        #expect(error.kind == .corrupt)
        #expect(error.message.contains("no member could be read from its local file headers: at byte \(bytes.count), "
                                       + "the file ends inside the local file header of member 1, which begins at byte 0"),
                "\(error)")
    }

    /// Sizes that lie: a stored member declaring almost 4 GiB is read up to the end of the file,
    /// in chunks, as a member the cut reaches.
    @Test func sizesThatLieAreReadOnlyAsFarAsTheFile() throws {
        let zip = ZipFixtures.zip([(Self.logDirectory + "btsnoop_hci.log", Self.pseudoCapture(seed: 3, count: 5000))],
                                  method: 0, sizes: .inHeader)
        var bytes = Array(zip.bytes[0..<zip.centralDirectoryOffset])
        bytes.replaceSubrange(18..<26, with: [UInt8].le32(0xFFFF_FFF0) + .le32(0xFFFF_FFF0))
        let opened = try BugreportZip.open(try Self.write(bytes))
        let log = try #require(opened.logs.first)
        #expect(log.size == UInt64(5000))
        let read = Self.read(log)
        let same = read.bytes == Array(bytes[zip.layouts[0].dataOffset...])
        #expect(same)
        #expect(read.cut?.offset == 5000)
    }

    /// A deflate bomb without sizes: inflating to find its end stops at the ratio limit, and the
    /// member is refused as the central directory path refuses one.
    @Test func aBombWithoutSizesIsRefusedWithoutInflatingIt() throws {
        let zeros = [UInt8](repeating: 0, count: 2 << 20)
        let zip = ZipFixtures.zip([(Self.logDirectory + "btsnoop_hci.log", zeros)], method: 8, sizes: .signedDescriptor)
        let path = try Self.write(Array(zip.bytes[0..<zip.centralDirectoryOffset]))
        let error = try #require(throws: CaptureError.self) { try BugreportZip.open(path) }
        #expect(error.path == "\(path)!\(Self.logDirectory)btsnoop_hci.log")
        #expect(error.message.hasPrefix("zip member inflates to "))
        #expect(error.message.hasSuffix("a ratio over 200:1 that only a zip bomb reaches: refused"))
        // It stopped within one output chunk of the ratio floor, not at the 2 MiB.
        let walk = try ZipArchive(path: path).entries(limit: 10)
        #expect(walk[0].size > BugreportZip.Limits.ratioFloor && walk[0].size < BugreportZip.Limits.ratioFloor + (1 << 19))
    }

    /// More members than the limit are refused, as the central directory path refuses them.
    @Test func membersOverTheLimitAreRefused() throws {
        let many = (0..<12).map { (name: "m\($0).txt", data: Array("x".utf8)) }
        let zip = ZipFixtures.zip(many, method: 0, sizes: .inHeader)
        let path = try Self.write(Array(zip.bytes[0..<zip.centralDirectoryOffset]))
        #expect(try ZipArchive(path: path).entries(limit: 12).count == 12)
        let error = try #require(throws: CaptureError.self) { try ZipArchive(path: path).entries(limit: 11) }
        #expect(error.message == "the zip holds more than 11 members, more than a bugreport can hold: refused")
    }

    /// Bytes that are no local header after a member: the walk stops there, saying so.
    @Test func bytesThatAreNoHeaderEndTheWalk() throws {
        let zip = ZipFixtures.zip(Array(Self.members[1...]), method: 8, sizes: .inHeader)
        let second = zip.layouts[1].headerOffset
        var bytes = Array(zip.bytes[0..<zip.centralDirectoryOffset])
        bytes.replaceSubrange(second..<(second + 4), with: [0xDE, 0xAD, 0xBE, 0xEF])
        let path = try Self.write(bytes)
        let opened = try BugreportZip.open(path)
        #expect(opened.logs.map(\.member) == [Self.members[1].name])
        #expect(opened.warnings.first?.contains("at or after byte \(second), where no local file header follows the data of "
            + "\(Self.members[1].name) (bytes DE AD BE EF instead of 50 4B 03 04)") == true, "\(opened.warnings)")
    }

    /// A damaged deflate stream in a member without sizes: its end cannot be found, so the walk
    /// stops there; the member gives the bytes zlib inflates before the damage, then `.corrupt`.
    @Test func aDamagedStreamWithoutSizesEndsTheWalk() throws {
        let capture = try readFile(TestFiles.capture("android-yeelock.btsnoop"))
        let zip = ZipFixtures.zip([(Self.logDirectory + "btsnoop_hci.log", capture), (Self.logDirectory + "btsnoop_hci.log.last", capture)],
                                  method: 8, sizes: .signedDescriptor)
        var bytes = Array(zip.bytes[0..<zip.centralDirectoryOffset])
        // Damage zlib rejects, found from the middle of the data on with zlib itself.
        let layout = zip.layouts[0]
        let damage = try #require((layout.dataOffset + layout.compressedLength / 2..<layout.dataEnd - 8).lazy.map { at in
            var damaged = Array(bytes[layout.dataOffset..<layout.dataEnd])
            damaged.replaceSubrange((at - layout.dataOffset)..<(at - layout.dataOffset + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
            return (at, damaged)
        }.first { ZipFixtures.inflateRawPrefix($0.1).failed })
        bytes.replaceSubrange(layout.dataOffset..<layout.dataEnd, with: damage.1)
        let path = try Self.write(bytes)
        let opened = try BugreportZip.open(path)
        #expect(opened.logs.map(\.member) == [Self.logDirectory + "btsnoop_hci.log"])
        #expect(opened.warnings.first?.contains("the deflate stream of \(Self.logDirectory)btsnoop_hci.log is damaged (zlib: ") == true,
                "\(opened.warnings)")
        let read = Self.read(opened.logs[0])
        let error = try #require(read.error)
        #expect(error.kind == .corrupt)
        #expect(error.offset == read.bytes.count)
        // What zlib inflates before it finds the damage, and nothing after.
        let good = read.bytes == ZipFixtures.inflateRawPrefix(damage.1).bytes
        #expect(read.bytes.count > 0 && good)
    }

    /// A byte changed in a whole member: its CRC-32 no longer matches the local header's or the
    /// data descriptor's, and reading it ends with `.corrupt` at its end, as libzip's CRC check does.
    @Test(arguments: [(UInt16(0), ZipFixtures.Sizes.inHeader), (0, .signedDescriptor), (8, .zip64Descriptor)])
    func aCRCThatDoesNotMatchIsDamage(method: UInt16, sizes: ZipFixtures.Sizes) throws {
        let data = Self.members[1].data
        let zip = ZipFixtures.zip([(Self.members[1].name, data)], method: method, sizes: sizes)
        var bytes = Array(zip.bytes[0..<zip.centralDirectoryOffset])
        if method == 0 {
            bytes[zip.layouts[0].dataOffset + 100] ^= 0x01
        } else {
            // The descriptor's CRC-32, after its signature.
            bytes[zip.layouts[0].dataEnd + 4] ^= 0x01
        }
        let opened = try BugreportZip.open(try Self.write(bytes))
        let read = Self.read(try #require(opened.logs.first))
        #expect(read.bytes.count == data.count)
        let error = try #require(read.error)
        #expect(error.kind == .corrupt)
        #expect(error.offset == data.count)
        #expect(error.message.hasPrefix("damaged zip member: its bytes have CRC-32 "), "\(error)")
    }

    /// A stored member without sizes and without a signed data descriptor: read to the end of
    /// the file, where the walk stops, saying so.
    @Test func aStoredMemberWithoutSizesOrSignedDescriptorIsReadToTheEnd() throws {
        let zip = ZipFixtures.zip(Array(Self.members[1...]), method: 0, sizes: .unsignedDescriptor)
        let path = try Self.write(Array(zip.bytes[0..<zip.centralDirectoryOffset]))
        let opened = try BugreportZip.open(path)
        #expect(opened.logs.map(\.member) == [Self.members[1].name])
        #expect(opened.warnings.first?.contains("\(Self.members[1].name) is stored without sizes in its local header and no data "
            + "descriptor giving its size follows it: it was read to the end of the file") == true, "\(opened.warnings)")
        let read = Self.read(opened.logs[0])
        let same = read.bytes == Array(zip.bytes[zip.layouts[0].dataOffset..<zip.centralDirectoryOffset])
        #expect(same)
    }

    /// Not a zip after all: a file that begins with no local header is refused with libzip's reason.
    @Test func withoutALocalHeaderLibzipsReasonStands() throws {
        let error = try #require(throws: CaptureError.self) { try BugreportZip.open(try Self.write(Array("PK\u{5}\u{6}".utf8) + [0, 0])) }
        #expect(error.message == "not a readable zip archive (libzip: Not a zip archive)")
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = try makeTemporaryDirectory() + "/bugreport.zip"
        try writeFile(path, bytes)
        return path
    }
}
