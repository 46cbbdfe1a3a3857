import BLECore

/// An `adb bugreport` zip, as the captures it holds: its btsnoop logs, or, when it has none, the
/// btsnooz section of its main text; with the phone's identity from that text's header.
///
/// Layout (AOSP `frameworks/native/cmds/dumpstate/bugreport-format.md` and `dumpstate.cpp`):
/// from Android N on, dumpstate writes the zip itself, with the main text
/// `bugreport-BUILD_ID-DATE.txt`, `version.txt` and `main_entry.txt` (which names the main text),
/// and copies device files under `FS/`: `ds.AddDir("/data/misc/bluetooth/logs")` puts the
/// snoop logs (`btsnoop_hci.log`, the rotated `btsnoop_hci.log.last`, and the
/// `.filtered`/`.filtered.last` of the filtered snoop mode) under `FS/data/misc/bluetooth/logs/`.
/// On Android M the Shell app zips the flat `bugreport-DATE.txt` alone. Some phones keep their
/// snoop log in `/data/log/bt/` (`FS/data/log/bt/btsnoop_hci.log`). Where no full log is in the
/// zip, the main text still carries dumpsys bluetooth_manager's btsnooz ring buffer.
///
/// Bounded (`Limits`): members are never unpacked to disk, and a member whose declared size is
/// absurd, or whose compression ratio only a bomb reaches, is refused before a byte is inflated.
///
/// A zip cut short (its central directory gone) is read from its local file headers up to the
/// cut (`ZipArchive`): the same choice of logs, from the members found, with a warning; a member
/// without sizes there is inflated to find its end, never past `Limits`.
public struct BugreportZip: Sendable {
    /// Caps on what a bugreport zip may declare.
    public enum Limits {
        /// Members listed in the central directory, or found from their local headers.
        public static let members = 1_000_000
        /// Uncompressed size of one member read (a log or the main text): 2 GiB. Android rotates
        /// its snoop log after 65,535 packets (AOSP `btsnoop.cc`), and a bugreport text is
        /// tens of MiB.
        public static let memberSize: UInt64 = 1 << 31
        /// Uncompressed to compressed size, for members over `ratioFloor` bytes: deflate reaches
        /// about 1,032:1 at most, bombs sit near that, btsnoop logs and bugreport text at 5-30:1.
        public static let ratio: UInt64 = 200
        public static let ratioFloor: UInt64 = 1 << 20
    }

    /// Directories whose `btsnoop*`/`btsnooz*` files are snoop logs by their name alone (an empty
    /// or damaged one there is still reported as a log); anywhere else a member is a log when
    /// its bytes are (`sniff`).
    public static let logDirectories = ["FS/data/misc/bluetooth/logs/", "FS/data/log/bt/"]

    /// Bytes inflated from a member to tell a capture from anything else: enough for several
    /// PacketLogger records; btsnoop, pcap and pcapng announce themselves in the first 8.
    static let sniffLength = 4096

    public let path: String
    /// The captures in it, in member-name order.
    public let logs: [BugreportLog]
    /// The main bugreport text, when the zip has one.
    public let mainEntry: String?
    /// From the main text; nil without one, or when it names nothing.
    public let phone: PhoneIdentity?
    /// What the caller should tell the user about the choice of logs (a btsnooz ring buffer read
    /// because the full logs were empty or unreadable, say).
    public let warnings: [String]

