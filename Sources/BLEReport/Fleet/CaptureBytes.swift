#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLECapture

/// The bytes a capture's facts were read from, found again, to tell a capture that grew from a
/// different one: Android writes `btsnoop_hci.log` while it runs and `btmon -w` appends, so the
/// same log ingested twice, before and after it grew, is two captures whose SHA-256 differ but
/// whose shorter one is a byte prefix of the longer (REFERENCE.md, btsnoop: "the last record may
/// be cut short").
///
/// Found for a capture file or a bugreport zip's log (`ZIP!member`), and for a timeline's
/// capture whose file is still where it was imported from, only when the bytes there still give
/// the capture's SHA-256 (a file that changed since, a FIFO, a missing file: nil).
public struct CaptureBytes: Sendable {
    /// Bytes the head digest covers: a btsnoop or pcap header and the first record's header,
    /// whose timestamp sets captures apart. Shorter captures hold no record and get no head.
    public static let headLength: Int64 = 64

    public let size: Int64
    /// SHA-256 (hex) of the first `checkpoints(size)[i]` bytes, for each i: the first is the head.
    public let prefixDigests: [String]
    let input: CaptureInput

    /// SHA-256 (hex) of the first `headLength` bytes.
    public var headDigest: String { prefixDigests[0] }

    /// The prefix lengths whose digests are kept: `headLength` doubled while it fits in `size`
    /// (at most 57 for any size): a shorter copy of `size`' bytes n long shares the digest at the
    /// largest of them up to n, which covers more than half of it.
    public static func checkpoints(_ size: Int64) -> [Int64] {
        var out: [Int64] = []
        var length = headLength
        while length <= size {
            out.append(length)
            guard length <= Int64.max / 2 else { break }
            length *= 2
        }
        return out
    }

    /// Reads the bytes of `facts`' capture once: nil when they cannot be found, are shorter than
    /// `headLength`, or no longer hash to `facts.sha256`.
    public static func locate(_ facts: CaptureFacts) -> CaptureBytes? {
        locate(capturePath: facts.capturePath, sha256: facts.sha256)
    }

    /// The same for a capture known by its path (a file, or `ZIP!member`) and digest.
    public static func locate(capturePath: String, sha256: String) -> CaptureBytes? {
        guard let input = input(of: capturePath) else { return nil }
        var found: [Int64: String] = [:]
        // Every checkpoint up to any size: those past the end are never reached.
        guard let whole = scan(input, marks: checkpoints(Int64.max), found: { found[$0] = $1 }),
              whole.digest == sha256 else { return nil }
        let digests = checkpoints(whole.size).compactMap { found[$0] }
        guard !digests.isEmpty, digests.count == checkpoints(whole.size).count else { return nil }
        return CaptureBytes(size: whole.size, prefixDigests: digests, input: input)
    }

    /// SHA-256 (hex) of the first `headLength` bytes of `facts`' capture, reading no more; nil
    /// when it cannot be found or is shorter. Cheap: what `ShorterCopies` groups captures by.
    public static func headDigest(_ facts: CaptureFacts) -> String? {
        guard let input = input(of: facts.capturePath) else { return nil }
        var head: String?
        _ = scan(input, marks: [headLength], upTo: headLength) { head = $1 }
        return head
    }

    /// SHA-256 (hex) of the first `length` bytes of `facts`' capture and whether the capture is
    /// at least that long, reading no more than `length` bytes; nil when it cannot be found.
    public static func prefixDigest(_ facts: CaptureFacts, length: Int64) -> (digest: String, whole: Bool)? {
        guard let input = input(of: facts.capturePath) else { return nil }
        var prefix: String?
        guard let read = scan(input, marks: [length], upTo: length, found: { prefix = $1 }) else { return nil }
        return prefix.map { ($0, true) } ?? (read.digest, false)
    }

    /// For a capture read from a gzip file, the digest builds before `CaptureInput.contentDigest`
    /// stored it under (the compressed file's, `CaptureInput.compressedFileDigest`); nil otherwise.
    /// Only a regular file can be one: a bugreport's log (`ZIP!member`) is never looked for,
    /// which would read the zip's directory again for every capture ingested.
    public static func compressedFileDigest(_ facts: CaptureFacts) -> String? {
        isRegularFile(facts.capturePath) ? CaptureInput.file(facts.capturePath).compressedFileDigest() : nil
    }

    /// SHA-256 (hex) of the first `length` bytes for each of `lengths` up to `size`, in one pass.
    public func digests(ofPrefixes lengths: [Int64]) -> [Int64: String] {
        var out: [Int64: String] = [:]
        _ = Self.scan(input, marks: lengths.filter { $0 > 0 && $0 <= size }) { length, digest in out[length] = digest }
        return out
    }

    /// The file or zip member named by `capturePath` (the timeline's `capture.path`: a path, or
    /// `ZIP!member` for a bugreport's log). Only regular files are opened: a FIFO would block.
    static func input(of path: String) -> CaptureInput? {
        if isRegularFile(path) { return .file(path) }
        var search = path.startIndex
        while let bang = path[search...].firstIndex(of: "!") {
            let archive = String(path[..<bang]), member = String(path[path.index(after: bang)...])
            if isRegularFile(archive), let zip = try? BugreportZip.open(archive),
               let log = zip.logs.first(where: { $0.member == member }) {
                return .bugreportLog(log)
            }
            search = path.index(after: bang)
        }
        return nil
    }

    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Streams the capture's own bytes (up to any damage, as `CaptureInput.contentDigest` does, or until `limit`
    /// bytes are read), calling `found` with the digest of each prefix length in `marks` reached;
    /// returns the size and the digest of what was read, nil when it cannot be opened.
    static func scan(_ input: CaptureInput, marks: [Int64], upTo limit: Int64? = nil,
                     found: (Int64, String) -> Void) -> (size: Int64, digest: String)? {
        // The capture's own bytes, as its digest covers them (a gzip file's decompressed).
        guard let source = try? input.contentSource() else { return nil }
        var pending = Set(marks).sorted()[...]
        var hash = SHA256()
        var size: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: Int(min(1 << 20, max(limit ?? (1 << 20), 1))))
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer in (try? source.read(into: buffer)) ?? 0 }
            if n <= 0 { break }
            var start = 0
            // Finish a copy of the state at every mark inside this chunk.
            while let mark = pending.first, mark <= size + Int64(n) {
                let upTo = Int(mark - size)
                chunk.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[start..<upTo])) }
                var copy = hash
                found(mark, hexString(copy.finalize()))
                start = upTo
                pending.removeFirst()
            }
            chunk.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[start..<n])) }
            size += Int64(n)
            if let limit, size >= limit { break }
        }
        return (size, hexString(hash.finalize()))
    }
}
