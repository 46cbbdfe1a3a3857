/// Timestamps are `Int64` microseconds since the Unix epoch (UTC) everywhere in the pipeline.
public enum Timestamp {
    /// btsnoop counts microseconds since 0000-01-01 00:00 AD; subtract this to get Unix time
    /// (REFERENCE.md, btsnoop).
    public static let btsnoopEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Timestamps a capture can sensibly carry: btsnoop's epoch (0000-01-01 of the Julian
    /// calendar, where a zero btsnoop timestamp lands; `iso8601` prints it -0001-12-20) to
    /// 9999-12-31T23:59:59.999999Z. Anything outside is absurd:
    /// it is kept as read, and readers' callers warn about it (`TimestampAudit`). Within the
    /// range, the difference of two timestamps and a few multiples of it fit an `Int64`.
    public static let plausible: ClosedRange<Int64> = -btsnoopEpochOffset...(253_402_300_800 * 1_000_000 - 1)

    /// Whether `us` lies in `plausible`.
    public static func isPlausible(_ us: Int64) -> Bool { plausible.contains(us) }

    /// ISO-8601 UTC text with microseconds, e.g. `2024-12-30T10:15:02.123456Z`.
    public static func iso8601(_ us: Int64) -> String {
        let secs = floorDiv(us, 1_000_000)
        // `us - secs * 1_000_000` would overflow near Int64.min: the floored remainder instead.
        let micros = (us % 1_000_000 + 1_000_000) % 1_000_000
        let days = floorDiv(secs, 86_400)
        let rem = secs - days * 86_400
        let (y, m, d) = civilFromDays(days)
        func p(_ v: Int64, _ w: Int) -> String {
            let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        // A year before 1 AD is signed, its digits padded after the sign (ISO 8601 expanded,
        // astronomical numbering): -0001-12-20, where padding "-1" gave "00-1".
        let year = y < 0 ? "-" + p(-y, 4) : p(y, 4)
        return "\(year)-\(p(m, 2))-\(p(d, 2))T\(p(rem / 3600, 2)):\(p(rem / 60 % 60, 2)):\(p(rem % 60, 2)).\(p(micros, 6))Z"
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Howard Hinnant's days-from-civil inverse.
    static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
