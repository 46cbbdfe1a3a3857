import BLECore
import CZlib

/// Where a reader finds a zip member again when it opens the zip anew (`BugreportLog.source()`).
public enum ZipMemberLocation: Sendable, Hashable {
    /// Its index in the central directory, read through libzip.
    case directory(index: UInt64)
    /// Its local file header, in a zip read without its central directory (cut short or damaged).
    case localHeader(ZipLocalMember)
}

/// A member found by walking a zip's local file headers: where its header is, and how much of
/// its data the walk found in the file.
public struct ZipLocalMember: Sendable, Hashable {
    /// Byte offset of its local file header (`PK\3\4`) in the zip.
    public var headerOffset: UInt64
    /// Bytes of its (compressed) data in the file: to its end, or to the end of the file when
    /// the file ends inside it.
    public var dataLength: UInt64
    /// The file ends inside its data (or, for a stored member without sizes, no data descriptor
    /// was found: it is read to the end of the file).
    public var isCut: Bool
    /// The CRC-32 its data descriptor gives, for a member without one in its local header (general
    /// purpose bit 3); nil when no descriptor was read.
    public var descriptorCRC: UInt32? = nil
}

/// A local file header (PKWARE APPNOTE.TXT 4.3.7), with the ZIP64 sizes of its extra field
/// (4.5.3) when the 32-bit ones are 0xFFFFFFFF.
///
/// ```
/// signature 50 4B 03 04 | version u16 | flags u16 | method u16 | time u16 | date u16 |
/// crc-32 u32 | compressed size u32 | uncompressed size u32 | name length u16 |
/// extra length u16 | name | extra
/// ```
/// All little-endian. With general purpose bit 3 (4.4.4) the CRC and sizes are zero here and a
/// data descriptor follows the data (4.3.9).
struct ZipLocalHeader {
    static let signature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    static let fixedLength = 30

    var offset: UInt64
    var flags: UInt16
    var method: UInt16
    var crc: UInt32
    var compressedSize: UInt64
    var size: UInt64
    var name: String
    var dataOffset: UInt64
    /// A ZIP64 extra field is present: a data descriptor after the data has 8-byte sizes.
    var isZip64: Bool

    var hasDataDescriptor: Bool { flags & 0x0008 != 0 }
    var isEncrypted: Bool { flags & 0x0001 != 0 }

    /// Why no header could be read at an offset.
    enum Failure: Error {
        /// The file ends inside the header (its fixed part, name or extra field).
        case cut
        /// The bytes there are no local file header signature.
        case notAHeader
        /// `pread` failed.
        case unreadable(String)
    }

    /// The header at `offset` of the open zip `fd`, whose size is `fileSize`.
    static func read(_ fd: Int32, at offset: UInt64, fileSize: UInt64) throws(Failure) -> ZipLocalHeader {
        let fixed = try bytes(fd, at: offset, count: fixedLength)
        guard fixed.count >= 4 else { throw .cut }
        guard fixed.starts(with: signature) else { throw .notAHeader }
        guard fixed.count == fixedLength else { throw .cut }
        var reader = ByteReader(fixed)
        let flags: UInt16, method: UInt16, crc: UInt32, compressed32: UInt32, size32: UInt32, nameLength: UInt16, extraLength: UInt16
        do {
            try reader.skip(6)
            flags = try reader.readUInt16(.little)
            method = try reader.readUInt16(.little)
            try reader.skip(4)
            crc = try reader.readUInt32(.little)
            compressed32 = try reader.readUInt32(.little)
            size32 = try reader.readUInt32(.little)
            nameLength = try reader.readUInt16(.little)
            extraLength = try reader.readUInt16(.little)
        } catch {
            throw .cut
        }
        let variable = Int(nameLength) + Int(extraLength)
        let dataOffset = offset + UInt64(fixedLength) + UInt64(variable)
        guard dataOffset <= fileSize else { throw .cut }
        let rest = try bytes(fd, at: offset + UInt64(fixedLength), count: variable)
        guard rest.count == variable else { throw .cut }
        var header = ZipLocalHeader(offset: offset, flags: flags, method: method, crc: crc, compressedSize: UInt64(compressed32),
                                    size: UInt64(size32), name: String(decoding: rest[0..<Int(nameLength)], as: UTF8.self),
                                    dataOffset: dataOffset, isZip64: false)
        header.readZip64(rest[Int(nameLength)...], size32: size32, compressed32: compressed32)
        return header
    }

