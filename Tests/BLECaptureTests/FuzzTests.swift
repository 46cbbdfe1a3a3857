import BLECapture
import BLECore
import Foundation
import Testing

/// SplitMix64 (Steele, Lea, Flood 2014): the seeded generator STYLE.md asks for.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Damaged bytes of every format go through every reader without crashing.
@Suite("Fuzzing")
struct FuzzTests {
    /// Mutations per seed; raise with BLECAPTURE_FUZZ_ITERATIONS for a long run.
    static let iterations = ProcessInfo.processInfo.environment["BLECAPTURE_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 300

    static func seeds() throws -> [(String, [UInt8])] {
        var seeds = SampleCaptures.all.map { ($0.name, $0.bytes) }
        seeds.append(("bugreport-v1", try SampleCaptures.bugreport(version: 1)))
        seeds.append(("bugreport-v2", try SampleCaptures.bugreport(version: 2)))
        for name in ["btmon-monitor.btsnoop", "ios-glasses.pklg", "smartwatch-h4-phdr.pcapng"] {
            seeds.append((name, Array(try readFile(TestFiles.capture(name)).prefix(3000))))
        }
        return seeds
    }

    /// One mutation: flip bits, overwrite with interesting values, cut, or splice.
    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x0A, 0x3D]
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            guard !bytes.isEmpty else { break }
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            case 1: bytes[i] = interesting.randomElement(using: &rng) ?? 0
            case 2: bytes[i] = UInt8.random(in: 0...255, using: &rng)
            case 3: bytes.removeSubrange(i...)
            default:
                let j = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.insert(contentsOf: bytes[min(i, j)..<max(i, j)].prefix(64), at: i)
            }
        }
        return bytes
    }

    @Test("mutated captures never crash a reader")
    func mutations() throws {
        var rng = SplitMix64(seed: 0x5EED_B1E)
        for (_, seed) in try Self.seeds() {
            for _ in 0..<Self.iterations {
                let bytes = Self.mutate(seed, &rng)
                bytes.withUnsafeBytes { fuzzCaptureReaders($0) }
            }
        }
    }

    @Test("random bytes with each format's magic never crash a reader")
    func randomTails() {
        var rng = SplitMix64(seed: 42)
        let heads: [[UInt8]] = [
            Array("btsnoop\0".utf8) + .be32(1) + .be32(1002), Array("btsnoop\0".utf8) + .be32(1) + .be32(2001),
            [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00] + [UInt8](repeating: 0, count: 8) + .le32(65535) + .le32(201),
            [0x0A, 0x0D, 0x0D, 0x0A], Array("--- BEGIN:BTSNOOP_LOG_SUMMARY\n".utf8), [],
        ]
        for head in heads {
            for _ in 0..<300 {
                let tail = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                (head + tail).withUnsafeBytes { fuzzCaptureReaders($0) }
            }
        }
    }
}
