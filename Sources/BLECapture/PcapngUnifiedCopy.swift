import BLECore
import CPcap
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A copy of a pcapng in which every Interface Description Block says one link type and no
/// snapshot length (`PcapngInterfaceLinkTypes.unify`), opened with libpcap: how `PcapReader`
/// reads on, through libpcap still, where libpcap 1.10 refused an interface of another link
/// type or snapshot length than the first (draft-ietf-opsawg-pcapng 4.2).
///
/// Byte for byte the size of the file, so every offset libpcap's stream gives is the file's.
/// A file read from a path is copied to a scratch file under `$TMPDIR` (a `TemporaryFile`, as
/// `CaptureSpool` and `GzipCaptureReader` keep theirs), removed with this value; a file held in
/// memory (a pipe's bytes, stdin) is copied in memory.
struct PcapngUnifiedCopy {
    /// libpcap, open on the copy at its start.
    let handle: PcapHandle
    /// The scratch file (a path's copy), kept as long as libpcap reads it.
    let scratch: TemporaryFile?

    /// Copies what `source` reads (the file at `path`, or its memory), every IDB made
    /// `linkType`, and opens it with libpcap. Errors name `name`; their messages say only what
    /// failed, for the reader to say why it copied.
    init(of source: PcapHandle, path: String?, name: String, linkType: PcapLinkType) throws(CaptureError) {
        var errorText = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        if let original = source.memory {
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(original.count, 1), alignment: 16)
            memory.copyMemory(from: UnsafeRawBufferPointer(original))
            _ = PcapngInterfaceLinkTypes.unify(to: linkType, size: original.count, read: { offset, count in
                guard offset >= 0, offset < original.count else { return [] }
                return Array(memory[offset..<min(original.count, offset + count)])
            }, write: { offset, bytes in
                guard offset >= 0, offset + bytes.count <= original.count else { return false }
                UnsafeMutableRawBufferPointer(rebasing: memory[offset..<(offset + bytes.count)]).copyBytes(from: bytes)
                return true
            })
            guard let base = memory.baseAddress, let file = fmemopen(base, original.count, "rb") else {
                memory.deallocate()
                throw CaptureError(path: name, kind: .unreadable, message: "fmemopen failed: \(Errno.current)")
            }
            guard let pcap = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorText) else {
                fclose(file)
                memory.deallocate()
                throw CaptureError(path: name, kind: .unreadable, message: "libpcap: \(Self.text(errorText))")
            }
            handle = PcapHandle(pcap: pcap, memory: memory)
            scratch = nil
            return
        }
        guard let path else {
            throw CaptureError(path: name, kind: .unreadable, message: "neither a path nor bytes in memory to copy")
        }
        let file: TemporaryFile
        do {
            file = try TemporaryFile.inTemporaryDirectory(prefix: "blereplay-pcapng")
        } catch {
            throw CaptureError(path: name, kind: .unwritable, message: "cannot create a scratch file: \(error.message)")
        }
        let input = try FileDescriptorSource(path: path)
        let copied = try file.copy(first: try CaptureFile.readPrefix(input), from: input, name: name, what: "copy it to")
        if let failure = copied.readFailure { throw failure }
        _ = PcapngInterfaceLinkTypes.unify(to: linkType, size: copied.size, read: { offset, count in
            (try? Syscall.preadBytes(file.descriptor, offset: offset, count: count)) ?? []
        }, write: { offset, bytes in
            (try? Syscall.pwriteAllBytes(file.descriptor, bytes, offset: offset)) != nil
        })
        guard let pcap = pcap_open_offline_with_tstamp_precision(file.path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorText) else {
            throw CaptureError(path: name, kind: .unreadable, message: "libpcap: \(Self.text(errorText))")
        }
        handle = PcapHandle(pcap: pcap, memory: nil)
        scratch = file
    }

    /// The text in a NUL-terminated C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
