#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import BLECore

/// readdir(3) records are as long as their name (`d_reclen`), not `sizeof(struct dirent)`.
@Suite struct DirectoryEntryTests {
    /// A record that ends where the readable memory ends, as the last one in readdir's buffer
    /// may: its name is read without touching the next (inaccessible) page. Reading the whole
    /// 256-byte `d_name` faults here (FuzzCaptureReaders found it as a heap-buffer-overflow).
    @Test func aRecordAtTheEndOfReadableMemoryIsReadUpToItsEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(memory != MAP_FAILED)
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let name: [UInt8] = Array("capture.btsnoop".utf8)
        let recordLength = (nameOffset + name.count + 1 + 7) / 8 * 8
        let record = memory + page - recordLength
        memset(record, 0, recordLength)
        #if canImport(Glibc)
        record.storeBytes(of: UInt16(recordLength), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!, as: UInt16.self)
        #endif
        name.withUnsafeBytes { (record + nameOffset).copyMemory(from: $0.baseAddress!, byteCount: name.count) }
        #expect(DirectoryEntry.name(of: record.assumingMemoryBound(to: dirent.self)) == name)
    }

    @Test func namesOfADirectoryLeaveOutDotAndDotDot() throws {
        let scratch = try TemporaryDirectory(prefix: "direntry")
        defer { scratch.remove() }
        let dir = scratch.path
        let expected = (1...40).map { String(repeating: "n", count: $0) }
        for name in expected { close(open("\(dir)/\(name)", O_CREAT | O_WRONLY, 0o600)) }
        let names = DirectoryEntry.names(of: dir).map { String(decoding: $0, as: UTF8.self) }
        #expect(names.sorted() == expected.sorted())
    }
}
