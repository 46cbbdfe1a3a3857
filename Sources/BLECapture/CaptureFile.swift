/// Opens captures, detecting the format from the bytes.
public enum CaptureFile {
    /// Bytes read up front for detection (a PacketLogger record of any valid length fits).
    static let prefixLength = 128 * 1024

    /// Detects the format from the file's bytes, never its name (Android names btsnoop files
    /// `.log` and `.cfa`), and opens a streaming reader.
    ///
    /// A gzip-compressed capture (magic `1F 8B 08`) is read through zlib as the capture inside
    /// (`GzipCaptureReader`). Empty file: `.empty`. Unknown bytes: `.unknownFormat`. LE air captures (pcap LINKTYPE
    /// 251, 256, 272) are read frame by frame (see `PcapReader`); BR/EDR air captures (255), PPI
    /// wrapping an air link type, and btsnoop datalinks other than 1001/1002/2001:
    /// `.unsupported`, with a message that says what the file is.
    public static func open(_ path: String) throws(CaptureError) -> any CaptureReader {
        let source = try FileDescriptorSource(path: path)
        return try open(path: path, source: source, prefix: try readPrefix(source))
    }

    /// What the file at `path` holds, judged from the bytes `open` reads anyway: a capture (its
    /// reader's info), or an Android bugreport zip (`ZipArchive.hasMagic` on the same prefix, no
    /// extra read) with the captures inside it (`BugreportZip`). A pcap or pcapng inside gzip is
    /// judged from its first decompressed bytes only (`GzipCaptureReader`'s `headerOnly`).
    public static func probe(_ path: String) throws(CaptureError) -> CaptureProbe {
        let source = try FileDescriptorSource(path: path)
        let prefix = try readPrefix(source)
        if ZipArchive.hasMagic(prefix) { return .bugreport(try BugreportZip.open(path)) }
        if GzipSource.hasMagic(prefix) {
            // A pcap inside is not decompressed whole for its header: the import opens it again.
            return .capture(try GzipCaptureReader(source: source, prefix: prefix, path: path, headerOnly: true).info)
        }
        return .capture(try open(path: path, source: source, prefix: prefix).info)
    }

    private static func open(path: String, source: FileDescriptorSource, prefix: [UInt8]) throws(CaptureError) -> any CaptureReader {
        // libpcap reopens a regular file itself; a FIFO or device goes through memory instead.
        if let status = Syscall.status(source.fileDescriptor), status.isRegularFile,
           let format = detect(prefix: prefix), format == .pcap || format == .pcapng {
            try checkPcapHeader(fileSize: status.size, format: format, path: path)
            return try PcapReader(path: path)
        }
        return try open(source: source, prefix: prefix, path: path)
    }

    /// Opens a reader over any byte source (stdin, a pipe, memory): btsnoop, PacketLogger and
    /// btsnooz stream; pcap and pcapng are read into memory first (libpcap needs a `FILE`), or,
    /// inside gzip, decompressed to a scratch file (`GzipCaptureReader`).
    public static func open(source: any ByteSource, path: String? = nil) throws(CaptureError) -> any CaptureReader {
        let prefix = try readPrefix(source)
        return try open(source: source, prefix: prefix, path: path ?? source.name)
    }

    static func open(source: any ByteSource, prefix: [UInt8], path: String) throws(CaptureError) -> any CaptureReader {
        guard !prefix.isEmpty else {
            throw CaptureError(path: path, offset: 0, kind: .empty, message: "file is empty")
        }
        if GzipSource.hasMagic(prefix) {
            return try GzipCaptureReader(source: source, prefix: prefix, path: path)
        }
        let input = InputWindow(source: source, initial: prefix)
        switch detect(prefix: prefix) {
        case .btsnoop:
            return try BtsnoopReader(input: input, path: path)
        case .pcap:
            return try openPcapInMemory(input, prefix: prefix, format: .pcap, path: path)
        case .pcapng:
            return try openPcapInMemory(input, prefix: prefix, format: .pcapng, path: path)
        case .btsnooz:
            return try BtsnoozReader(input: input, path: path)
        case .packetLogger:
            return try PacketLoggerReader(input: input, path: path)
        case nil:
            if prefix.starts(with: [0x1F, 0x8B]), prefix.count >= 3 {
                throw CaptureError(path: path, offset: 2, kind: .corrupt, message: unknownMessage(prefix))
            }
            if prefix.count < 8 {
                throw CaptureError(path: path, offset: 0, kind: .unknownFormat,
                                   message: "only \(prefix.count) bytes: too short for any capture format")
            }
            if looksLikeText(prefix) {
                // A bugreport keeps its btsnooz section far from the start: search all of it.
                do {
                    return try BtsnoozReader(input: input, path: path)
                } catch where error.kind == .unknownFormat {
                    throw CaptureError(path: path, offset: 0, kind: .unknownFormat, message:
                        "a text file without a --- BEGIN:BTSNOOP_LOG_SUMMARY section; not a capture")
                }
            }
            throw CaptureError(path: path, offset: 0, kind: .unknownFormat, message: unknownMessage(prefix))
        }
    }

