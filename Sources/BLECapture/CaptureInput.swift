#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

/// One capture to read: a file, or a log inside an Android bugreport zip (`ZIP!member`).
public enum CaptureInput: Sendable, Hashable {
    case file(String)
    case bugreportLog(BugreportLog)
    /// A capture that could be read only once (a FIFO, a pipe, a device), named `name`, whose
    /// bytes a `CaptureSpool` copied to the regular file `path`.
    case spooled(name: String, path: String)

    /// How the timeline and messages name it: the path, or `ZIP!member`.
    public var name: String {
        switch self {
        case .file(let path): path
        case .bugreportLog(let log): log.name
        case .spooled(let name, _): name
        }
    }

    /// The file name stored beside the path: the last component of the path or of the member.
    public var fileName: String {
        let whole: String
        switch self {
        case .file(let path): whole = path
        case .bugreportLog(let log): whole = log.member
        case .spooled(let name, _): whole = name
        }
        return whole.split(separator: "/").last.map(String.init) ?? whole
    }

    /// The phone that wrote it, when a bugreport said.
    public var phone: PhoneIdentity? {
        if case .bugreportLog(let log) = self { return log.phone }
        return nil
    }

    /// Opens a streaming reader (`CaptureFile.open`).
    public func open() throws(CaptureError) -> any CaptureReader {
        switch self {
        case .file(let path): return try CaptureFile.open(path)
        case .bugreportLog(let log): return try log.reader()
        // Through the descriptor, so that every message names the capture, not the scratch file.
        case .spooled(let name, let path): return try CaptureFile.open(source: FileDescriptorSource(path: path), path: name)
        }
    }

    /// SHA-256 of the capture's own bytes, hex (`contentDigest`). Nil when unreadable.
    public func sha256Hex() -> String? { contentDigest()?.hex }

    /// SHA-256 (hex) and size of the capture's own bytes, as `contentSource` streams them: a
    /// plain file's bytes, a gzip file's decompressed bytes, a bugreport member's uncompressed
    /// bytes; each up to any damage, so a damaged capture gets the same digest every time. So the
    /// same capture given plain, gzipped and inside a bugreport has one digest (and one size),
    /// and is stored and counted once. Nil when unreadable.
    public func contentDigest() -> (hex: String, size: Int64)? {
        let gzip = isGzipCompressed
        if case .file(let path) = self, !gzip, let hex = SHA256.hexDigest(ofFile: path) {
            var st = stat()
            return stat(path, &st) == 0 ? (hex, Int64(st.st_size)) : nil
        }
        guard let source = try? contentSource(gzip: gzip) else { return nil }
        var hash = SHA256()
        var size: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer in (try? source.read(into: buffer)) ?? 0 }
            if n <= 0 { break }
            chunk.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            size += Int64(n)
        }
        return (hexString(hash.finalize()), size)
    }

    /// For a gzip file, the SHA-256 (hex) of the file as given, its compressed bytes: how builds
    /// before `contentDigest` knew it, so that a timeline or warehouse they wrote finds it again
    /// (and takes its content digest). Nil for anything else.
    public func compressedFileDigest() -> String? {
        guard case .file(let path) = self, isGzipCompressed else { return nil }
        return SHA256.hexDigest(ofFile: path)
    }

    /// The capture's own bytes, streamed: a file's, decompressed when it is gzip (RFC 1952,
    /// `GzipSource`, which also reads a file cut short up to the cut), a bugreport member's.
    public func contentSource() throws(CaptureError) -> any ByteSource {
        try contentSource(gzip: isGzipCompressed)
    }

    /// `contentSource`, the file's gzip magic already read (`isGzipCompressed`).
    private func contentSource(gzip: Bool) throws(CaptureError) -> any ByteSource {
        switch self {
        case .bugreportLog(let log):
            return try log.source()
        case .file(let path), .spooled(_, let path):
            let file = try FileDescriptorSource(path: path)
            return gzip ? try GzipSource(source: file, name: name) : file
        }
    }

    /// Whether the file is gzip-compressed (its first bytes `1F 8B 08`, RFC 1952 2.3.1); a
    /// bugreport member never is (the zip's compression is undone by libzip).
    public var isGzipCompressed: Bool {
        let path: String
        switch self {
        case .file(let p), .spooled(_, let p): path = p
        case .bugreportLog: return false
        }
        guard let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: 3)
        let n = head.withUnsafeMutableBytes { fread($0.baseAddress, 1, 3, f) }
        return n == 3 && GzipSource.hasMagic(head)
    }
}

/// What a capture argument turned out to be, from the bytes read to detect its format.
public enum CaptureProbe {
    /// A capture file, with what its reader says of it.
    case capture(CaptureInfo)
    /// An Android bugreport zip: the captures inside it.
    case bugreport(BugreportZip)
}
