import BLECore

/// One end of a time window (`--since`, `--until`): seconds from a capture's time origin, or
/// an absolute UTC time.
public enum TimeBound: Sendable, Equatable {
    /// Microseconds after the capture's time origin (`TimelineQuery.timeOrigins`).
    case relative(Int64)
    /// Microseconds since the Unix epoch.
    case absolute(Int64)

    /// `12.5` (seconds after the origin, up to six decimals) or an ISO 8601 UTC time
    /// (`2026-05-04T08:00:01.25Z`, `2026-05-04 08:00:01`; no offset means UTC). Nil when it is neither.
    public init?(parsing text: String) {
        if let us = Self.seconds(text) { self = .relative(us); return }
        if let us = Self.iso8601(text) { self = .absolute(us); return }
        return nil
    }

    /// The bound as microseconds since the epoch, for a capture whose origin is `origin`
    /// (saturating: a bound past the end of time is the end of time).
    public func absolute(origin: Int64) -> Int64 {
        switch self {
        case .absolute(let us): return us
        case .relative(let us):
            let (sum, overflow) = origin.addingReportingOverflow(us)
            return overflow ? (us < 0 ? .min : .max) : sum
        }
    }

    /// `[-]S[.ffffff]` as microseconds.
    static func seconds(_ text: String) -> Int64? {
        var s = Substring(text)
        let negative = s.first == "-"
        if negative { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let wholeText = parts.first, !wholeText.isEmpty,
              wholeText.allSatisfy(\.isASCII), let whole = Int64(wholeText) else { return nil }
        var micros: Int64 = 0
        if parts.count == 2 {
            let f = parts[1]
            guard (1...6).contains(f.count), let v = Int64(f), f.allSatisfy(\.isNumber) else { return nil }
            micros = v
            for _ in 0..<(6 - f.count) { micros *= 10 }
        }
        let (scaled, o1) = whole.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = scaled.addingReportingOverflow(micros)
        guard !o1, !o2 else { return nil }
        return negative ? -sum : sum
    }

    /// `YYYY-MM-DD[Thh:mm[:ss[.ffffff]]][Z]`, UTC, as microseconds since the epoch.
    static func iso8601(_ text: String) -> Int64? {
        var t = Substring(text)
        if t.last == "Z" || t.last == "z" { t = t.dropLast() }
        let dateAndTime = t.split(whereSeparator: { $0 == "T" || $0 == "t" || $0 == " " })
        guard (1...2).contains(dateAndTime.count) else { return nil }
        let date = dateAndTime[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
              let y = Int64(date[0]), let m = Int64(date[1]), let d = Int64(date[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        var secondsOfDay: Int64 = 0, micros: Int64 = 0
        if dateAndTime.count == 2 {
            let hms = dateAndTime[1].split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(hms.count), hms[0].count == 2, hms[1].count == 2,
                  let h = Int64(hms[0]), let mi = Int64(hms[1]), h < 24, mi < 60 else { return nil }
            var s: Int64 = 0
            if hms.count == 3 {
                guard let us = seconds(String(hms[2])), us >= 0, us < 61_000_000 else { return nil }
                s = us / 1_000_000
                micros = us % 1_000_000
            }
            secondsOfDay = h * 3600 + mi * 60 + s
        }
        let days = daysFromCivil(y, m, d)
        return (days * 86_400 + secondsOfDay) * 1_000_000 + micros
    }

    /// Howard Hinnant's days-from-civil (the inverse of `Timestamp.civilFromDays`).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
