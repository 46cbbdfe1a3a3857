import Foundation
import Testing
import TestSupport

/// Names from the air hold any bytes: the text outputs keep one line per packet (and per header)
/// by escaping control characters as tshark does (`\n`, `\033`), while JSON keeps the name exactly.
@Suite struct ControlCharacterOutputCLITests {
    /// "Door", a line break, "Lock", then ESC [ 2 J (a terminal's "clear the screen").
    static let name: [UInt8] = Array("Door\nLock".utf8) + [0x1B] + Array("[2J".utf8)

    /// Scan, one advertising report naming the device, a connection to it, its end: 5 records
    /// (`HostileNameOutputCLITests.capture`, with this name).
    static func capture(at path: String) throws {
        try HostileNameOutputCLITests.capture(name: name, at: path)
    }

    @Test func textOutputsKeepOneLineAndJSONKeepsTheName() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("names.btsnoop").path
        try Self.capture(at: path)
        let escaped = #""Door\nLock\033[2J""#

        let timeline = try CLI.run(["timeline", path])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        let lines = timeline.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5, "one line per record:\n\(timeline.stdout)")
        #expect(lines[1].hasSuffix("C4:7A:3B:12:9E:52 rssi -60 \(escaped)"), "\(lines[1])")
        #expect(!timeline.stdout.contains("\u{1B}"))

        let verbose = try CLI.run(["timeline", path, "-v"])
        #expect(!verbose.stdout.contains("\u{1B}") && !verbose.stdout.contains("Door\nLock"), "\(verbose.stdout)")

        let diagnose = try CLI.run(["diagnose", path])
        #expect(diagnose.status == 0)
        #expect(diagnose.stdout.contains("Connection 1 — C4:7A:3B:12:9E:52 (random) \(escaped), handle 0x0040"), "\(diagnose.stdout)")
        #expect(!diagnose.stdout.contains("\u{1B}") && !diagnose.stdout.contains("Door\nLock"))

        let gatt = try CLI.run(["gatt", path])
        #expect(!gatt.stdout.contains("\u{1B}") && !gatt.stdout.contains("Door\nLock"), "\(gatt.stdout)")

        // JSON is exact: the parsed summary holds the name's own bytes.
        let json = try CLI.run(["timeline", path, "--json"])
        let objects = try json.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 5)
        let summary = try #require(objects[1]["summary"] as? String)
        #expect(summary.hasSuffix("\"" + String(decoding: Self.name, as: UTF8.self) + "\""), "\(summary)")
    }
}