    /// The ZIP64 extended information extra field (header ID 0x0001, APPNOTE 4.5.3): the
    /// uncompressed, then the compressed size, each only when its 32-bit field is 0xFFFFFFFF.
    private mutating func readZip64(_ extra: ArraySlice<UInt8>, size32: UInt32, compressed32: UInt32) {
        var reader = ByteReader(extra)
        while reader.remaining >= 4 {
            guard let id = try? reader.readUInt16(.little), let length = try? reader.readUInt16(.little),
                  var field = try? reader.subReader(Int(length)) else { return }
            guard id == 0x0001 else { continue }
            isZip64 = true
            if size32 == 0xFFFF_FFFF, let value = try? field.readUInt64(.little) { size = value }
            if compressed32 == 0xFFFF_FFFF, let value = try? field.readUInt64(.little) { compressedSize = value }
            return
        }
    }

    static func bytes(_ fd: Int32, at offset: UInt64, count: Int) throws(Failure) -> [UInt8] {
        guard let start = Int(exactly: offset) else { return [] }
        do {
            return try Syscall.preadBytes(fd, offset: start, count: count)
        } catch {
            throw .unreadable("\(error)")
        }
    }
}

/// A zip read front to back from its local file headers, for when libzip cannot read its
/// central directory (a bugreport cut short by an interrupted download or copy: the directory
/// and the end record sit at the end of the file).
///
/// Each member is taken from its local header in file order. With sizes in the header its
/// data is skipped; with general purpose bit 3 (sizes only in the data descriptor after the
/// data, as libziparchive's ZipWriter writes to a stream it cannot seek) a deflated member ends
/// where its raw deflate stream ends, found by inflating it (bounded by `BugreportZip.Limits`,
/// output discarded), and a stored one where a `PK\7\8` data descriptor gives the distance as
/// its size. The walk stops at the central directory, at the end of the file, or at the first
/// thing it cannot read past, and says which (`reason`).
struct ZipLocalWalk {
    var entries: [ZipArchive.Entry] = []
    /// Byte of the zip where the walk stopped.
    var stop: UInt64 = 0
    /// Why it stopped there.
    var reason = ""

    static let centralHeader: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    static let endRecords: [[UInt8]] = [[0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x06, 0x06], [0x50, 0x4B, 0x06, 0x07]]
    static let descriptorSignature: [UInt8] = [0x50, 0x4B, 0x07, 0x08]

