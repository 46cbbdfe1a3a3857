import BLECore

/// A capture compressed with gzip (`capture.btsnoop.gz`, as people attach captures to bug
/// reports; Wireshark reads them as they are): the reader of the capture inside, fed by a
/// `GzipSource`.
///
/// Told by its bytes (`GzipSource.hasMagic`), never its name; the capture inside is detected
/// as any other (`CaptureFile.detect`). btsnoop, PacketLogger and btsnooz stream through zlib:
/// memory stays flat whatever they decompress to. pcap and pcapng go through libpcap, which
/// reads a `FILE` and seeks in it (`PcapReader`): they are decompressed to a scratch file under
/// `$TMPDIR` first (a `TemporaryFile`, as `CaptureSpool` copies a pipe), which costs disk, not
/// memory, and is removed with the reader.
///
/// Offsets (of records, warnings and errors) are the decompressed capture's, as the reader inside
/// counts them; a message from the reader inside says so ("in the decompressed data: …"). The
/// gzip stream's own damage (`GzipSource`) names both the decompressed and the compressed byte.
/// `bytesRead` counts compressed bytes, the file's, for progress.
///
/// Refused, saying what the file is: a gzip inside a gzip, a gzip of a zip (a bugreport zip is
/// read as a file, not as a stream), a gzip that decompresses to nothing.
public struct GzipCaptureReader: CaptureReader {
    public let info: CaptureInfo
    public let path: String
    private var inner: any CaptureReader
    private let gzip: GzipSource
    /// pcap/pcapng: the decompressed file libpcap reads, its size, and the damage that stopped
    /// decompression into it (thrown once the records before it have been read).
    private let scratch: TemporaryFile?
    private let scratchSize: Int
    private let scratchFailure: CaptureError?
    private var state = ReaderState.reading

    /// Reads the gzip file's first decompressed bytes and opens the reader of the capture in
    /// them. `prefix` holds the file's first bytes, already read from `source` (they start
    /// with the gzip magic).
    ///
    /// `headerOnly`, for `CaptureFile.probe`, which wants `info` alone: a pcap or pcapng inside
    /// is decompressed only as far as `headerBytes` (libpcap reads its file header, first
    /// blocks and first packet from there), so its records end early; the import opens the
    /// capture again to read them.
    init(source: any ByteSource, prefix: [UInt8], path: String, headerOnly: Bool = false) throws(CaptureError) {
        self.path = path
        gzip = try GzipSource(source: source, initial: prefix, name: path)
        let inside = try CaptureFile.readPrefix(gzip, keepingBytesBeforeAnError: true)
        try Self.refuseWhatIsNoCapture(inside, gzip: gzip, path: path)
        let format = CaptureFile.detect(prefix: inside)
        if format == .pcap || format == .pcapng, let format {
            let spooled = try Self.decompressToScratchFile(gzip, first: inside, path: path,
                                                           upTo: headerOnly ? Self.headerBytes : .max)
            scratch = spooled.file
            scratchSize = spooled.size
            scratchFailure = spooled.failure
            do throws(CaptureError) {
                try CaptureFile.checkPcapHeader(fileSize: spooled.size, format: format, path: path)
                inner = try PcapReader(path: spooled.file.path)
            } catch {
                throw spooled.failure ?? Self.openError(error, path: path, gzip: gzip)
            }
        } else {
            scratch = nil
            scratchSize = 0
            scratchFailure = nil
            do throws(CaptureError) {
                inner = try CaptureFile.open(source: gzip, prefix: inside, path: path)
            } catch {
                throw Self.openError(error, path: path, gzip: gzip)
            }
        }
        var info = inner.info
        info.formatDescription += ", gzip-compressed"
        self.info = info
    }

    public var warnings: [CaptureWarning] {
        inner.warnings.map(Self.insideWarning) + gzip.endWarnings
    }

    public var notes: [CaptureWarning] { inner.notes.map(Self.insideWarning) }

