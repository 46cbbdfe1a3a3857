#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECapture
import BLECore

/// Report text made now and written later, held in memory up to `limit` bytes and past that in a
/// temporary file (issue 17). A JSON report names `reproduced` before its connections and a JUnit
/// suite its counts before its testcases, so their verdicts' text waits for the run's end: for
/// 61,424 links that was 18 MB of verdicts held; now it is at most `limit` in memory.
///
/// The file is a `TemporaryFile` in `$TMPDIR` (`blereplay-report-…`): a killed run's is found and
/// removed by the next. When the file cannot be made or written (a full disk), the text stays in
/// memory: a report held is better than a report lost.
final class SpillText {
    private var pending = ""
    private var file: TemporaryFile?
    /// Bytes in the file that belong to the text (a failed write may have left more).
    private(set) var fileLength = 0
    /// Set after a write failed: memory only from then on.
    private var fileRefused = false
    let limit: Int
    /// Nothing appended since the last `drain`.
    private(set) var isEmpty = true

    /// The temporary file, once there is one.
    var filePath: String? { file?.path }

    init(limit: Int = 1 << 20) {
        self.limit = limit
    }

    func append(_ s: String) {
        guard !s.isEmpty else { return }
        isEmpty = false
        pending += s
        if pending.utf8.count >= limit { spill() }
    }

    private func spill() {
        guard !fileRefused else { return }
        if file == nil {
            do { file = try TemporaryFile.inTemporaryDirectory(prefix: "blereplay-report") } catch {
                fileRefused = true
                return
            }
        }
        guard let file else { return }
        var bytes = Array(pending.utf8)
        do {
            _ = lseek(file.descriptor, off_t(fileLength), SEEK_SET)
            try Syscall.writeAllBytes(file.descriptor, bytes)
            fileLength += bytes.count
            pending = ""
        } catch {
            // Whatever part was written is cut off again; the text stays in `pending`.
            _ = ftruncate(file.descriptor, off_t(fileLength))
            fileRefused = true
        }
        bytes = []
    }

    /// Hands the text appended since the last drain to `body`, in order and in blocks of about
    /// 64 KiB, each block whole UTF-8 characters, and starts empty again.
    func drain(_ body: (String) -> Void) throws(Errno) {
        defer { reset() }
        if let file, fileLength > 0 {
            var block = [UInt8](repeating: 0, count: 1 << 16)
            var carry: [UInt8] = []
            var offset = 0
            _ = lseek(file.descriptor, 0, SEEK_SET)
            while offset < fileLength {
                let n = try Syscall.readBytes(file.descriptor, into: &block)
                guard n > 0 else { throw Errno(code: EIO) }
                let take = min(n, fileLength - offset)
                offset += take
                carry.append(contentsOf: block[0..<take])
                // Up to the last character's first byte; that character may not be whole yet.
                var cut = carry.count
                if offset < fileLength {
                    cut -= 1
                    while cut > 0 && carry[cut] & 0xC0 == 0x80 { cut -= 1 }
                }
                if cut > 0 {
                    body(String(decoding: carry[0..<cut], as: UTF8.self))
                    carry.removeFirst(cut)
                }
            }
        }
        if !pending.isEmpty { body(pending) }
    }

    private func reset() {
        pending = ""
        isEmpty = true
        if let file, fileLength > 0 { _ = ftruncate(file.descriptor, 0) }
        fileLength = 0
    }
}