    /// Walks the zip open as `fd`; more than `limit` members is refused, as the central
    /// directory path refuses them.
    static func walk(_ fd: Int32, fileSize: UInt64, path: String, limit: Int) throws(CaptureError) -> ZipLocalWalk {
        var walk = ZipLocalWalk()
        var offset: UInt64 = 0
        func end(_ at: UInt64, _ why: String) {
            walk.stop = at
            walk.reason = why
        }
        walking: while true {
            let label = "member \(walk.entries.count + 1)"
            if offset >= fileSize {
                end(fileSize, walk.entries.last.map { "the file ends after the data of \($0.name)" } ?? "the file ends")
                break
            }
            let head: [UInt8]
            do {
                head = try ZipLocalHeader.bytes(fd, at: offset, count: 4)
            } catch {
                throw unreadable(error, path: path)
            }
            if head.count < 4 {
                end(fileSize, "the file ends inside the signature of the record that begins at byte \(offset)")
                break
            }
            if head == centralHeader {
                end(offset, "the central directory begins, but libzip could not read it or the end record after it")
                break
            }
            if endRecords.contains(head) {
                end(offset, "an end of central directory record begins, but libzip could not read it")
                break
            }
            let header: ZipLocalHeader
            do {
                header = try ZipLocalHeader.read(fd, at: offset, fileSize: fileSize)
            } catch .cut {
                end(fileSize, "the file ends inside the local file header of \(label), which begins at byte \(offset)")
                break
            } catch .notAHeader {
                let shown = head.map { hexByte($0) }.joined(separator: " ")
                end(offset, "no local file header follows the data of \(walk.entries.last?.name ?? "the previous member") "
                    + "(bytes \(shown) instead of 50 4B 03 04)")
                break
            } catch {
                throw unreadable(error, path: path)
            }
            guard walk.entries.count < limit else {
                throw CaptureError(path: path, kind: .corrupt, message:
                    "the zip holds more than \(limit) members, more than a bugreport can hold: refused")
            }
            let available = fileSize - header.dataOffset
            var member = ZipLocalMember(headerOffset: offset, dataLength: 0, isCut: false)
            var entry = ZipArchive.Entry(location: .localHeader(member), name: header.name, size: header.size,
                                         compressedSize: header.compressedSize)
            func add(_ length: UInt64, cut: Bool, crc: UInt32? = nil) {
                member.dataLength = length
                member.isCut = cut
                member.descriptorCRC = crc
                entry.location = .localHeader(member)
                walk.entries.append(entry)
            }
            let cutHere = "the file ends inside the data of \(header.name)"
            if !header.hasDataDescriptor {
                if header.compressedSize <= available {
                    add(header.compressedSize, cut: false)
                    offset = header.dataOffset + header.compressedSize
                    continue
                }
                // Cut inside its data: it yields what the bytes there inflate to.
                entry.compressedSize = available
                if header.method == 8 {
                    let cap = min(header.size, BugreportZip.Limits.memberSize)
                    let m = measure(fd, from: header.dataOffset, available: available, cap: cap)
                    entry.size = m.produced
                    entry.compressedSize = m.consumed
                    entry.sizeIsDeclared = false
                } else {
                    entry.size = min(available, header.size)
                }
                add(available, cut: true)
                end(fileSize, cutHere)
                break
            }
            entry.sizeIsDeclared = false
            switch header.method {
            case 8:
                let m = measure(fd, from: header.dataOffset, available: available, cap: BugreportZip.Limits.memberSize)
                entry.size = m.produced
                entry.compressedSize = m.consumed
                switch m.end {
                case .ended:
                    guard let descriptor = skipDescriptor(fd, at: header.dataOffset + m.consumed, length: m.consumed,
                                                          zip64: header.isZip64, fileSize: fileSize) else {
                        add(m.consumed, cut: false)
                        end(fileSize, "the file ends inside the data descriptor of \(header.name)")
                        return walk
                    }
                    add(m.consumed, cut: false, crc: descriptor.crc)
                    offset = descriptor.next
                    continue
                case .cut:
                    add(available, cut: true)
                    end(fileSize, cutHere)
                case .damaged(let why):
                    add(available, cut: false)
                    end(header.dataOffset + m.consumed, "the deflate stream of \(header.name) is damaged (zlib: \(why)), "
                        + "so where it ends, and what follows it, cannot be found")
                case .tooLarge:
                    add(available, cut: false)
                    end(header.dataOffset + m.consumed, "\(header.name) inflates to more than "
                        + "\(m.produced > BugreportZip.Limits.memberSize ? "the \(BugreportZip.Limits.memberSize) bytes blereplay reads" : "\(BugreportZip.Limits.ratio) times its compressed size (a zip bomb?)"), "
                        + "so where it ends was not searched for")
                }
            case 0:
                if let found = findStoredEnd(fd, dataOffset: header.dataOffset, fileSize: fileSize) {
                    entry.size = found.length
                    entry.compressedSize = found.length
                    add(found.length, cut: false, crc: found.crc)
                    offset = found.next
                    continue
                }
                entry.size = min(available, BugreportZip.Limits.memberSize + 1)
                entry.compressedSize = available
                add(available, cut: true)
                end(fileSize, "\(header.name) is stored without sizes in its local header and no data descriptor "
                    + "giving its size follows it: it was read to the end of the file")
            default:
                entry.size = 0
                entry.compressedSize = 0
                add(0, cut: false)
                end(header.dataOffset, "\(header.name) is compressed with method \(header.method) and has no sizes "
                    + "in its local header, so where it ends cannot be found")
            }
            break
        }
        return walk
    }

    /// How inflating a member's data to find its end stopped.
    enum MeasureEnd: Equatable {
        case ended
        /// The bytes ran out first.
        case cut
        case damaged(String)
        /// Past `cap`, or past `BugreportZip.Limits.ratio` times the input over the ratio floor.
        case tooLarge
    }

