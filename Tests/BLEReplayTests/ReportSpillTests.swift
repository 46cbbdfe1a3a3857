import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// A faithful replay's JSON and JUnit reports with their connections spilled to a temporary file
/// (issue 17: the verdicts of 61,424 links were held to the end for the counts that come before
/// them): the same bytes whatever the spill limit, and the same as the reports made from kept
/// verdicts.
@Suite struct ReportSpillTests {
    @Test func spilledTextComesBackWholeAcrossBlocksAndCharacters() throws {
        let spill = SpillText(limit: 100)
        // 5-byte pieces of 1- and 4-byte characters: 64 KiB read blocks end inside a character.
        var expected = ""
        for i in 0..<40_000 {
            let piece = i % 7 == 0 ? "é\u{1F642}" : "a\u{1F642}"
            spill.append(piece)
            expected += piece
        }
        #expect(spill.fileLength > 1 << 17)
        var back = ""
        var blocks = 0
        try spill.drain { back += $0; blocks += 1 }
        #expect(back == expected)
        #expect(blocks > 2)
        // Empty again, and reusable.
        #expect(spill.isEmpty)
        spill.append("second")
        back = ""
        try spill.drain { back += $0 }
        #expect(back == "second")
    }

    @Test func theSpillFileIsGoneWithTheReport() throws {
        var path: String?
        do {
            let spill = SpillText(limit: 1)
            spill.append("x")
            path = spill.filePath
            #expect(path.map { FileManager.default.fileExists(atPath: $0) } == true)
        }
        #expect(path.map { FileManager.default.fileExists(atPath: $0) } == false)
    }

    /// Every sample capture in one run (nested JSON, one suite), spilled at every append, never,
    /// and made from kept verdicts: the same bytes.
    @Test func reportsAreTheSameSpilledOrNot() throws {
        let sessions = try TestCaptures.samples.map { try TestCaptures.session(TestCaptures.sample($0)) }
        let directory = try TemporaryDirectory(prefix: "spill-test")
        var outputs: [(json: String, junit: String)] = []
        for limit in [1, 1 << 20, Int.max] {
            var request = ReplayRequest()
            request.json = true
            request.spillLimit = limit
            request.junitPath = "\(directory.path)/junit-\(limit).xml"
            let out = ReplayRunner.run(sessions, request)
            #expect(out.stderr.isEmpty)
            outputs.append((out.stdout, try String(contentsOfFile: request.junitPath!, encoding: .utf8)))
        }
        var configuration = ReplayConfiguration()
        configuration.unmatched = .strict
        let results = sessions.map { FaithfulReplay.run($0, configuration: configuration).0 }
        let json = JSON.array(results.map(FaithfulReport.json)).serialized(pretty: true) + "\n"
        let junit = FaithfulReport.junit(results).xml()
        #expect(junit.contains("<testcase"))
        for o in outputs {
            #expect(o.json == json)
            #expect(o.junit == junit)
        }
    }
}