    /// Lists the captures of the zip at `path`.
    ///
    /// A log is every member whose bytes are a capture format blereplay reads (btsnoop, pcap,
    /// pcapng, PacketLogger), wherever it sits and whatever its name (Samsung's
    /// `FS/data/log/bt/hci_snoop…cfa`, a plain zip of `btsnoop_hci.log`), plus the
    /// `btsnoop*`/`btsnooz*` files of `logDirectories`. Full logs win over the main text's
    /// btsnooz section, which is read only when there is none (with a warning when log-named
    /// members were there but empty or unreadable). Not sniffed: directories, empty members,
    /// the main text, and members `Limits` refuses (named in the error when nothing qualifies).
    ///
    /// Throws `.unknownFormat` when it holds no Bluetooth log (saying what it holds and why
    /// nothing qualified), `.corrupt` when neither libzip nor the local headers give a member or
    /// a log is refused by `Limits`.
    public static func open(_ path: String) throws(CaptureError) -> BugreportZip {
        let archive = try ZipArchive(path: path)
        let entries = try archive.entries(limit: Limits.members)
        let byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let main = try mainEntry(entries, byName: byName, archive: archive)
        let named = entries.filter(isLogName)
        var sniffed: [ZipArchive.Entry] = []
        var unreadable: [String] = []
        var refused: [String] = []
        for entry in entries where !entry.isDirectory && entry.size > 0 && entry.name != main?.name && !isLogName(entry) {
            if (try? check(entry, in: path)) == nil {
                refused.append(entry.name)
                continue
            }
            switch sniff(entry, archive: archive) {
            case .some(true): sniffed.append(entry)
            case .some(false): break
            case nil: unreadable.append(entry.name)
            }
        }
        let candidates = (named + sniffed).sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let logEntries = candidates.filter { $0.size > 0 }
        for entry in logEntries + [main].compactMap({ $0 }) { try check(entry, in: path) }

        var phone: PhoneIdentity?
        var hasBtsnooz = false
        if let main {
            let source = try archive.open(main, name: "\(path)!\(main.name)")
            // In a zip cut short, a main text the cut reaches gives what precedes the cut.
            let scan = try BugreportHeader.scan(source, needsBtsnooz: logEntries.isEmpty, upToDamage: archive.recoveryWarning != nil)
            phone = scan.phone.isEmpty ? nil : scan.phone
            hasBtsnooz = scan.hasBtsnooz
        }
        var chosen = logEntries
        var warnings = [archive.recoveryWarning].compactMap { $0 }
        if chosen.isEmpty, let main, hasBtsnooz {
            chosen = [main]
            let empty = candidates.map(\.name)
            if !empty.isEmpty || !unreadable.isEmpty {
                warnings.append("\(path): read the btsnooz ring buffer of \(main.name) (only the last packets before the bugreport) "
                    + "because the full log\(empty.count + unreadable.count == 1 ? "" : "s") "
                    + (empty.isEmpty ? "" : "\(empty.joined(separator: ", ")) \(empty.count == 1 ? "is" : "are") empty")
                    + (empty.isEmpty || unreadable.isEmpty ? "" : " and ")
                    + (unreadable.isEmpty ? "" : "\(unreadable.joined(separator: ", ")) could not be inflated"))
            }
        }
        guard !chosen.isEmpty else {
            throw CaptureError(path: path, kind: .unknownFormat,
                               message: noLogMessage(entries, empty: candidates, main: main,
                                                     unreadable: unreadable, refused: refused)
                                   + (archive.recoveryNote.map { "; " + $0 } ?? ""))
        }
        let logs = chosen.map { BugreportLog(archivePath: path, location: $0.location, member: $0.name, size: $0.size, phone: phone) }
        return BugreportZip(path: path, logs: logs, mainEntry: main?.name, phone: phone, warnings: warnings)
    }

    /// `FS/data/misc/bluetooth/logs/btsnoop_hci.log` and its rotations, in a known log directory.
    static func isLogName(_ entry: ZipArchive.Entry) -> Bool {
        guard !entry.isDirectory, let directory = logDirectories.first(where: { entry.name.hasPrefix($0) }) else { return false }
        let base = entry.name.dropFirst(directory.count)
        return !base.contains("/") && (base.hasPrefix("btsnoop") || base.hasPrefix("btsnooz"))
    }