    /// Inflates up to `available` bytes at `from`, discarding the output: how much came out, how
    /// many compressed bytes the stream took, and how it stopped. Never past `cap` output bytes.
    static func measure(_ fd: Int32, from start: UInt64, available: UInt64, cap: UInt64)
        -> (produced: UInt64, consumed: UInt64, end: MeasureEnd) {
        guard let inflater = RawInflater() else { return (0, 0, .damaged("zlib cannot start inflating")) }
        var input: [UInt8] = []
        var inStart = 0
        var fed: UInt64 = 0, produced: UInt64 = 0
        var drained = false
        var output = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            if inStart == input.count, !drained {
                if fed < available,
                   let bytes = try? ZipLocalHeader.bytes(fd, at: start + fed, count: Int(min(available - fed, 256 * 1024))),
                   !bytes.isEmpty {
                    input = bytes
                    inStart = 0
                    fed += UInt64(bytes.count)
                } else {
                    // The bytes have run out: what zlib still holds comes out, then the cut.
                    drained = true
                }
            }
            let step = input.withUnsafeBytes { i in
                output.withUnsafeMutableBytes { o in inflater.step(UnsafeRawBufferPointer(rebasing: i[inStart...]), into: o) }
            }
            inStart += step.consumed
            produced += UInt64(step.produced)
            if produced > cap
                || (produced > BugreportZip.Limits.ratioFloor && produced / max(inflater.totalIn, 1) > BugreportZip.Limits.ratio) {
                return (produced, inflater.totalIn, .tooLarge)
            }
            switch step.status {
            case .ended: return (produced, inflater.totalIn, .ended)
            case .damaged(let why): return (produced, inflater.totalIn, .damaged(why))
            case .progressed:
                if drained, step.produced == 0 { return (produced, inflater.totalIn, .cut) }
                if step.consumed == 0, step.produced == 0, inStart < input.count {
                    return (produced, inflater.totalIn, .damaged("no progress"))
                }
            }
        }
    }

    /// Where the next record begins after the data descriptor (APPNOTE 4.3.9) that follows
    /// `length` bytes of data at `at`: the optional `PK\7\8` signature, the CRC-32, and the two
    /// sizes of 4 bytes (8 in a ZIP64 member), and its CRC-32 when the compressed size in it is
    /// `length` (the width whose size matches wins); nil when the file ends inside the descriptor.
    static func skipDescriptor(_ fd: Int32, at: UInt64, length: UInt64, zip64: Bool, fileSize: UInt64)
        -> (next: UInt64, crc: UInt32?)? {
        guard let bytes = try? ZipLocalHeader.bytes(fd, at: at, count: 24) else { return nil }
        let base = bytes.starts(with: descriptorSignature) ? 4 : 0
        let widths = zip64 ? [8, 4] : [4, 8]
        // The member's own width first: a file ending inside that is a descriptor cut short.
        guard bytes.count >= base + 4 + 2 * widths[0] else { return nil }
        let crc = UInt32(littleEndian(bytes[base..<(base + 4)]))
        for width in widths where bytes.count >= base + 4 + 2 * width {
            if littleEndian(bytes[(base + 4)..<(base + 4 + width)]) == length { return (at + UInt64(base + 4 + 2 * width), crc) }
        }
        return (at + UInt64(base + 4 + 2 * widths[0]), nil)
    }

    /// A stored member without sizes: the first `PK\7\8` data descriptor whose compressed and
    /// uncompressed sizes both equal its distance from the data's start (4-byte sizes, or 8).
    /// Searched up to `BugreportZip.Limits.memberSize` bytes.
    static func findStoredEnd(_ fd: Int32, dataOffset: UInt64, fileSize: UInt64) -> (length: UInt64, next: UInt64, crc: UInt32)? {
        let limit = min(fileSize, dataOffset + BugreportZip.Limits.memberSize + 24)
        let chunk = 1 << 20
        var at = dataOffset
        while at < limit {
            guard let bytes = try? ZipLocalHeader.bytes(fd, at: at, count: Int(min(UInt64(chunk + 24), limit - at))),
                  bytes.count >= 4 else { return nil }
            var i = 0
            while i + 4 <= bytes.count {
                if bytes[i] == 0x50, bytes[i + 1] == 0x4B, bytes[i + 2] == 0x07, bytes[i + 3] == 0x08 {
                    let distance = at + UInt64(i) - dataOffset
                    let crc = i + 8 <= bytes.count ? UInt32(littleEndian(bytes[(i + 4)..<(i + 8)])) : 0
                    if i + 16 <= bytes.count, littleEndian(bytes[(i + 8)..<(i + 12)]) == distance,
                       littleEndian(bytes[(i + 12)..<(i + 16)]) == distance {
                        return (distance, at + UInt64(i) + 16, crc)
                    }
                    if i + 24 <= bytes.count, littleEndian(bytes[(i + 8)..<(i + 16)]) == distance,
                       littleEndian(bytes[(i + 16)..<(i + 24)]) == distance {
                        return (distance, at + UInt64(i) + 24, crc)
                    }
                }
                i += 1
            }
            if bytes.count <= 24 { return nil }
            at += UInt64(bytes.count - 24)
        }
        return nil
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func unreadable(_ failure: ZipLocalHeader.Failure, path: String) -> CaptureError {
        if case .unreadable(let why) = failure {
            return CaptureError(path: path, kind: .unreadable, message: "cannot read the zip: \(why)")
        }
        return CaptureError(path: path, kind: .unreadable, message: "cannot read the zip")
    }
}

