import CZlib

/// One-shot zlib (RFC 1950) decompression with a size cap, through zlib's `inflate`.
enum Inflater {
    /// How a decompression ended.
    enum Outcome: Equatable {
        /// The stream ended properly.
        case complete
        /// The input ran out before the end of the stream (a cut-off bugreport).
        case truncated
        /// zlib rejected the data (`Z_DATA_ERROR` and friends), with its message.
        case damaged(String)
        /// The output would exceed the cap.
        case tooLarge
    }

    /// Decompresses `input`, returning what was produced before any problem and how it ended.
    static func inflate(_ input: [UInt8], limit: Int) -> (bytes: [UInt8], outcome: Outcome) {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return ([], .damaged("inflateInit failed"))
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        let chunkSize = 64 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        return input.withUnsafeBytes { (source: UnsafeRawBufferPointer) -> ([UInt8], Outcome) in
            guard let base = source.baseAddress, !source.isEmpty else { return ([], .truncated) }
            stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = UInt32(clamping: source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBytes { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = UInt32(chunkSize)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, chunkSize - Int(stream.avail_out))
                }
                if output.count + produced > limit { return (output, .tooLarge) }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    return (output, .complete)
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: the input is exhausted mid-stream.
                    return (output, .truncated)
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return (output, .damaged(message))
                }
            }
        }
    }
}

/// A raw deflate stream (RFC 1951, no zlib or gzip framing: a zip member's data, APPNOTE.TXT
/// 4.4.5 method 8) inflated step by step through zlib's `inflateInit2` with -15 window bits.
///
/// The caller feeds compressed bytes and drains output; zlib says where the stream ends
/// (`Z_STREAM_END`), which is how a zip member written with a data descriptor (general purpose
/// bit 3: no sizes in its local header) is found to end. Memory is zlib's 32 KiB window.
final class RawInflater {
    /// How one step ended.
    enum Status: Equatable {
        /// Progress made; more input or output room is wanted.
        case progressed
        /// The stream's last block has been inflated.
        case ended
        /// zlib rejected the data (`Z_DATA_ERROR` and friends), with its message.
        case damaged(String)
    }

    private let stream: UnsafeMutablePointer<z_stream>

    /// Nil when zlib cannot start (out of memory).
    init?() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard inflateInit2_(stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compressed bytes consumed since the start: the stream's length once it has ended.
    var totalIn: UInt64 { UInt64(stream.pointee.total_in) }

    /// One `inflate` call from `input` into `output`: how many bytes of each it used.
    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        -> (consumed: Int, produced: Int, status: Status) {
        let inCount = UInt32(clamping: input.count), outCount = UInt32(clamping: output.count)
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = inCount
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = outCount
        let code = inflate(stream, Z_NO_FLUSH)
        let consumed = Int(inCount - stream.pointee.avail_in), produced = Int(outCount - stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch code {
        case Z_STREAM_END:
            return (consumed, produced, .ended)
        case Z_OK, Z_BUF_ERROR:
            return (consumed, produced, .progressed)
        default:
            let why = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)"
            return (consumed, produced, .damaged(why))
        }
    }
}
