import CZip

/// A zip archive read through libzip (`zip_open`, `zip_stat_index`, `zip_fopen_index`,
/// `zip_fread`): names and sizes from its central directory, members streamed through memory.
///
/// Nothing is ever unpacked to disk, and no member is read whole: `ZipMemberSource` hands
/// libzip's output to the readers chunk by chunk. Not `Sendable` (a libzip archive is used by
/// one thread); each reader opens the archive again (`BugreportLog.source()`).
final class ZipArchive {
    /// One member as the central directory lists it.
    struct Entry {
        var index: UInt64
        var name: String
        /// Uncompressed size the directory declares (a hostile file can lie: see `ZipMemberSource`).
        var size: UInt64
        var compressedSize: UInt64
        var isDirectory: Bool { name.hasSuffix("/") }
    }

    let path: String
    private let archive: OpaquePointer

    /// Opens `path` read-only; a file libzip cannot read as a zip throws `.corrupt` with its reason.
    init(path: String) throws(CaptureError) {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &code) else {
            throw CaptureError(path: path, kind: .corrupt,
                               message: "not a readable zip archive (libzip: \(Self.message(code: code)))")
        }
        self.path = path
        self.archive = archive
    }

    deinit { zip_discard(archive) }

    /// Members listed in the central directory, in directory order. More than `limit` members
    /// is refused rather than listed.
    func entries(limit: Int) throws(CaptureError) -> [Entry] {
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
                    "member \(index + 1) of the zip's central directory cannot be read (libzip: \(lastMessage()))")
            }
            out.append(Entry(index: index, name: String(cString: name), size: st.size, compressedSize: st.comp_size))
        }
        return out
    }

    /// Opens member `index` for streaming; `name` is what errors call it (`ZIP!member`).
    func open(index: UInt64, declaredSize: UInt64, name: String) throws(CaptureError) -> ZipMemberSource {
        guard let file = zip_fopen_index(archive, index, 0) else {
            throw CaptureError(path: name, offset: 0, kind: .corrupt,
                               message: "the zip member cannot be opened (libzip: \(lastMessage()))")
        }
        return ZipMemberSource(archive: self, file: file, declaredSize: declaredSize, name: name)
    }

    private func lastMessage() -> String {
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

/// One zip member's uncompressed bytes as a `ByteSource`, straight from libzip's `zip_fread`.
///
/// Bounded twice: never more than the directory declared (a member that inflates past its
/// declared size is a lie or a bomb, and stops with `.corrupt` there), and never more than the
/// reader's buffer at a time. Damage (a CRC mismatch, a broken deflate stream) throws `.corrupt`
/// naming the member and the offset in it where reading stopped.
public final class ZipMemberSource: ByteSource {
    public let name: String
    private let archive: ZipArchive
    private let file: OpaquePointer
    private let declaredSize: UInt64
    /// Uncompressed bytes handed out so far.
    public private(set) var position: UInt64 = 0

    init(archive: ZipArchive, file: OpaquePointer, declaredSize: UInt64, name: String) {
        self.archive = archive
        self.file = file
        self.declaredSize = declaredSize
        self.name = name
    }

    deinit { zip_fclose(file) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        // One byte past the declared size is asked for, to see whether the member ends there.
        let left = declaredSize >= position ? declaredSize - position : 0
        let ask = min(UInt64(buffer.count), left &+ 1)
        let n = zip_fread(file, base, ask)
        guard n >= 0 else {
            let why = zip_file_get_error(file).map { String(cString: zip_error_strerror($0)) } ?? "read error"
            throw CaptureError(path: name, offset: Int(clamping: position), kind: .corrupt,
                               message: "damaged zip member: libzip stopped reading it here (\(why))")
        }
        position += UInt64(n)
        if position > declaredSize {
            throw CaptureError(path: name, offset: Int(clamping: declaredSize), kind: .corrupt, message:
                "zip member inflates past the \(declaredSize) bytes its directory entry declares (damaged, or a zip bomb): "
                    + "read no further")
        }
        return Int(n)
    }
}