/// One member's bytes, read from the zip file by its local header: stored data as it is,
/// deflated data through `RawInflater`, never past the data the walk found for it.
///
/// Where the data runs out before the member's end (the file is cut there), reading ends
/// (`isCutShort`): the caller says so. Damage throws `.corrupt`, as a CRC-32 that does not match
/// the local header's or the data descriptor's does at the member's end (libzip checks it too).
final class ZipLocalMemberReader {
    let member: ZipLocalMember
    /// The zip's byte where this member's data, as the walk found it, ends.
    let dataEnd: UInt64
    private let fd: Int32
    private let method: UInt16
    private let name: String
    private let inflater: RawInflater?
    private var next: UInt64
    private var remaining: UInt64
    private var input: [UInt8] = []
    private var inStart = 0
    private var ended = false
    private var failure: CaptureError?
    /// The CRC-32 the zip gives for the member's bytes, and theirs so far.
    private let expectedCRC: UInt32?
    private var crc: UInt32 = 0
    /// The data ran out before the member's end.
    private(set) var isCutShort = false

    /// Opens the zip at `path` and reads the local header at `member.headerOffset` again.
    init(path: String, member: ZipLocalMember, name: String) throws(CaptureError) {
        let fd: Int32
        do {
            fd = try Syscall.openForReading(path)
        } catch {
            throw CaptureError(path: path, kind: .unreadable, message: "cannot open: \(error)")
        }
        let fileSize = UInt64(Syscall.status(fd)?.size ?? 0)
        let header: ZipLocalHeader
        do {
            header = try ZipLocalHeader.read(fd, at: member.headerOffset, fileSize: fileSize)
        } catch {
            try? Syscall.closeDescriptor(fd)
            throw CaptureError(path: name, offset: 0, kind: .corrupt, message:
                "no local file header at byte \(member.headerOffset) of the zip any more: the zip changed since it was read")
        }
        let unreadable: String?
        if header.dataOffset + member.dataLength > fileSize {
            unreadable = "the zip is shorter than when it was read"
        } else if header.isEncrypted {
            unreadable = "the zip member is encrypted: not read"
        } else if header.method != 0 && header.method != 8 {
            unreadable = "the zip member is compressed with method \(header.method): blereplay reads stored (0) and deflated (8) members"
        } else {
            unreadable = nil
        }
        if let unreadable {
            try? Syscall.closeDescriptor(fd)
            throw CaptureError(path: name, offset: 0, kind: .corrupt, message: unreadable)
        }
        inflater = header.method == 8 ? RawInflater() : nil
        if header.method == 8, inflater == nil {
            try? Syscall.closeDescriptor(fd)
            throw CaptureError(path: name, offset: 0, kind: .unreadable, message: "zlib cannot start inflating")
        }
        self.fd = fd
        self.member = member
        self.method = header.method
        self.name = name
        expectedCRC = header.hasDataDescriptor ? member.descriptorCRC : header.crc
        next = header.dataOffset
        remaining = member.dataLength
        dataEnd = header.dataOffset + member.dataLength
    }

