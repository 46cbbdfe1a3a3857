import BLECapture
import BLECore
import Foundation
import Testing

/// Paths of the shared real captures (`../shared/captures` beside the package root) and of
/// this target's fixtures.
enum TestFiles {
    /// The package root, three levels above this file.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func capture(_ name: String) -> String {
        packageRoot + "/../shared/captures/" + name
    }

    /// A file in the test bundle's copied `Fixtures` folder.
    static func fixture(_ name: String) -> String {
        Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")?.path
            ?? Bundle.module.bundlePath + "/Fixtures/" + name
    }
}

/// Everything a reader produced: the records, its warnings, and the error that stopped it.
struct ReadResult {
    var info: CaptureInfo?
    var records: [CaptureRecord] = []
    var warnings: [CaptureWarning] = []
    var error: CaptureError?
    var bytesRead = 0
}

/// Reads a reader to its end or its first error.
func drain(_ reader: inout any CaptureReader) -> ReadResult {
    var result = ReadResult(info: reader.info)
    do {
        while let record = try reader.next() { result.records.append(record) }
    } catch {
        result.error = error
    }
    result.warnings = reader.warnings
    result.bytesRead = reader.bytesRead
    return result
}

/// Opens `path` and reads it all; an open failure is the result's error.
func readAll(path: String) -> ReadResult {
    do {
        var reader = try CaptureFile.open(path)
        return drain(&reader)
    } catch {
        return ReadResult(error: error)
    }
}

/// Opens bytes through a memory source and reads them all.
func readAll(bytes: [UInt8], name: String = "<memory>") -> ReadResult {
    do {
        var reader = try CaptureFile.open(source: MemorySource(bytes, name: name))
        return drain(&reader)
    } catch {
        return ReadResult(error: error)
    }
}

/// A fresh directory under the system temporary directory, removed by the caller's `defer`.
func makeTemporaryDirectory() throws -> String {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("blecapture-tests-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func readFile(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The fields two readers must agree on for the same packet, whatever the container.
struct PacketView: Equatable, CustomStringConvertible {
    var timestamp: Int64
    var direction: Direction
    var kind: PacketKind
    var payload: [UInt8]

    init(_ record: CaptureRecord) {
        timestamp = record.timestamp
        direction = record.direction
        kind = record.kind
        payload = record.payload
    }

    var description: String { "\(timestamp) \(direction) \(kind) \(payload.count) bytes" }
}

/// Every field of a record, for exact round-trip comparisons.
struct RecordView: Equatable, CustomStringConvertible {
    var record: CaptureRecord
    var includeOffsets: Bool

    static func == (a: RecordView, b: RecordView) -> Bool {
        let x = a.record, y = b.record
        return x.frameNumber == y.frameNumber && x.timestamp == y.timestamp && x.direction == y.direction
            && x.kind == y.kind && x.payload == y.payload && x.originalLength == y.originalLength
            && x.controllerIndex == y.controllerIndex && x.cumulativeDrops == y.cumulativeDrops
            && x.rawType == y.rawType && (!a.includeOffsets || x.fileOffset == y.fileOffset)
    }

    var description: String {
        let r = record
        return "#\(r.frameNumber) @\(r.fileOffset) ts=\(r.timestamp) \(r.direction) \(r.kind) raw=\(r.rawType) "
            + "idx=\(r.controllerIndex) orig=\(r.originalLength) drops=\(r.cumulativeDrops) \(r.payload.count)B"
    }
}

/// Big-endian and little-endian byte builders for inline fixtures.
extension Array where Element == UInt8 {
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func le16(_ v: UInt16) -> [UInt8] { be16(v).reversed() }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
    static func le64(_ v: UInt64) -> [UInt8] { be64(v).reversed() }
}
