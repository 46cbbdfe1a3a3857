import BLECore
import Foundation
@testable import BLEReplay

/// Sessions from Scripts/blegen/sessions.py: captures with what each link holds known by
/// construction (its handle, kind, ATT PDUs and ending), read back from the generator's manifest.
struct GeneratedSession {
    struct Link {
        var handle: UInt16
        var kind: String
        var attPDUs: Int
        /// The Disconnection Complete reason, nil when the capture ended with the link up.
        var end: UInt8?
        var shapes: [String]
        /// Built with records missing (the writer dropped one): may not reproduce, must then be a capture gap.
        var gap: Bool
    }

    var seed: Int
    var path: String
    var links: [Link]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the generator into `directory`: `count` sessions from `seed`, of one named shape or random.
    static func generate(seed: Int, count: Int, shape: String? = nil, into directory: URL) throws -> [GeneratedSession] {
        var arguments = ["python3", "-m", "blegen.sessions", directory.path, "--seed", "\(seed)", "--count", "\(count)"]
        if let shape { arguments += ["--shape", shape] }
        try runPython(arguments)
        let data = try Data(contentsOf: directory.appendingPathComponent("sessions.json"))
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw Failure(description: "sessions.json is not a list")
        }
        return try list.map { m in
            guard let seed = m["seed"] as? Int, let file = m["file"] as? String, let links = m["links"] as? [[String: Any]] else {
                throw Failure(description: "sessions.json: a session without seed, file or links")
            }
            return GeneratedSession(seed: seed, path: directory.appendingPathComponent(file).path, links: links.map { l in
                Link(handle: UInt16(l["handle"] as? Int ?? 0), kind: l["kind"] as? String ?? "",
                     attPDUs: l["att_pdus"] as? Int ?? -1, end: (l["end"] as? Int).map { UInt8(truncatingIfNeeded: $0) },
                     shapes: l["shapes"] as? [String] ?? [], gap: l["gap"] as? Bool ?? false)
            })
        }
    }

    /// `python3 ARGS` in Scripts/ (where the blegen package lives).
    static func runPython(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: "\(TestCaptures.packageRoot)/Scripts")
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited \(p.terminationStatus)")
        }
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Named shapes the random sessions do not draw, replayed beside them by `make test` and the
    /// soak: Enhanced ATT bearers and GATT over BR/EDR (Scripts/blegen/sessions.py SHAPES).
    static let extraShapes = ["eatt-overlap", "eatt-timeout", "bredr-att"]

    /// Named shapes of ATT procedures, link-layer procedures, reconnections and capture clocks
    /// (`shapesNobodyDrewReproduce`).
    static let newShapes = ["att-variety", "att-variety-peripheral", "ll-procedures", "reconnect", "same-timestamps", "clock-back",
                            "padded-name"]

    /// The replay configuration `blereplay replay` uses by default (strict about unrecorded requests).
    static var configuration: ReplayConfiguration {
        var c = ReplayConfiguration()
        c.unmatched = .strict
        return c
    }

    /// The recorded end as the verdict words it, by construction.
    func expectedEnd(_ link: Link) -> String {
        if link.kind.hasSuffix("attempt") { return "LE Connection Complete status" }
        guard let end = link.end else { return "still connected" }
        return "disconnected \(hex(end))"
    }

    /// What is wrong with a replay of this session, one line per problem, each naming the seed
    /// and the connection.
    func problems(_ result: FaithfulReplayResult) -> [String] {
        guard result.verdicts.count == links.count else {
            return ["seed \(seed): \(result.verdicts.count) connection(s) replayed, the session holds \(links.count)"]
        }
        var out: [String] = []
        for (link, v) in zip(links, result.verdicts) {
            let shapes = link.shapes.isEmpty ? "plain" : link.shapes.joined(separator: ", ")
            let at = "seed \(seed) connection \(v.connectionID) handle \(hex(v.handle, width: 4)) (\(shapes))"
            guard v.kind == link.kind else { out.append("\(at): kind \(v.kind), built as \(link.kind)"); continue }
            if !link.kind.hasSuffix("attempt") {
                if v.handle != link.handle { out.append("\(at): built on handle \(hex(link.handle, width: 4))") }
                if v.recordedPDUs != link.attPDUs { out.append("\(at): \(v.recordedPDUs) ATT PDUs recorded, \(link.attPDUs) built") }
            }
            if !v.recordedEnd.hasPrefix(expectedEnd(link)) { out.append("\(at): recorded end \(v.recordedEnd), built as \(expectedEnd(link))") }
            if v.divergence != nil, link.gap, v.captureGap != nil { continue }
            if v.captureGap != nil, !link.gap { out.append("\(at): a capture gap the session was not built with: \(v.captureGap ?? "")") }
            if let d = v.divergence {
                out.append("\(at): diverged (\(d.kind)) at \(VirtualDuration.format(d.time)): expected \(d.expected), got \(d.got)")
            } else if !v.simulatedEnd.hasPrefix(expectedEnd(link)) {
                out.append("\(at): replay ended \(v.simulatedEnd), built as \(expectedEnd(link))")
            }
        }
        return out
    }
}
