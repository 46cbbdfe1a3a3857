import CZip

/// A zip archive read through libzip (`zip_open`, `zip_stat_index`, `zip_fopen_index`,
/// `zip_fread`): names and sizes from its central directory, members streamed through memory.
///
/// When libzip cannot read the archive because its end is missing or damaged (the central
/// directory and the end record sit at the end of the file: a bugreport cut short by an
/// interrupted download or copy), and the file begins with a local file header, the members
/// are read from their local headers instead, front to back (`ZipLocalWalk`), up to the damage;
/// `recoveryWarning` then says so. Entries and `open(_:name:)` work the same on either.
///
/// Nothing is ever unpacked to disk, and no member is read whole: `ZipMemberSource` hands
/// the inflated bytes to the readers chunk by chunk. Not `Sendable` (a libzip archive is used by
/// one thread); each reader opens the archive again (`BugreportLog.source()`).
final class ZipArchive {
    /// One member as the central directory lists it, or as its local header gives it.
    struct Entry {
        /// Where it is found again: its directory index, or its local header.
        var location: ZipMemberLocation
        var name: String
        /// Uncompressed size the directory or local header declares (a hostile file can lie: see
        /// `ZipMemberSource`); measured by inflating when the local header has none (general
        /// purpose bit 3), or the bytes a member cut by the end of the file yields.
        var size: UInt64
        var compressedSize: UInt64
        /// `size` is what the zip declares, not what inflating it gave.
        var sizeIsDeclared = true
        var isDirectory: Bool { name.hasSuffix("/") }
    }

    /// How the archive is read.
    private enum Backend {
        case libzip(OpaquePointer)
        /// libzip's reason for refusing it, and the zip open for the local header walk.
        case localHeaders(reason: String, fd: Int32, size: UInt64)
    }

    let path: String
    private let backend: Backend
    /// Set by `entries` when the members were read from their local headers: what to tell the
    /// user (the zip's end is missing or damaged, where the walk stopped and why).
    private(set) var recoveryWarning: String?
    /// Why the local header walk stopped, for a message about a zip that held nothing usable.
    private(set) var recoveryNote: String?

    /// libzip errors that mean the end of the zip (end record, central directory) is missing or
    /// does not match the file: the local headers may still be read.
    private static let damagedEnd: Set<Int32> = [ZIP_ER_NOZIP, ZIP_ER_INCONS, ZIP_ER_SEEK, ZIP_ER_EOF, ZIP_ER_READ]

    /// Opens `path` read-only; a file libzip cannot read as a zip, and that does not begin with
    /// a local file header, throws `.corrupt` with libzip's reason.
    init(path: String) throws(CaptureError) {
        var code: Int32 = 0
        self.path = path
        if let archive = zip_open(path, ZIP_RDONLY, &code) {
            backend = .libzip(archive)
            return
        }
        let reason = "libzip: \(Self.message(code: code))"
        guard Self.damagedEnd.contains(code), let fd = try? Syscall.openForReading(path) else {
            throw CaptureError(path: path, kind: .corrupt, message: "not a readable zip archive (\(reason))")
        }
        guard let status = Syscall.status(fd), status.isRegularFile,
              (try? Syscall.preadBytes(fd, offset: 0, count: 4)) == ZipLocalHeader.signature else {
            try? Syscall.closeDescriptor(fd)
            throw CaptureError(path: path, kind: .corrupt, message: "not a readable zip archive (\(reason))")
        }
        backend = .localHeaders(reason: reason, fd: fd, size: UInt64(status.size))
    }

    deinit {
        switch backend {
        case .libzip(let archive): zip_discard(archive)
        case .localHeaders(_, let fd, _): try? Syscall.closeDescriptor(fd)
        }
    }

    /// Members in directory order, or in file order from their local headers. More than
    /// `limit` members is refused rather than listed.
    func entries(limit: Int) throws(CaptureError) -> [Entry] {
        switch backend {
        case .libzip(let archive):
            return try directoryEntries(archive, limit: limit)
        case .localHeaders(let reason, let fd, let size):
            let walk = try ZipLocalWalk.walk(fd, fileSize: size, path: path, limit: limit)
            guard !walk.entries.isEmpty else {
                throw CaptureError(path: path, kind: .corrupt, message:
                    "not a readable zip archive (\(reason)), and no member could be read from its local file headers: "
                        + "at byte \(walk.stop), \(walk.reason)")
            }
            let count = walk.entries.count
            recoveryNote = "the zip's central directory cannot be read (\(reason)): it is cut short or damaged at or after "
                + "byte \(walk.stop), where \(walk.reason)"
            recoveryWarning = "\(path): " + (recoveryNote ?? "") + "; its \(count) member\(count == 1 ? "" : "s") before that "
                + "\(count == 1 ? "was" : "were") read from \(count == 1 ? "its local file header" : "their local file headers")"
            return walk.entries
        }
    }

    /// Members listed in the central directory, in directory order.
    private func directoryEntries(_ archive: OpaquePointer, limit: Int) throws(CaptureError) -> [Entry] {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else {
            throw CaptureError(path: path, kind: .corrupt, message: "the zip's central directory cannot be read")
        }
        guard count <= Int64(limit) else {
            throw CaptureError(path: path, kind: .corrupt, message:
                "the zip lists \(count) members, more than the \(limit) a bugreport can hold: refused")
        }
        var out: [Entry] = []
        out.reserveCapacity(Int(count))
        for index in 0..<UInt64(count) {
            var st = zip_stat_t()
            zip_stat_init(&st)
            guard zip_stat_index(archive, index, 0, &st) == 0, let name = st.name else {
                throw CaptureError(path: path, kind: .corrupt, message:
                    "member \(index + 1) of the zip's central directory cannot be read (libzip: \(lastMessage(archive)))")
            }
            out.append(Entry(location: .directory(index: index), name: String(cString: name), size: st.size,
                             compressedSize: st.comp_size))
        }
        return out
    }

