import BLECore

/// Where a replay's report text goes as it is made (issue 17): handed to `sink` in blocks of
/// about 64 KiB, so a report of 61,424 links is never held whole; without a sink it is kept in
/// `text` (tests and library callers read it there).
public final class ReplayTextOutput {
    private let sink: ((String) -> Void)?
    /// What was written and not yet handed to the sink (everything, without one).
    public private(set) var text = ""
    static let block = 1 << 16

    public init(sink: ((String) -> Void)? = nil) {
        self.sink = sink
    }

    public func write(_ s: String) {
        text += s
        if sink != nil, text.utf8.count >= Self.block { flush() }
    }

    /// `s` and a line break: one line, its control characters escaped as tshark escapes them
    /// (`TextFormat.printable`), since device names and file names in it come from the air.
    public func line(_ s: String) {
        text += TextFormat.printable(s)
        text += "\n"
        if sink != nil, text.utf8.count >= Self.block { flush() }
    }

    /// Hands what is pending to the sink.
    public func flush() {
        guard let sink, !text.isEmpty else { return }
        sink(text)
        text = ""
    }
}
