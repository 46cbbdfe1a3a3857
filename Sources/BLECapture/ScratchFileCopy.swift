import BLECore

extension TemporaryFile {
    /// Writes `first`, then what `source` reads, to this file, a MiB at a time, until the source
    /// ends or `limit` bytes are written: how a read-once input (`CaptureSpool`) and a pcap
    /// inside gzip (`GzipCaptureReader`) become a file libpcap can read.
    ///
    /// A write that fails throws `.unwritable` naming `name` and the byte; a read that fails
    /// ends the copy and is returned, the bytes before it written.
    func copy(first: [UInt8], from source: any ByteSource, name: String, upTo limit: Int = .max,
              what: String) throws(CaptureError) -> (size: Int, readFailure: CaptureError?) {
        var size = 0
        var chunk = first
        while !chunk.isEmpty, size < limit {
            do {
                try Syscall.writeAllBytes(descriptor, chunk)
            } catch {
                throw CaptureError(path: name, offset: size, kind: .unwritable,
                                   message: "cannot \(what) a scratch file in \(TemporaryFile.temporaryDirectory()): \(error)")
            }
            size += chunk.count
            chunk = [UInt8](repeating: 0, count: 1 << 20)
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { buffer in
                    Result { () throws(CaptureError) -> Int in try source.read(into: buffer) }
                }.get()
            } catch {
                return (size, error)
            }
            chunk.removeLast(chunk.count - max(n, 0))
        }
        return (size, nil)
    }
}
