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

    /// SHA-256 of its own bytes, hex: of the file, or of the member's uncompressed bytes (up to
    /// any damage, so a damaged member gets the same digest every time). Nil when unreadable.
    ///
    /// A gzip-compressed capture file is the file as given: its compressed bytes (what
    /// `sha256sum` says of it, and what the import's same-size check, on the file's size, pairs
    /// it with), so the same capture imported once plain and once gzipped is stored twice.
    public func sha256Hex() -> String? {
        switch self {
        case .file(let path), .spooled(_, let path):
            return SHA256.hexDigest(ofFile: path)
        case .bugreportLog(let log):
            guard let source = try? log.source() else { return nil }
            var hash = SHA256()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = chunk.withUnsafeMutableBytes { buffer in (try? source.read(into: buffer)) ?? 0 }
                if n <= 0 { break }
                chunk.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            return hexString(hash.finalize())
        }
    }
}

/// What a capture argument turned out to be, from the bytes read to detect its format.
public enum CaptureProbe {
    /// A capture file, with what its reader says of it.
    case capture(CaptureInfo)
    /// An Android bugreport zip: the captures inside it.
    case bugreport(BugreportZip)
}
