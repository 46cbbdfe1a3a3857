#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

/// Turns the report's INPUT arguments into the list of files to read.
///
/// A directory is walked recursively in name order, hidden entries (`.name`) and files that
/// are plainly not captures (`skippedExtensions`: documentation, reports, scripts) skipped;
/// files named on the command line are always read, in the order given; the same file named
/// twice is read once. A path that cannot be opened becomes a failed input with the reason.
/// Symbolic links are followed, each directory walked once (by device and inode): a link back
/// to a directory above (`sub/up -> ..`) walked the same files 40 levels deep, then failed the
/// report with "Too many levels of symbolic links".
public enum ReportInputs {
    /// Extensions skipped inside directories: a capture folder's README or a previous report
    /// is not an input. (`.txt` is read: Android bug reports carry btsnooz logs.)
    public static let skippedExtensions: Set<String> = ["md", "markdown", "html", "htm", "csv", "json", "py", "swift", "sh", "png", "svg"]

    public struct Expansion: Sendable {
        /// Regular files to read, in a stable order.
        public var files: [String]
        /// Arguments that name nothing readable.
        public var problems: [InputOutcome]
    }

    public static func expand(_ arguments: [String]) -> Expansion {
        var files: [String] = []
        var problems: [InputOutcome] = []
        var seen: Set<String> = []
        var walked: Set<FileIdentity> = []
        func add(_ path: String) {
            if seen.insert(path).inserted { files.append(path) }
        }
        for argument in arguments {
            var st = stat()
            guard stat(argument, &st) == 0 else {
                problems.append(.failed(argument, reason: "\(argument): \(String(cString: strerror(errno)))"))
                continue
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                walk(argument, identity: FileIdentity(st), walked: &walked, into: add, problems: &problems)
            } else {
                add(argument)
            }
        }
        return Expansion(files: files, problems: problems)
    }

    /// A file's device and inode: the same directory whatever path reaches it.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// Adds the regular files under `directory` (whose identity is `identity`) unless it was
    /// walked already.
    static func walk(_ directory: String, identity: FileIdentity, walked: inout Set<FileIdentity>,
                     into add: (String) -> Void, problems: inout [InputOutcome]) {
        guard walked.insert(identity).inserted else { return }
        guard let dir = opendir(directory) else {
            problems.append(.failed(directory, reason: "\(directory): \(String(cString: strerror(errno)))"))
            return
        }
        var names: [String] = []
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        while let entry = readdir(dir) {
            let bytes = DirectoryEntry.name(of: entry)
            let name = String(decoding: bytes, as: UTF8.self)
            if name.hasPrefix(".") { continue }
            // Paths are Swift strings (UTF-8): a name that is not UTF-8 would be opened under its
            // repaired spelling, a file that does not exist. Said as it is instead.
            guard String(validating: bytes, as: UTF8.self) != nil else {
                problems.append(.failed("\(base)/\(name)", reason: "\(base)/\(name): the file name is not UTF-8 (bytes "
                                        + bytes.map(hex2).joined(separator: " ")
                                        + "); blereplay opens files by UTF-8 names and cannot open this one: rename it"))
                continue
            }
            if let dot = name.lastIndex(of: "."), skippedExtensions.contains(name[name.index(after: dot)...].lowercased()) { continue }
            names.append(name)
        }
        closedir(dir)
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let path = "\(base)/\(name)"
            var st = stat()
            guard stat(path, &st) == 0 else {
                problems.append(.failed(path, reason: "\(path): \(String(cString: strerror(errno)))"))
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR: walk(path, identity: FileIdentity(st), walked: &walked, into: add, problems: &problems)
            case S_IFREG: add(path)
            default: continue
            }
        }
    }
}

/// What became of one input of the report.
public struct InputOutcome: Sendable {
    public enum Status: String, Sendable {
        /// Read to the end.
        case read
        /// Read up to damage (or a cut-short last record): what was readable is counted.
        case partial
        /// Nothing could be read.
        case failed
        /// The same capture (SHA-256) was already counted from another input.
        case duplicate
    }

    public var path: String
    /// `capture`, `bugreport` (a zip whose logs were read as captures) or `timeline`; nil when the
    /// file could not be opened at all.
    public var kind: String?
    public var status: Status
    /// Why it failed, or where the damage is.
    public var reason: String?
    public var warnings: [String]
    public var formatDescription: String?
    /// Captures counted from this input.
    public var captures: Int

    /// The reason of a `duplicate` input: the capture its captures are counted in.
    public static func duplicateReason(countedFrom label: String) -> String {
        "already counted from \(label)"
    }

    /// The warning of an input holding a capture counted from another input (same SHA-256).
    public static func sameCaptureNote(_ label: String, countedFrom first: String) -> String {
        "\(label): same capture as \(first), counted once"
    }

    /// The warning of an input holding an earlier copy of a log counted from a longer copy.
    public static func shorterCopyNote(_ shorter: String, longer: String) -> String {
        "\(shorter): an earlier copy of the log in \(longer) (its bytes begin that capture), counted once, from \(longer)"
    }

    public static func failed(_ path: String, reason: String) -> InputOutcome {
        InputOutcome(path: path, kind: nil, status: .failed, reason: reason, warnings: [], formatDescription: nil, captures: 0)
    }
}