    /// Compressed bytes read: of the file, as progress measures it. For a pcap read from the
    /// scratch file, the compressed share of what libpcap has read.
    public var bytesRead: Int {
        guard scratch != nil else { return gzip.compressedPosition }
        guard scratchSize > 0 else { return gzip.compressedPosition }
        let share = Double(inner.bytesRead) / Double(scratchSize)
        return Int(Double(gzip.compressedPosition) * min(share, 1))
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        guard case .reading = state else { return try state.stoppedResult() }
        do throws(CaptureError) {
            if let record = try inner.next() { return record }
        } catch {
            let stop = Self.insideError(error, path: path, gzip: gzip)
            state = .failed(stop)
            throw stop
        }
        if let scratchFailure {
            state = .failed(scratchFailure)
            throw scratchFailure
        }
        state = .finished
        return nil
    }

    /// An error of the reader inside, under the capture's name, saying its offset is the
    /// decompressed data's; the gzip stream's own damage as it is.
    private static func insideError(_ error: CaptureError, path: String, gzip: GzipSource) -> CaptureError {
        if error == gzip.failure { return error }
        var error = error
        error.path = path
        error.message = "in the decompressed data: " + error.message
        return error
    }

    /// Why the reader inside could not start, and, when the gzip file was cut or went on with
    /// bytes that are no member, that too: a capture header cut short is the cut's doing.
    private static func openError(_ error: CaptureError, path: String, gzip: GzipSource) -> CaptureError {
        var error = insideError(error, path: path, gzip: gzip)
        if error != gzip.failure, let end = gzip.endWarnings.first { error.message += "; " + end.message }
        return error
    }

    private static func insideWarning(_ warning: CaptureWarning) -> CaptureWarning {
        CaptureWarning(offset: warning.offset, message: "in the decompressed data: " + warning.message)
    }

    /// Throws for first decompressed bytes that hold no capture to read: none at all (the
    /// gzip's damage or cut, if that is why), another gzip, a zip.
    private static func refuseWhatIsNoCapture(_ inside: [UInt8], gzip: GzipSource, path: String) throws(CaptureError) {
        if inside.isEmpty {
            if let failure = gzip.failure { throw failure }
            if let why = gzip.endWarnings.first {
                throw CaptureError(path: path, offset: 0, kind: .corrupt, message: why.message + ": no capture in it")
            }
            throw CaptureError(path: path, offset: 0, kind: .empty, message: "a gzip file that decompresses to no bytes")
        }
        if GzipSource.hasMagic(inside) {
            throw CaptureError(path: path, offset: 0, kind: .unsupported, message:
                "a gzip file inside a gzip file: decompress the outer one first (gzip -d)")
        }
        if ZipArchive.hasMagic(inside) {
            throw CaptureError(path: path, offset: 0, kind: .unsupported, message:
                "a gzip-compressed ZIP archive (an Android bugreport zip?): decompress it (gzip -d) and give the zip, "
                    + "which every command reads as a file")
        }
    }

    /// What `headerOnly` decompresses of a pcap: 1 MiB.
    static let headerBytes = 1 << 20

    /// Decompresses the capture (its first `limit` bytes at most) into a scratch file for
    /// libpcap. Damage stops the copy and is kept (the bytes before it are the capture); a cut
    /// file gives what it has.
    private static func decompressToScratchFile(_ gzip: GzipSource, first: [UInt8], path: String, upTo limit: Int)
        throws(CaptureError) -> (file: TemporaryFile, size: Int, failure: CaptureError?) {
        let file: TemporaryFile
        do {
            file = try TemporaryFile.inTemporaryDirectory(prefix: "blereplay-gunzip")
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: "cannot decompress it to a scratch file: \(error.message)")
        }
        let copied = try file.copy(first: first, from: gzip, name: path, upTo: limit, what: "decompress it to")
        return (file, copied.size, copied.readFailure)
    }
}
