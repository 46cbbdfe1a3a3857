#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

/// An output of the fleet report.
public enum ReportFormat: String, Sendable, CaseIterable {
    case html, md, json, csv

    /// Parses `html,md,json,csv` (any subset, any order).
    public static func parse(_ list: String) -> Set<ReportFormat>? {
        var out: Set<ReportFormat> = []
        for item in list.split(separator: ",") {
            guard let f = ReportFormat(rawValue: item.trimmingSpaces.lowercased()) else { return nil }
            out.insert(f)
        }
        return out.isEmpty ? nil : out
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

/// Writes the report files into a directory, each through a temporary file renamed into place.
public enum ReportWriter {
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Writes the chosen formats; returns the paths written, in a stable order.
    public static func write(_ s: FleetStatistics, to directory: String, formats: Set<ReportFormat>) throws(Failure) -> [String] {
        try makeDirectories(directory)
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        var written: [String] = []
        let tables = ReportTables.make(s)
        func put(_ name: String, _ text: String) throws(Failure) {
            let path = "\(base)/\(name)"
            try writeFile(path, text)
            written.append(path)
        }
        if formats.contains(.html) { try put("report.html", ReportHTML.make(s, tables: tables)) }
        if formats.contains(.md) { try put("report.md", ReportMarkdown.make(s, tables: tables)) }
        if formats.contains(.json) { try put("report.json", ReportJSON.make(s).serialized(pretty: true) + "\n") }
        if formats.contains(.csv) {
            for t in tables { try put("\(t.id).csv", t.csv()) }
        }
        return written
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw Failure(message: "\(prefix): cannot create the directory: \(String(cString: strerror(errno)))")
            }
            prefix += "/"
        }
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(message: "\(path): not a directory")
        }
    }

    /// Writes one output file atomically (`TextFile.write`).
    static func writeFile(_ path: String, _ text: String) throws(Failure) {
        do {
            try TextFile.write(text, to: path)
        } catch {
            throw Failure(message: error.description)
        }
    }
}
