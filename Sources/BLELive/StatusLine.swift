import BLECore

/// The one-line status on stderr while recording, redrawn in place at most twice a second.
/// Only used when stderr is a terminal and `--quiet` was not given (DESIGN.md: progress goes
/// to stderr only when it is a terminal).
public struct StatusLine {
    public let source: String
    private var lastDrawn: Int64 = 0
    private var visible = false

    public init(source: String) {
        self.source = source
    }

    /// True when stderr is a terminal.
    public static var isPossible: Bool { StandardStreams.isTerminal(2) }

    mutating func update(_ stats: TrafficStats, now: Int64) {
        guard now - lastDrawn >= 500 else { return }
        lastDrawn = now
        visible = true
        StandardStreams.write("\r\u{1B}[Krecording \(TextFormat.printable(source)): \(stats.summary)", to: 2)
    }

    /// Removes the line before other output (a notice, the final summary).
    mutating func clear() {
        guard visible else { return }
        visible = false
        lastDrawn = 0
        StandardStreams.write("\r\u{1B}[K", to: 2)
    }
}
