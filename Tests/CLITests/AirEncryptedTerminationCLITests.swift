import Foundation
import Testing
import TestSupport

/// `diagnose` of a sniffer's capture of an encrypted link whose last PDU is an encrypted LL
/// Control PDU of an LL_TERMINATE_IND's length (opcode, error code and a 4-byte MIC: 6 bytes,
/// Core v5.4 Vol 6 Part B 2.4.2, 5.1.6) and then silence (`blegen.air --nordic 2`): most likely
/// the termination, said as an inference with no reason code. Not when the length does not fit,
/// nor when the capture ends with the link (no silence seen).
@Suite("blereplay diagnose: an encrypted link's termination on air")
struct AirEncryptedTerminationCLITests {
    func diagnose(_ arguments: [String], transform: ((Data) -> Data)? = nil) throws -> String {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("air.pcap").path
        try BlegenSessions.run("air", arguments + [capture])
        if let transform {
            try transform(try Data(contentsOf: URL(fileURLWithPath: capture))).write(to: URL(fileURLWithPath: capture))
        }
        let r = try CLI.run(["diagnose", capture])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    /// The first `records` records of a classic pcap (24-byte file header; each record a 16-byte
    /// header whose third u32 is its captured length).
    static func firstRecords(_ records: Int) -> (Data) -> Data {
        { data in
            let bytes = [UInt8](data)
            var offset = 24
            for _ in 0..<records where offset + 16 <= bytes.count {
                let length = Int(bytes[offset + 8]) | Int(bytes[offset + 9]) << 8 | Int(bytes[offset + 10]) << 16 | Int(bytes[offset + 11]) << 24
                offset += 16 + length
            }
            return Data(bytes[0..<min(offset, bytes.count)])
        }
    }

    @Test(arguments: ["2", "3"]) func aTerminateLengthPDUThenSilence(version: String) throws {
        let out = try diagnose(["--nordic", version])
        #expect(out.contains("ended: most likely by the central's LL_TERMINATE_IND (inferred) at packet 46"), "\(out)")
        #expect(out.contains("INFO    terminate-encrypted-on-air"), "\(out)")
        #expect(!out.contains("ended: not in the capture"))
    }

    @Test func anotherLengthIsNotATermination() throws {
        let out = try diagnose(["--nordic-ending", "5"])
        #expect(out.contains("ended: not in the capture"), "\(out)")
        #expect(!out.contains("terminate-encrypted-on-air"))
    }

    /// Cut after the peripheral's Empty PDU that acknowledges it (packet 47) and two of its
    /// advertisements: the capture shows no silence long enough to say the link ended there.
    @Test func noSilenceNoInference() throws {
        let out = try diagnose(["--nordic", "2"], transform: Self.firstRecords(49))
        #expect(!out.contains("terminate-encrypted-on-air"), "\(out)")
        #expect(!out.contains("LL_TERMINATE_IND (inferred)"), "\(out)")
    }
}
