#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a directory with readdir(3).
public enum DirectoryEntry {
    /// The name of one readdir(3) record, as bytes (no NUL).
    ///
    /// readdir's records are packed in its buffer, each `d_reclen` bytes long: only as long as
    /// its name, not the 256 bytes `struct dirent` declares for `d_name` (POSIX readdir, Linux
    /// getdents64(2)). Copying `entry.pointee.d_name` reads 256 bytes, past the end of the buffer
    /// for the last record in it (AddressSanitizer: heap-buffer-overflow, found by
    /// FuzzCaptureReaders when a gzip capture's scratch directory was removed): the name is read
    /// in place, up to its NUL and never past the record.
    public static func name(of entry: UnsafePointer<dirent>) -> [UInt8] {
        let record = UnsafeRawPointer(entry)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        #if canImport(Glibc)
        let recordLength = Int(record.loadUnaligned(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!,
                                                    as: UInt16.self))
        let limit = max(0, min(recordLength, MemoryLayout<dirent>.size) - nameOffset)
        #else
        let limit = MemoryLayout<dirent>.size - nameOffset
        #endif
        let name = (record + nameOffset).assumingMemoryBound(to: UInt8.self)
        var bytes: [UInt8] = []
        var i = 0
        while i < limit, name[i] != 0 {
            bytes.append(name[i])
            i += 1
        }
        return bytes
    }

    /// The names in a directory, as bytes, without "." and ".." (empty when it cannot be read).
    public static func names(of directory: String) -> [[UInt8]] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = Self.name(of: entry)
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names
    }
}
