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
