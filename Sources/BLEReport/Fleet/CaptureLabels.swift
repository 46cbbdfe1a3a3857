/// How the report names the captures of one timeline input: the input itself when it holds one
/// capture; else `INPUT (NAME)` with NAME the capture's file name, or its path when another
/// capture of the timeline has the same file name (`btsnoop_hci.log` from two phones), with
/// ` #k` (k-th in capture id order) when even the paths are the same (a file imported again
/// after it changed). Labels must differ: `by_capture` and the `connections` table group by them.
enum CaptureLabels {
    struct Capture {
        var id: Int64
        var path: String
        var fileName: String?
    }

    static func labels(_ captures: [Capture], input: String) -> [String] {
        guard captures.count > 1 else { return captures.map { _ in input } }
        let names = captures.map { $0.fileName ?? "capture \($0.id)" }
        var nameCount: [String: Int] = [:], pathCount: [String: Int] = [:], pathSeen: [String: Int] = [:]
        for (c, name) in zip(captures, names) {
            nameCount[name, default: 0] += 1
            pathCount[c.path, default: 0] += 1
        }
        return zip(captures, names).map { c, name in
            guard nameCount[name, default: 0] > 1 else { return "\(input) (\(name))" }
            guard pathCount[c.path, default: 0] > 1 else { return "\(input) (\(c.path))" }
            pathSeen[c.path, default: 0] += 1
            return "\(input) (\(c.path) #\(pathSeen[c.path]!))"
        }
    }
}