    deinit { try? Syscall.closeDescriptor(fd) }

    /// Up to `buffer.count` bytes of the member; 0 at its end or where its data runs out.
    /// `position` (uncompressed bytes handed out so far) is what errors name.
    func read(into buffer: UnsafeMutableRawBufferPointer, position: UInt64) throws(CaptureError) -> Int {
        if let failure { throw failure }
        guard !ended, !isCutShort, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        guard let inflater else {
            guard remaining > 0 else { return finish() }
            let bytes = try pread(min(remaining, UInt64(buffer.count)), position: position)
            base.copyMemory(from: bytes, byteCount: bytes.count)
            return try checked(UnsafeRawBufferPointer(start: base, count: bytes.count), position: position,
                               atEnd: remaining == 0 && !member.isCut)
        }
        while true {
            if inStart == input.count, remaining > 0 {
                input = try pread(min(remaining, 256 * 1024), position: position)
                inStart = 0
            }
            let step = input.withUnsafeBytes { inflater.step(UnsafeRawBufferPointer(rebasing: $0[inStart...]), into: buffer) }
            inStart += step.consumed
            switch step.status {
            case .ended:
                ended = true
                return try checked(UnsafeRawBufferPointer(start: base, count: step.produced), position: position, atEnd: true)
            case .damaged(let why):
                let at = next - UInt64(input.count - inStart)
                let error = CaptureError(path: name, offset: Int(clamping: position + UInt64(step.produced)), kind: .corrupt, message:
                    "damaged zip member: zlib stopped inflating it at byte \(at) of the zip (\(why))")
                // The bytes inflated before the damage are handed out first.
                guard step.produced > 0 else { throw error }
                failure = error
                return step.produced
            case .progressed:
                if step.produced > 0 {
                    return try checked(UnsafeRawBufferPointer(start: base, count: step.produced), position: position, atEnd: false)
                }
                if inStart == input.count, remaining == 0 {
                    // The data has run out and zlib holds nothing more.
                    if member.isCut { return finish() }
                    throw CaptureError(path: name, offset: Int(clamping: position), kind: .corrupt, message:
                        "damaged zip member: its deflate stream does not end within the \(member.dataLength) bytes of its data")
                }
                if step.consumed == 0, inStart < input.count {
                    throw CaptureError(path: name, offset: Int(clamping: position), kind: .corrupt, message:
                        "damaged zip member: zlib makes no progress inflating it")
                }
            }
        }
    }

    /// Adds `bytes` to the CRC-32; at the member's end, a CRC that does not match is damage,
    /// thrown once `bytes` are handed out.
    private func checked(_ bytes: UnsafeRawBufferPointer, position: UInt64, atEnd: Bool) throws(CaptureError) -> Int {
        if let base = bytes.baseAddress, !bytes.isEmpty {
            crc = UInt32(truncatingIfNeeded: crc32(UInt(crc), base.assumingMemoryBound(to: Bytef.self), UInt32(bytes.count)))
        }
        guard atEnd, let expectedCRC, expectedCRC != crc else { return bytes.count }
        let error = CaptureError(path: name, offset: Int(clamping: position + UInt64(bytes.count)), kind: .corrupt, message:
            "damaged zip member: its bytes have CRC-32 \(hex(crc)), the zip says \(hex(expectedCRC))")
        guard !bytes.isEmpty else { throw error }
        failure = error
        return bytes.count
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private func finish() -> Int {
        if member.isCut { isCutShort = true } else { ended = true }
        return 0
    }

    private func pread(_ count: UInt64, position: UInt64) throws(CaptureError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try ZipLocalHeader.bytes(fd, at: next, count: Int(count))
        } catch {
            throw CaptureError(path: name, offset: Int(clamping: position), kind: .unreadable, message: "cannot read the zip")
        }
        guard !bytes.isEmpty else {
            throw CaptureError(path: name, offset: Int(clamping: position), kind: .corrupt, message:
                "the zip is shorter than when it was read")
        }
        next += UInt64(bytes.count)
        remaining -= UInt64(bytes.count)
        return bytes
    }
}
