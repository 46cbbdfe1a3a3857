import BLECore

/// Advertising or scan-response data: a sequence of AD structures
/// (Core v5.4 Vol 3 Part C 11; Core Specification Supplement Part A).
///
/// Wire layout: `{ Length (1) | AD Type (1) | AD Data (Length - 1) }*`, then optional zero
/// padding (the non-significant part) from the first zero Length octet on.
///
/// Decoding never throws: what cannot be read is described in `problem` and everything read
/// before it is kept. Typed accessors (`localName`, `serviceUUIDs`, …) read `structures`;
/// they take what they can from a structure of the wrong size, and the size is named in
/// `problem`.
public struct AdvertisingData: Sendable, Hashable {
    /// The AD structures in the order they appeared.
    public var structures: [ADStructure]
    /// What was wrong, in words (`; ` between several findings); nil when the data is well
    /// formed. A structure that overruns the data ends the parse.
    public var problem: String?
    /// Bytes from the first zero Length octet to the end (the non-significant part).
    public var paddingLength: Int

    /// Parses AD structures; never throws, never traps.
    public init(decoding bytes: ArraySlice<UInt8>) {
        var reader = ByteReader(bytes, baseOffset: 0, layer: .advertising)
        var found: [ADStructure] = []
        var problems: [String] = []
        var padding = 0
        do {
            while !reader.isAtEnd {
                let offset = reader.absoluteOffset
                let length = Int(try reader.readUInt8("Length"))
                if length == 0 {
                    padding = reader.remaining + 1
                    break
                }
                guard reader.remaining >= length else {
                    let type = reader.peekUInt8().map { ADType($0).name } ?? "AD structure"
                    problems.append("\(type) at byte \(offset): Length \(length) overruns the data (\(reader.remaining) byte(s) left)")
                    break
                }
                let type = ADType(try reader.readUInt8("AD Type"))
                let data = try reader.readBytes(length - 1, "AD Data")
                found.append(ADStructure(type: type, data: Array(data), offset: offset))
            }
        } catch {
            // Unreachable: every read above is guarded; kept so that no input can trap.
            problems.append(error.description)
        }
        structures = found
        paddingLength = padding
        problems += Self.sizeProblems(found)
        problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Parses AD structures from an array.
    public init(decoding bytes: [UInt8]) { self.init(decoding: bytes[...]) }

    /// Data made of the given structures (sizes checked into `problem`).
    public init(structures: [ADStructure]) {
        self.structures = structures
        self.paddingLength = 0
        let problems = Self.sizeProblems(structures)
        self.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// The structures as bytes, without padding.
    public func encoded() -> [UInt8] { structures.flatMap { $0.encoded() } }

    /// This advertising data with a scan response's structures appended (per device: the
    /// advertisement first, then its scan response). Single-valued accessors take the first
    /// occurrence, except `localName`, which prefers a complete name wherever it is; lists
    /// are joined without duplicates.
    public func merged(with scanResponse: AdvertisingData) -> AdvertisingData {
        var out = self
        out.structures += scanResponse.structures
        out.paddingLength = 0
        switch (problem, scanResponse.problem) {
        case (nil, nil): out.problem = nil
        case (let a?, nil): out.problem = a
        case (nil, let b?): out.problem = "scan response: " + b
        case (let a?, let b?): out.problem = a + "; scan response: " + b
        }
        return out
    }

    /// The data of every structure of `type`, in order.
    public func data(of type: ADType) -> [[UInt8]] {
        structures.filter { $0.type == type }.map(\.data)
    }

    /// The data of the first structure of `type`.
    public func firstData(of type: ADType) -> [UInt8]? {
        structures.first { $0.type == type }?.data
    }

    /// Size rules of Core Specification Supplement Part A, as readable findings.
    static func sizeProblems(_ structures: [ADStructure]) -> [String] {
        var out: [String] = []
        for s in structures {
            let n = s.data.count
            let rule: String? = switch s.type.rawValue {
            case 0x02, 0x03, 0x14: n % 2 == 0 ? nil : "a multiple of 2"
            case 0x04, 0x05, 0x1F: n % 4 == 0 ? nil : "a multiple of 4"
            case 0x06, 0x07, 0x15: n % 16 == 0 ? nil : "a multiple of 16"
            case 0x0A, 0x1C: n == 1 ? nil : "1"
            case 0x0D: n == 3 ? nil : "3"
            case 0x12: n == 4 ? nil : "4"
            case 0x16: n >= 2 ? nil : "at least 2"
            case 0x20: n >= 4 ? nil : "at least 4"
            case 0x21: n >= 16 ? nil : "at least 16"
            case 0x17, 0x18: n % 6 == 0 && n > 0 ? nil : "a non-zero multiple of 6"
            case 0x19: n == 2 ? nil : "2"
            case 0x1A: (2...4).contains(n) ? nil : "2 to 4"
            case 0x2F: (3...4).contains(n) ? nil : "3 or 4"
            case 0x24: n >= 1 ? nil : "at least 1"
            case 0xFF: n >= 2 ? nil : "at least 2"
            default: nil
            }
            if let rule {
                out.append("\(s.type.name) at byte \(s.offset): \(n) data byte(s), expected \(rule)")
            }
        }
        return out
    }
}
