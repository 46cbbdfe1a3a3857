/// The one-line summary a record is decoded into (`DecodedPacket.summary`), or nothing at all
/// when the consumer reads no summary (`DecoderOptions.summaries` false): its parts are then
/// never formatted, only the facts are decoded.
///
/// Parts are taken as autoclosures, so a part that reads bytes or changes decoder state must be
/// read before it is given here (a `try` inside one does not compile, which keeps reads out).
struct SummaryLine {
    /// False: every part is dropped unformatted and `text` stays empty.
    let isKept: Bool
    private(set) var text = ""

    init(isKept: Bool) { self.isKept = isKept }

    /// Replaces the line.
    @inline(__always)
    mutating func set(_ line: @autoclosure () -> String) {
        if isKept { text = line() }
    }

    /// Appends to the line.
    @inline(__always)
    static func += (line: inout SummaryLine, part: @autoclosure () -> String) {
        if line.isKept { line.text += part() }
    }

    mutating func reserveCapacity(_ n: Int) {
        if isKept { text.reserveCapacity(n) }
    }

    /// Lets `write` append to the line in place (a part written piece by piece), when it is kept.
    mutating func append(_ write: (inout String) -> Void) {
        if isKept { write(&text) }
    }
}
