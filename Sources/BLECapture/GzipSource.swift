import CZlib

/// The decompressed bytes of a gzip file (RFC 1952) as a `ByteSource`, inflated by zlib as they
/// are read (`inflateInit2` with windowBits 16 + MAX_WBITS: gzip framing only, each member's
/// CRC-32 and ISIZE checked by zlib).
///
/// Memory is one buffer of compressed input and zlib's 32 KiB window, whatever the file
/// decompresses to: nothing caps the decompressed stream (it is a capture like any other), and
/// nothing holds it.
///
/// - Members (RFC 1952 2.2): a file of several members one after another (`cat a.gz b.gz`) is
///   one stream, as `gzip -d` reads it. After the last member, zero bytes (padding) are ignored
///   as gzip ignores them; other bytes are read no further, with a warning (`endWarnings`).
/// - Cut short: a file that ends inside a member hands out every byte decompressed before the
///   cut, then the end of the input, with a warning naming the cut (a file cut short is
///   truncated, not corrupt: `CaptureReader.next`).
/// - Damage (zlib's `Z_DATA_ERROR`: a bad member header, an invalid deflate block, a CRC-32 or
///   length mismatch in a member's trailer) throws `.corrupt` once every byte decompressed
///   before it has been handed out, and again on every later read. Its offset is the
///   decompressed stream's byte where the good bytes end; the message also names the compressed
///   file's byte where zlib stopped.
public final class GzipSource: ByteSource {
    /// What a read does next.
    private enum State {
        case inMember
        case betweenMembers
        case ended
        case failed(CaptureError)
    }

    /// Compressed bytes asked of the underlying source at a time.
    static let inputChunk = 256 * 1024

    public let name: String
    private let source: any ByteSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var state = State.inMember
    /// Compressed bytes taken from `source`, the prefix given to `init` included.
    private var compressedRead = 0
    /// The size of the buffer of the read under way (0 between reads).
    private var readCapacity: UInt32 = 0
    /// Decompressed bytes handed out so far: the offset of the next one.
    public private(set) var position = 0
    /// The member being read, or the last one read (1-based).
    public private(set) var member = 1
    /// Why the stream ended before its proper end (cut short, bytes after the last member);
    /// complete once a read has returned 0.
    public private(set) var endWarnings: [CaptureWarning] = []

    /// `1F 8B` (ID1, ID2) and compression method 8, deflate (RFC 1952 2.3.1): the only method
    /// the RFC defines.
    public static func hasMagic(_ prefix: some Collection<UInt8>) -> Bool {
        prefix.starts(with: [0x1F, 0x8B, 0x08])
    }

    /// Starts inflating; `initial` holds the first bytes already read from `source` (a prefix
    /// read for format detection), which must start with the gzip magic.
    public init(source: any ByteSource, initial: [UInt8] = [], name: String? = nil) throws(CaptureError) {
        self.source = source
        self.name = name ?? source.name
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = UnsafeMutableRawBufferPointer.allocate(byteCount: max(initial.count, Self.inputChunk), alignment: 16)
        initial.withUnsafeBytes { bytes in
            if let from = bytes.baseAddress { input.baseAddress?.copyMemory(from: from, byteCount: bytes.count) }
        }
        compressedRead = initial.count
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(initial.count)
        let status = inflateInit2_(stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            input.deallocate()
            throw CaptureError(path: self.name, kind: .unreadable, message: "zlib cannot start inflating (inflateInit2: \(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    /// Compressed bytes zlib has consumed: the offset in the file of the next one it reads.
    public var compressedPosition: Int { compressedRead - Int(stream.pointee.avail_in) }

    /// The damage that stopped the stream, once it has.
    public var failure: CaptureError? {
        if case .failed(let error) = state { return error }
        return nil
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard let out = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        readCapacity = UInt32(clamping: buffer.count)
        stream.pointee.next_out = out.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = readCapacity
        defer { readCapacity = 0; stream.pointee.avail_out = 0 }
        while decompressedOffset == position {
            switch state {
            case .failed(let error): throw error
            case .ended: return 0
            case .betweenMembers: try startNextMember()
            case .inMember: try inflateStep()
            }
        }
        let produced = decompressedOffset - position
        position += produced
        return produced
    }

    /// One `inflate` call over the input at hand (read more first when there is none).
    private func inflateStep() throws(CaptureError) {
        if stream.pointee.avail_in == 0, try !refill() {
            endWarnings.append(CaptureWarning(offset: decompressedOffset, message:
                "the gzip file ends at compressed byte \(compressedRead), inside gzip member \(member): cut short; "
                    + "its decompressed bytes end at byte \(decompressedOffset)"))
            state = .ended
            return
        }
        let status = inflate(stream, Z_NO_FLUSH)
        switch status {
        case Z_OK:
            break
        case Z_STREAM_END:
            state = .betweenMembers
        case Z_BUF_ERROR where stream.pointee.avail_in == 0:
            // No progress without more input: the next step reads some.
            break
        default:
            let why = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            let good = decompressedOffset
            state = .failed(CaptureError(path: name, offset: good, kind: .corrupt, message:
                "damaged gzip data: zlib stopped at compressed byte \(compressedPosition), in gzip member \(member) (\(why)); "
                    + (good == 0 ? "nothing decompressed before it" : "decompressed bytes good up to byte \(good)")))
        }
    }

    /// After a member's trailer: another member (`1F`), zero padding to the end, or bytes that
    /// are no member (read no further).
    private func startNextMember() throws(CaptureError) {
        if stream.pointee.avail_in == 0, try !refill() {
            state = .ended
            return
        }
        guard let next = stream.pointee.next_in else { state = .ended; return }
        if next[0] == 0x1F {
            inflateReset(stream)
            member += 1
            state = .inMember
            return
        }
        let start = compressedPosition
        state = .ended
        while true {
            let bytes = UnsafeBufferPointer(start: stream.pointee.next_in, count: Int(stream.pointee.avail_in))
            if bytes.contains(where: { $0 != 0 }) {
                endWarnings.append(CaptureWarning(offset: decompressedOffset, message:
                    "bytes that are no gzip member follow gzip member \(member), from compressed byte \(start): "
                        + "read no further (gzip -d: \"trailing garbage ignored\")"))
                return
            }
            stream.pointee.avail_in = 0
            guard try refill() else { return }
        }
    }

    /// The decompressed stream's offset zlib has written up to (handed out, or in the buffer of
    /// the read under way).
    private var decompressedOffset: Int { position + Int(readCapacity - stream.pointee.avail_out) }

    /// Reads the next compressed bytes into `input`; false at the end of the file. An error of
    /// the underlying source stops the stream with it.
    private func refill() throws(CaptureError) -> Bool {
        guard let base = input.baseAddress else { return false }
        let n: Int
        do {
            n = try source.read(into: input)
        } catch {
            state = .failed(error)
            throw error
        }
        stream.pointee.next_in = base.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(max(n, 0))
        compressedRead += max(n, 0)
        return n > 0
    }
}
