import BLECore

/// Command-line arguments that are not UTF-8 (a file name with a Latin-1 byte, say), refused
/// before anything runs.
///
/// Swift decodes `argv` as UTF-8 and replaces each invalid byte with U+FFFD: a capture named
/// `caf\xE9.log` would become `caf\u{FFFD}.log`, which names no file ("No such file"), and
/// `--db caf\xE9.db` would write a timeline under a name the user never gave. Paths travel as
/// Swift strings through every library, so such a name cannot be opened faithfully; it is
/// refused as a usage error that names the argument and its byte.
enum ArgumentEncoding {
    /// The first argument (after the program name) that is not valid UTF-8, described for a
    /// message: `argument 2 'caf\xE9.log' (byte 0xE9 at offset 3)`; nil when all are valid.
    static func firstInvalid(_ argv: [[UInt8]]) -> String? {
        for (index, bytes) in argv.enumerated() {
            guard let bad = invalidOffset(bytes) else { continue }
            return "argument \(index + 1) '\(escaped(bytes))' (byte 0x\(hex2(bytes[bad])) at offset \(bad))"
        }
        return nil
    }

    /// The arguments as the kernel passed them, without the program name.
    static func raw() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { i in
            guard let p = CommandLine.unsafeArgv[i] else { return [] }
            var bytes: [UInt8] = []
            var q = p
            while q.pointee != 0 {
                bytes.append(UInt8(bitPattern: q.pointee))
                q += 1
            }
            return bytes
        }
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence.
    static func invalidOffset(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// Printable ASCII as is, every other byte as `\xHH` (the name as a shell user types it).
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { (0x20..<0x7F).contains($0) && $0 != 0x5C ? String(UnicodeScalar($0)) : "\\x" + hex2($0) }.joined()
    }
}