    /// Opens `entry` for streaming; `name` is what errors call it (`ZIP!member`).
    func open(_ entry: Entry, name: String) throws(CaptureError) -> ZipMemberSource {
        try open(entry.location, declaredSize: entry.size, name: name)
    }

    /// Opens the member at `location` for streaming: through libzip by its directory index (this
    /// archive's), or from the zip file by its local header.
    func open(_ location: ZipMemberLocation, declaredSize: UInt64, name: String) throws(CaptureError) -> ZipMemberSource {
        switch (location, backend) {
        case (.directory(let index), .libzip(let archive)):
            guard let file = zip_fopen_index(archive, index, 0) else {
                throw CaptureError(path: name, offset: 0, kind: .corrupt,
                                   message: "the zip member cannot be opened (libzip: \(lastMessage(archive)))")
            }
            return ZipMemberSource(archive: self, file: file, declaredSize: declaredSize, name: name)
        case (.directory, .localHeaders(let reason, _, _)):
            throw CaptureError(path: name, offset: 0, kind: .corrupt,
                               message: "the zip's central directory cannot be read any more (\(reason))")
        case (.localHeader(let member), _):
            return try ZipMemberSource(reading: ZipLocalMemberReader(path: path, member: member, name: name),
                                       declaredSize: declaredSize, name: name)
        }
    }

    private func lastMessage(_ archive: OpaquePointer) -> String {
        zip_get_error(archive).map { String(cString: zip_error_strerror($0)) } ?? "unknown error"
    }

    /// libzip's text for an error code (`zip_error_init_with_code`, `zip_error_strerror`).
    static func message(code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }

    /// `PK\3\4` (a local file header) or `PK\5\6` (the end record of an empty archive): the first
    /// bytes of a zip (APPNOTE.TXT 4.3.7, 4.3.16). A test on bytes a reader has already read.
    static func hasMagic(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 4 && prefix[0] == 0x50 && prefix[1] == 0x4B
            && ((prefix[2] == 3 && prefix[3] == 4) || (prefix[2] == 5 && prefix[3] == 6))
    }
}

/// One zip member's uncompressed bytes as a `ByteSource`: straight from libzip's `zip_fread`,
/// or, in a zip read from its local headers, from the file (`ZipLocalMemberReader`).
///
/// Bounded twice: never more than the directory (or local header) declared (a member that
/// inflates past its declared size is a lie or a bomb, and stops with `.corrupt` there), and
/// never more than the reader's buffer at a time. Damage (a CRC mismatch, a broken deflate
/// stream) throws `.corrupt` naming the member and the offset in it where reading stopped. A
/// member the end of the file cuts (a zip cut short) hands out every byte before the cut, then
/// ends, as a file cut short does; `cutWarning` says where.
public final class ZipMemberSource: ByteSource {
    private enum Backend {
        case libzip(archive: ZipArchive, file: OpaquePointer)
        case localHeader(ZipLocalMemberReader)
    }

    public let name: String
    private let backend: Backend
    private let declaredSize: UInt64
    /// Uncompressed bytes handed out so far.
    public private(set) var position: UInt64 = 0
    /// Once the data of a member cut by the end of the zip has run out: the member's byte where
    /// it stops, and the zip's.
    public private(set) var cutWarning: CaptureWarning?

    init(archive: ZipArchive, file: OpaquePointer, declaredSize: UInt64, name: String) {
        backend = .libzip(archive: archive, file: file)
        self.declaredSize = declaredSize
        self.name = name
    }

    init(reading reader: ZipLocalMemberReader, declaredSize: UInt64, name: String) {
        backend = .localHeader(reader)
        self.declaredSize = declaredSize
        self.name = name
    }

    deinit {
        if case .libzip(_, let file) = backend { zip_fclose(file) }
    }

    /// Whether the member's data, as found in the zip, stops before the member's end.
    public var isCut: Bool {
        if case .localHeader(let reader) = backend { return reader.member.isCut }
        return false
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        // One byte past the declared size is asked for, to see whether the member ends there.
        let left = declaredSize >= position ? declaredSize - position : 0
        let ask = min(UInt64(buffer.count), left &+ 1)
        let n: Int
        switch backend {
        case .libzip(_, let file):
            let got = zip_fread(file, base, ask)
            guard got >= 0 else {
                let why = zip_file_get_error(file).map { String(cString: zip_error_strerror($0)) } ?? "read error"
                throw CaptureError(path: name, offset: Int(clamping: position), kind: .corrupt,
                                   message: "damaged zip member: libzip stopped reading it here (\(why))")
            }
            n = Int(got)
        case .localHeader(let reader):
            n = try reader.read(into: UnsafeMutableRawBufferPointer(start: base, count: Int(ask)), position: position)
            if n == 0, reader.isCutShort, cutWarning == nil {
                cutWarning = CaptureWarning(offset: Int(clamping: position), message:
                    "the zip is cut short at byte \(reader.dataEnd), inside this member: its bytes end at byte \(position)")
            }
        }
        position += UInt64(n)
        if position > declaredSize {
            throw CaptureError(path: name, offset: Int(clamping: declaredSize), kind: .corrupt, message:
                "zip member inflates past the \(declaredSize) bytes its directory entry declares (damaged, or a zip bomb): "
                    + "read no further")
        }
        return n
    }
}