    /// The format the first bytes of a capture announce, or nil.
    ///
    /// Order: btsnoop magic `btsnoop\0`; pcap magics (a1b2c3d4, a1b23c4d, either byte order);
    /// pcapng `0a0d0d0a`; the btsnooz BEGIN marker anywhere in `prefix`; the PacketLogger
    /// heuristic (several consecutive valid records).
    public static func detect(prefix: [UInt8]) -> CaptureFormat? {
        if prefix.starts(with: BtsnoopReader.magic) { return .btsnoop }
        if prefix.count >= 4 {
            let magic = prefix[0..<4]
            let pcapMagics: [[UInt8]] = [[0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1],
                                         [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1]]
            if pcapMagics.contains(where: { $0.elementsEqual(magic) }) { return .pcap }
            if magic.elementsEqual([0x0A, 0x0D, 0x0D, 0x0A]) { return .pcapng }
        }
        let found = prefix.withUnsafeBytes { bytes in
            BtsnoozReader.firstIndex(of: BtsnoozReader.beginMarker, in: bytes) != nil
        }
        if found { return .btsnooz }
        if prefix.withUnsafeBytes({ PacketLoggerReader.detectByteOrder($0) }) != nil { return .packetLogger }
        return nil
    }

    /// libpcap reads through a `FILE`: a stream source is read to its end into memory first.
    private static func openPcapInMemory(_ input: InputWindow, prefix: [UInt8], format: CaptureFormat,
                                         path: String) throws(CaptureError) -> any CaptureReader {
        var bytes = prefix
        var window = input
        window.consume(prefix.count)
        while try window.fill(atLeast: 1) {
            bytes.append(contentsOf: window.bytes)
            window.consume(window.available)
        }
        try checkPcapHeader(fileSize: bytes.count, format: format, path: path)
        return try PcapReader(bytes: bytes, path: path)
    }

    /// A pcap file header is 24 bytes; a pcapng Section Header Block at least 28. Shorter files
    /// are cut, not unknown (libpcap would say "unknown file format").
    static func checkPcapHeader(fileSize: Int, format: CaptureFormat, path: String) throws(CaptureError) {
        let need = format == .pcap ? 24 : 28
        if fileSize < need {
            throw CaptureError(path: path, offset: 0, kind: .corrupt, message:
                "truncated \(format.rawValue) file header (file ends after \(fileSize) of \(need) bytes)")
        }
    }

    /// Reads up to `prefixLength` bytes, stopping early once a magic number has decided the
    /// format (or gzip's has), so a live btsnoop pipe is not held up waiting for 128 KiB.
    ///
    /// `keepingBytesBeforeAnError`: a read error after some bytes ends the prefix there instead
    /// of throwing (for a source that throws it again on the next read: `GzipSource`), so that
    /// the records before damage near the start are read.
    static func readPrefix(_ source: any ByteSource, keepingBytesBeforeAnError: Bool = false) throws(CaptureError) -> [UInt8] {
        var prefix = [UInt8](repeating: 0, count: prefixLength)
        var filled = 0
        while filled < prefixLength {
            let n: Int
            do {
                n = try prefix.withUnsafeMutableBytes { buffer in
                    Result { () throws(CaptureError) -> Int in
                        try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                    }
                }.get()
            } catch where keepingBytesBeforeAnError && filled > 0 {
                break
            }
            if n <= 0 { break }
            filled += n
            guard filled >= 8 else { continue }
            let head = Array(prefix[0..<8])
            if GzipSource.hasMagic(head) { break }
            if let format = detect(prefix: head), format == .btsnoop || format == .pcap || format == .pcapng {
                break
            }
        }
        prefix.removeLast(prefixLength - filled)
        return prefix
    }

    /// Mostly printable ASCII or UTF-8, with line breaks: worth searching for a btsnooz section.
    static func looksLikeText(_ prefix: [UInt8]) -> Bool {
        let sample = prefix.prefix(4096)
        guard !sample.isEmpty else { return false }
        let control = sample.count { byte in
            byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
        }
        return control * 100 <= sample.count
    }

    /// Names what the bytes look like when they are no capture at all.
    static func unknownMessage(_ prefix: [UInt8]) -> String {
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return "a ZIP archive (an Android bugreport zip?): give it as a file, which every command reads, "
                + "not as a stream"
        }
        if prefix.starts(with: [0x1F, 0x8B]), prefix.count >= 3 {
            // Method 8 is read (`GzipCaptureReader`); RFC 1952 2.3.1 defines no other.
            return "the gzip magic (1f 8b), but compression method \(prefix[2]), not 8 (deflate), the only one gzip "
                + "defines: a damaged gzip file"
        }
        let head = prefix.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: " ")
        return "unknown capture format (first bytes \(head)); blereplay reads btsnoop, pcap/pcapng "
            + "(HCI: LINKTYPE 187/201/254; sniffers' link layer: 251/256/272, and PPI around them), "
            + "PacketLogger and Android bugreports with a btsnooz log"
    }
}
