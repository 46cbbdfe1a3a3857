#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether two paths name one file, however they are spelt: `x.db` and `./x.db`, a relative and
/// an absolute path, a symbolic link and its target, two hard links. A path that does not exist
/// yet is the file its directory's real path and its name would make.
enum SameFile {
    static func check(_ a: String, _ b: String) -> Bool {
        if let ka = key(a), let kb = key(b), ka == kb { return true }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The real path of `path`, or of its directory followed by its name when it does not exist.
    static func key(_ path: String) -> String? {
        if let real = realPath(path) { return real }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != "..", let real = realPath(directory) else { return nil }
        return real == "/" ? "/" + name : real + "/" + name
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension SameFile {
    /// Refuses a command line whose output would overwrite one of its inputs, or another of its
    /// outputs, under any spelling: `export x.db -o ./x.db` replaced the timeline with a btsnoop
    /// file, `replay cap.log --write-capture cap.log` the recording with the simulation.
    /// - Parameters:
    ///   - inputs: each file read, as given, with what it is (`the input`, `the followed file`).
    ///   - outputs: each file written, with the option that names it (`-o`, `--junit`).
    static func refuseOverwriting(inputs: [(role: String, path: String)], outputs: [(option: String, path: String)]) throws(Arguments.UsageError) {
        for (index, output) in outputs.enumerated() {
            if let input = inputs.first(where: { check($0.path, output.path) }) {
                throw Arguments.UsageError(message: "\(output.option) \(output.path) is \(input.role) \(input.path)"
                                           + (output.path == input.path ? "" : " (the same file)") + ": it would be overwritten; write to another file")
            }
            if let other = outputs[(index + 1)...].first(where: { check($0.path, output.path) }) {
                throw Arguments.UsageError(message: "\(output.option) \(output.path) and \(other.option) \(other.path) name the same file: each output needs its own")
            }
        }
    }
}
