/// How replay output writes a time: every time names what it counts from (Docs/replay.md "Times").
///
/// - `t+12.345678 s (capture)`: a faithful replay's virtual time, whose zero is the capture's
///   earliest non-note timestamp (`RecordingLoader`), so it reads as the capture's own time
///   (`timeline`'s second column, whose origin is the first non-note record: the same instant
///   unless the capture's clock steps back);
/// - `t+0.203823 s (replay)`: a scripted replay's virtual time, whose zero is the start of the
///   simulation (the script's central starts with nothing recorded before it);
/// - `+1.200000 s into conn 3`: time since connection 3 was established (its LE Connection
///   Complete, or its first packet when it began before the capture).
///
/// JSON field names say the same: `capture_time_us`, `replay_time_us`, `time_into_connection_us`.
public enum TimeLabel {
    public static func capture(_ t: VirtualTime) -> String { "t" + signed(t) + " (capture)" }
    public static func replay(_ t: VirtualTime) -> String { "t" + signed(t) + " (replay)" }
    public static func intoConnection(_ t: Int64, _ connectionID: Int64) -> String { signed(t) + " into conn \(connectionID)" }

    static func signed(_ t: Int64) -> String { (t < 0 ? "" : "+") + VirtualDuration.format(t) }
}
