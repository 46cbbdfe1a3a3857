/// Bytes of one capture record that hold key material.
///
/// The decoder finds them (`DecodedPacket.secretRanges`); the timeline writer zeroes them in
/// the raw bytes it stores, so hex dumps, `--json`, `packets.raw` and every export made from the
/// timeline carry zeros where the key was. Zeroing keeps lengths: the record still parses, and
/// the capture still opens in Wireshark. What counts as key material is decided in one place per
/// protocol: `HCIKeyMaterial` (commands and events) and `SMPKeyMaterial` (SMP PDUs, on LE and
/// BR/EDR, reassembled or not).
public struct SecretRange: Sendable, Hashable {
    /// Frame number of the record that holds the bytes: the packet's own, or an earlier one when
    /// the key is in a fragment of a reassembled L2CAP PDU.
    public var frame: Int
    /// Positions in that record's payload (`CaptureRecord.payload`, no H4 type byte).
    public var range: Range<Int>
    /// What the bytes are (`LTK`, `Link Key`, `IRK`, …).
    public var what: String

    public init(frame: Int, range: Range<Int>, what: String) {
        self.frame = frame
        self.range = range
        self.what = what
    }
}

/// Zeroing key material in place.
public enum Redaction {
    /// Zeroes, in `payload`, the parts of `ranges` that name `frame` and fall inside it.
    /// Returns whether any byte changed.
    @discardableResult
    public static func zero(_ payload: inout [UInt8], frame: Int, _ ranges: [SecretRange]) -> Bool {
        var changed = false
        for r in ranges where r.frame == frame {
            let lower = max(0, r.range.lowerBound), upper = min(payload.count, r.range.upperBound)
            guard lower < upper else { continue }
            for i in lower..<upper where payload[i] != 0 {
                payload[i] = 0
                changed = true
            }
        }
        return changed
    }

    /// Ranges of `parameters` (positions after a header of `headerLength` bytes) clamped to a
    /// payload of `count` bytes; empty ranges are left out.
    static func clamped(_ parts: [(String, Range<Int>)], headerLength: Int, count: Int, frame: Int) -> [SecretRange] {
        parts.compactMap { what, r in
            let lower = headerLength + r.lowerBound, upper = min(count, headerLength + r.upperBound)
            return lower < upper ? SecretRange(frame: frame, range: lower..<upper, what: what) : nil
        }
    }
}
