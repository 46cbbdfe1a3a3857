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
    /// SHA-256 (hex) of the first `headLength` bytes.
    public let headDigest: String
    let input: CaptureInput

    /// Reads the bytes of `facts`' capture once: nil when they cannot be found, are shorter than
    /// `headLength`, or no longer hash to `facts.sha256`.
    public static func locate(_ facts: CaptureFacts) -> CaptureBytes? {
        guard let input = input(of: facts) else { return nil }
        var head: String?
        guard let whole = scan(input, marks: [headLength], found: { _, digest in head = digest }),
              whole.digest == facts.sha256, let head else { return nil }
        return CaptureBytes(size: whole.size, headDigest: head, input: input)
    }

    /// SHA-256 (hex) of the first `length` bytes for each of `lengths` up to `size`, in one pass.
    public func digests(ofPrefixes lengths: [Int64]) -> [Int64: String] {
        var out: [Int64: String] = [:]
        _ = Self.scan(input, marks: lengths.filter { $0 > 0 && $0 <= size }) { length, digest in out[length] = digest }
        return out
    }

    /// The file or zip member named by `capturePath` (the timeline's `capture.path`: a path, or
    /// `ZIP!member` for a bugreport's log). Only regular files are opened: a FIFO would block.
    static func input(of facts: CaptureFacts) -> CaptureInput? {
        let path = facts.capturePath
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

    /// Streams the bytes (up to any damage, as `CaptureInput.sha256Hex` does), calling `found`
    /// with the digest of each prefix length in `marks` reached; returns the size and the digest
    /// of the whole, nil when it cannot be opened.
    static func scan(_ input: CaptureInput, marks: [Int64],
                     found: (Int64, String) -> Void) -> (size: Int64, digest: String)? {
        let source: any ByteSource
        do throws(CaptureError) {
            switch input {
            case .file(let path), .spooled(_, let path): source = try FileDescriptorSource(path: path)
            case .bugreportLog(let log): source = try log.source()
            }
        } catch {
            return nil
        }
        var pending = Set(marks).sorted()[...]
        var hash = SHA256()
        var size: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
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
        }
        return (size, hexString(hash.finalize()))
    }
}
