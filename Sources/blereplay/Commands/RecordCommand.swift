import BLELive

/// `blereplay record SOURCE [-o FILE.btsnoop] [--db FILE]` (Docs/record.md). Placeholder.
enum RecordCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        throw Arguments.UsageError(message: "record is not implemented yet")
    }
}
