import Foundation
import BLETimeline
@testable import BLEAnalysis

/// A capture built from spec bytes (`SpecCapture`), written as a btsnoop file in a scratch
/// directory, imported and analysed: its timeline is handed to `body`, then removed.
enum AnalysedSpecCapture {
    static func withTimeline<T>(_ bytes: [UInt8], _ body: (TimelineStore) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spec-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("capture.btsnoop").path
        try Data(bytes).write(to: URL(fileURLWithPath: capture))
        let db = directory.appendingPathComponent("t.db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        return try body(store)
    }
}