    /// Whether the member's first bytes are a capture format blereplay reads
    /// (`CaptureFile.detect`; btsnooz text is left to the main text's scan); nil when they cannot
    /// be inflated.
    static func sniff(_ entry: ZipArchive.Entry, archive: ZipArchive) -> Bool? {
        guard let source = try? archive.open(entry, name: "\(archive.path)!\(entry.name)") else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: sniffLength)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                try? source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            }
            guard let n else { return filled >= 8 ? isCapture(Array(bytes[0..<filled])) : nil }
            if n <= 0 { break }
            filled += n
        }
        return isCapture(Array(bytes[0..<filled]))
    }

    private static func isCapture(_ prefix: [UInt8]) -> Bool {
        switch CaptureFile.detect(prefix: prefix) {
        case .btsnoop, .pcap, .pcapng, .packetLogger: true
        case .btsnooz, nil: false
        }
    }

    /// The member `main_entry.txt` names; else a top-level `bugreport*.txt` or `dumpstate*.txt`
    /// (the Android M zip has no `main_entry.txt`).
    static func mainEntry(_ entries: [ZipArchive.Entry], byName: [String: ZipArchive.Entry],
                          archive: ZipArchive) throws(CaptureError) -> ZipArchive.Entry? {
        if let pointer = byName["main_entry.txt"], pointer.size > 0, pointer.size <= 4096 {
            let source = try archive.open(pointer, name: "\(archive.path)!main_entry.txt")
            var bytes = [UInt8](repeating: 0, count: Int(pointer.size) + 1)
            var filled = 0
            while filled < bytes.count {
                let n = try bytes.withUnsafeMutableBytes { buffer in
                    Result { () throws(CaptureError) -> Int in
                        try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                    }
                }.get()
                if n <= 0 { break }
                filled += n
            }
            let blank: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09, 0x00]
            let text = bytes[0..<filled].drop { blank.contains($0) }
            let named = String(decoding: text.reversed().drop { blank.contains($0) }.reversed(), as: UTF8.self)
            if let entry = byName[named] { return entry }
        }
        return entries.first { e in
            !e.name.contains("/") && e.name.hasSuffix(".txt") && (e.name.hasPrefix("bugreport") || e.name.hasPrefix("dumpstate"))
        }
    }

    /// Refuses a member whose declared sizes only a bomb or a damaged directory would give.
    static func check(_ entry: ZipArchive.Entry, in path: String) throws(CaptureError) {
        let name = "\(path)!\(entry.name)"
        // A member without sizes in its local header (read without the central directory) was
        // inflated to find its end, never past the limits: what it gave is what is judged.
        let declares = entry.sizeIsDeclared ? "declares" : "inflates to"
        if entry.size > Limits.memberSize {
            throw CaptureError(path: name, kind: .corrupt, message:
                "zip member \(declares) \(entry.sizeIsDeclared ? "" : "over ")\(entry.size) bytes uncompressed, "
                    + "more than the \(Limits.memberSize) blereplay reads: refused")
        }
        if entry.size > Limits.ratioFloor, entry.size / max(entry.compressedSize, 1) > Limits.ratio {
            throw CaptureError(path: name, kind: .corrupt, message:
                "zip member \(declares) \(entry.size) bytes from \(entry.compressedSize) compressed, a ratio over "
                    + "\(Limits.ratio):1 that only a zip bomb reaches: refused")
        }
    }

    /// What a zip without a Bluetooth log holds, and why none of it qualified.
    static func noLogMessage(_ entries: [ZipArchive.Entry], empty: [ZipArchive.Entry], main: ZipArchive.Entry?,
                             unreadable: [String] = [], refused: [String] = []) -> String {
        let files = entries.filter { !$0.isDirectory }
        let shown = files.prefix(5).map(\.name).joined(separator: ", ")
        let more = files.count > 5 ? ", … (\(files.count - 5) more)" : ""
        var why = "no member holds a btsnoop, pcap, pcapng or PacketLogger capture"
        if !empty.isEmpty { why += " (\(empty.map(\.name).joined(separator: ", ")) empty)" }
        if !unreadable.isEmpty { why += "; \(unreadable.joined(separator: ", ")) could not be inflated" }
        if !refused.isEmpty { why += "; \(refused.joined(separator: ", ")) refused for size" }
        why += main.map { " and no --- BEGIN:BTSNOOP_LOG_SUMMARY section in \($0.name)" } ?? " and no bugreport text"
        let holds = files.isEmpty ? "no files" : "\(files.count) file\(files.count == 1 ? "" : "s"): \(shown)\(more)"
        return "a zip without a Bluetooth log: \(why); it holds \(holds)"
    }
}

/// One capture inside a bugreport zip, named `ZIP!member`.
public struct BugreportLog: Sendable, Hashable {
    public var archivePath: String
    /// Where the member is found again: its central directory index, or, in a zip read from its
    /// local headers (cut short or damaged at its end), its local header.
    public var location: ZipMemberLocation
    /// The member's path inside the zip.
    public var member: String
    /// Its declared uncompressed size.
    public var size: UInt64
    public var phone: PhoneIdentity?

    /// `ZIP!member`: how the timeline and every message name this capture.
    public var name: String { "\(archivePath)!\(member)" }

    /// The member's bytes, streamed (the archive is opened again: one libzip handle per reader),
    /// in the mode the zip was read in: by directory index through libzip, or by local header.
    public func source() throws(CaptureError) -> ZipMemberSource {
        switch location {
        case .directory:
            return try ZipArchive(path: archivePath).open(location, declaredSize: size, name: name)
        case .localHeader(let member):
            return try ZipMemberSource(reading: ZipLocalMemberReader(path: archivePath, member: member, name: name),
                                       declaredSize: size, name: name)
        }
    }

    /// A reader of the member's capture. A member the end of a cut zip reaches ends where its
    /// bytes do, as a capture file cut short does, with a warning naming where
    /// (`ZipMemberSource.cutWarning`).
    public func reader() throws(CaptureError) -> any CaptureReader {
        let source = try source()
        guard source.isCut else { return try CaptureFile.open(source: source, path: name) }
        do {
            return CutZipMemberReader(inner: try CaptureFile.open(source: source, path: name), source: source)
        } catch {
            var error = error
            if let cut = source.cutWarning { error.message += "; " + cut.message }
            throw error
        }
    }
}

/// A member's reader whose warnings end with the cut of a zip cut short inside the member: the
/// capture ends there even when the cut falls between two records.
struct CutZipMemberReader: CaptureReader {
    var inner: any CaptureReader
    let source: ZipMemberSource

    var info: CaptureInfo { inner.info }
    var path: String { inner.path }
    var warnings: [CaptureWarning] { inner.warnings + [source.cutWarning].compactMap { $0 } }
    var notes: [CaptureWarning] { inner.notes }
    var bytesRead: Int { inner.bytesRead }

    mutating func next() throws(CaptureError) -> CaptureRecord? { try inner.next() }
}
