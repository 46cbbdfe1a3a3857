import BLETimeline

/// The tool's version (`blereplay --version`), with the timeline schema it writes.
enum ToolVersion {
    static let version = "0.2.0"
    static var text: String { "blereplay \(version) (timeline schema \(TimelineSchema.version))" }
}

/// One option of a command: how it is spelled with its value, and one line of help.
///
/// `spelling` is what `COMMAND --help` and Docs/cli.md show: `--db FILE`, `-v, --verbose`,
/// `-o, --output DIR`. The parser's names (`db`, `v`, `verbose`) are read from it, and a test
/// checks them against what each command's parser accepts.
struct OptionHelp: Sendable {
    var spelling: String
    var help: String
    init(_ spelling: String, _ help: String) {
        self.spelling = spelling
        self.help = help
    }

    /// The names without dashes, as `Arguments` knows them: `-o, --output DIR` -> `o`, `output`.
    var names: [String] {
        spelling.split(separator: ",").compactMap { part in
            let word = part.split(separator: " ").first.map(String.init) ?? ""
            guard word.hasPrefix("-") else { return nil }
            return String(word.drop(while: { $0 == "-" }))
        }
    }
}

/// One command: its arguments, what it does, and every option it takes.
struct CommandHelp: Sendable {
    var name: String
    /// What follows the command name, options shown as `[options]`: `CAPTURE... [options]`.
    var arguments: String
    var summary: String
    var options: [OptionHelp]

    /// `blereplay COMMAND --help`: usage, what it does, then every option on one line each.
    var text: String {
        var lines = ["usage: blereplay \(name) \(arguments)", "", summary, "", "options:"]
        let all = options + [OptionHelp("-h, --help", "print this help")]
        let width = all.map(\.spelling.count).max() ?? 0
        for o in all {
            lines.append("  " + o.spelling + String(repeating: " ", count: width - o.spelling.count + 2) + o.help)
        }
        return lines.joined(separator: "\n")
    }

    /// This command's section of Docs/cli.md.
    var markdown: String {
        var lines = ["## \(name)", "", "```", "blereplay \(name) \(arguments)", "```", "", summary, "",
                     "| option | |", "|---|---|"]
        for o in options {
            lines.append("| `\(o.spelling.replacingPipes)` | \(o.help.replacingPipes) |")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate var replacingPipes: String { split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
}

/// Every command and every option, in one table: `blereplay COMMAND --help`, `blereplay help
/// COMMAND`, the command list of `blereplay help`, and Docs/cli.md (`blereplay help --markdown`)
/// all come from it. To document a new option, add one `OptionHelp` line to its command here;
/// `CommandHelpTests` fails until the parser, this table and Docs/cli.md agree.
enum CommandHelpTable {
    static let commands: [CommandHelp] = [
        CommandHelp(name: "import", arguments: "CAPTURE... [options]",
                    summary: "Decode captures (btsnoop, pcap/pcapng, PacketLogger, btsnooz, Android bugreport zips: each log a capture ZIP!member; any of them gzip-compressed) into a SQLite timeline and analyse them.",
                    options: [
                        OptionHelp("--db FILE", "the timeline to create or add to (default blereplay.db)"),
                        OptionHelp("--no-raw", "do not keep packets' raw bytes (smaller; `export` then refuses the capture)"),
                        OptionHelp("--keep-keys", "keep key material (LTKs, IRKs, CSRKs, link keys, pairing values) instead of zeroing it"),
                        OptionHelp("--quiet", "print nothing but warnings and errors"),
                        OptionHelp("--timings", "print how long each stage took (stderr)"),
                    ]),
        CommandHelp(name: "timeline", arguments: "CAPTURE|DB [options]",
                    summary: "The decoded timeline, one line per packet (btmon-like); NDJSON with --json.",
                    options: [
                    ] + packetFilters(severity: "info|warning|error: only the packets findings at or above S cite") + [
                        OptionHelp("--layer LAYER", "only this layer: hci, acl, l2cap, att, smp, signaling, bredr, note, other, ll (a sniffer's link-layer PDUs)"),
                        OptionHelp("--errors", "only packets with an error or a decode problem"),
                        OptionHelp("--capture ID", "only this capture of a timeline holding several"),
                        OptionHelp("--limit N", "at most N packets"),
                        OptionHelp("-v, --verbose", "each packet's decoded layers, characteristic values and a hex dump"),
                        OptionHelp("--json", "one JSON object per packet, decoded layers under \"decoded\""),
                        OptionHelp("--keep-keys", "a capture given here is imported with its key material kept"),
                    ]),
        CommandHelp(name: "diagnose", arguments: "CAPTURE|DB [options]",
                    summary: "Per-connection post-mortem: what happened, why it ended, findings pointed at their packets.",
                    options: packetFilters(severity: "info|warning|error: only findings at or above S (and their connections)") + [
                        OptionHelp("--json", "the diagnosis as JSON"),
                        OptionHelp("--fail-on warning|error", "exit 1 when a finding of this severity or worse exists (of those the filters keep)"),
                    ]),
        CommandHelp(name: "gatt", arguments: "CAPTURE|DB [options]",
                    summary: "The GATT database reconstructed per device, with the values seen.",
                    options: [
                        OptionHelp("--json", "the databases as JSON"),
                    ]),
        CommandHelp(name: "replay", arguments: "CAPTURE|DB [options]",
                    summary: "Replay the recorded peripherals against the recorded central, a central script, or seeded faults (Docs/replay.md).",
                    options: [
                        OptionHelp("--central SCRIPT.json", "drive the peripherals with this central script instead of the recorded central; on a capture whose local device was the peripheral, the script plays the remote central against the local GATT server"),
                        OptionHelp("--inject FAULT", "inject a fault (repeatable; grammar in Docs/replay.md); one that never fires fails the run"),
                        OptionHelp("--unmatched strict|database|error[:0xNN]", "how a request the recording never saw is answered"),
                        OptionHelp("--anchor events|time", "anchor recorded failures to events (default) or to clock time"),
                        OptionHelp("--seed N", "seed of the generator (advertising jitter, random faults)"),
                        OptionHelp("--runs K", "K runs, each with one random fault drawn from what the central sends"),
                        OptionHelp("--junit FILE", "write JUnit XML"),
                        OptionHelp("--json", "the result as JSON"),
                        OptionHelp("--write-capture FILE", "write the simulated session as a btsnoop capture"),
                        OptionHelp("--bench", "time the replay engine on this capture"),
                    ]),
        CommandHelp(name: "record", arguments: "--monitor|--follow FILE|--stdin|--tcp HOST:PORT [options]",
                    summary: "Live capture into a btsnoop or pcap file and a timeline other commands can read meanwhile (Docs/record.md).",
                    options: [
                        OptionHelp("--monitor", "record the BlueZ monitor socket (every controller; needs CAP_NET_RAW)"),
                        OptionHelp("--follow FILE", "record a snoop log another program is still writing"),
                        OptionHelp("--stdin", "record btsnoop or raw H4 from standard input"),
                        OptionHelp("--tcp HOST:PORT", "record from TCP (btsnoop_net or H4), reconnecting with backoff"),
                        OptionHelp("-o FILE.btsnoop|FILE.pcap", "write a capture file in the format its name says: FILE.pcap pcap (LINKTYPE 201, 254 for a monitor source, 187 for raw H4, which keeps ACL direction unknown), .pcapng refused, any other name btsnoop"),
                        OptionHelp("--db FILE", "write a timeline"),
                        OptionHelp("--rotate SIZE|DURATION", "start a new file after SIZE (10M) or DURATION (10min)"),
                        OptionHelp("--address AA:BB:CC:DD:EE:FF", "keep only this device's traffic"),
                        OptionHelp("--le-only", "leave out BR/EDR traffic"),
                        OptionHelp("--until-idle SECONDS", "stop after this long without data"),
                        OptionHelp("--retries N", "TCP reconnect attempts (default 5)"),
                        OptionHelp("--no-raw", "do not keep packets' raw bytes in the timeline"),
                        OptionHelp("--quiet", "no status line and no summary: only warnings and errors"),
                    ]),
        CommandHelp(name: "report", arguments: "INPUT... [options]",
                    summary: "Error-code statistics across captures, timelines and directories (Docs/report.md).",
                    options: [
                        OptionHelp("-o, --output DIR", "where the report files go (default Reports)"),
                        OptionHelp("--format html,md,json,csv", "which files to write (default all)"),
                        OptionHelp("--jobs N", "captures imported in parallel (default: the number of cores)"),
                        OptionHelp("--warehouse URL", "report on the captures in a PostgreSQL warehouse instead of files (default $BLEREPLAY_WAREHOUSE when no INPUT is given; Docs/warehouse.md)"),
                        OptionHelp("--since T", "with --warehouse: captures whose first timestamp is at or after T (UTC: 2026-03-01T10:00:00Z)"),
                        OptionHelp("--until T", "with --warehouse: captures whose first timestamp is at or before T"),
                        OptionHelp("--quiet", "do not print the summary"),
                    ]),
        CommandHelp(name: "ingest", arguments: "INPUT... --warehouse URL [options]",
                    summary: "Store the facts of captures, timelines and directories in a PostgreSQL warehouse (Docs/warehouse.md).",
                    options: [
                        OptionHelp("--warehouse URL", "a libpq connection string or URI (default $BLEREPLAY_WAREHOUSE); exit 69 when unreachable or lost during the run"),
                        OptionHelp("--jobs N", "captures read and stored in parallel, one connection each (default: the number of cores)"),
                        OptionHelp("--quiet", "do not print the summary"),
                    ]),
        CommandHelp(name: "export", arguments: "DB [options]",
                    summary: "The timeline back out as a capture (btsnoop, pcap), or a Perfetto trace. pcap is LINKTYPE 201 (H4 with direction), or 187 (H4 without direction) when the capture's ACL, SCO and ISO have no known direction (pcap 187 input, a raw-H4 recording). Records a format cannot carry are left out and counted on stderr; unknown-direction data written as sent (btsnoop has no \"unknown\") is counted in a warning on stderr; both exit 0.",
                    options: [
                        OptionHelp("--format btsnoop|pcap|trace", "what to write (required)"),
                        OptionHelp("-o, --output FILE", "the file to write (required)"),
                        OptionHelp("--capture ID", "which capture of a timeline holding several"),
                    ]),
    ]

    /// The packet filters `timeline` and `diagnose` share (`PacketFilterOptions`); `severity`
    /// says what `--severity` selects for the command.
    static func packetFilters(severity: String) -> [OptionHelp] {
        [
            OptionHelp("--connection N", "only connection N (the [conn N] column, connections.id)"),
            OptionHelp("--address AA:BB:CC:DD:EE:FF", "a peer or advertiser address"),
            OptionHelp("--conn-handle H", "the HCI connection handle (0x0040 or 64)"),
            OptionHelp("--controller N", "one controller of a capture of several: a btmon adapter index (0 for hci0) or a pcapng interface ID"),
            OptionHelp("--handle H", "an ATT attribute handle, matched as Wireshark's btatt.handle is"),
            OptionHelp("--opcode OP", "an ATT opcode: 0x1B, 27, handle-value-notification or 'Handle Value Notification'"),
            OptionHelp("--since T", "from T: seconds from the time origin (12.5) or a UTC time (2026-03-01T10:00:02Z)"),
            OptionHelp("--until T", "up to T, included (same forms)"),
            OptionHelp("--severity S", severity),
        ]
    }

    static func command(_ name: String) -> CommandHelp? { commands.first { $0.name == name } }

    /// `blereplay help`: every command on one line.
    static var overview: String {
        var lines = ["usage: blereplay <command> [options]", "", "commands:"]
        let width = commands.map(\.name.count).max() ?? 0
        for c in commands {
            lines.append("  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary)
        }
        lines += ["", "blereplay COMMAND --help (or blereplay help COMMAND) lists a command's options; "
                  + "blereplay --version prints the version.",
                  "Exit codes: 0 success, 1 check failed, 2 usage error, 65 unreadable or malformed input, 69 a server (the warehouse) unreachable."]
        return lines.joined(separator: "\n")
    }

    /// Docs/cli.md.
    static var markdown: String {
        var parts = ["# Command-line reference", "",
                     "Every command and option of `blereplay` \(ToolVersion.version). Generated from the table the tool's "
                     + "own help prints (`Sources/blereplay/CommandHelp.swift`) with `blereplay help --markdown > Docs/cli.md`; "
                     + "a test keeps the two, and the README's command list, in agreement.", "",
                     "Every command also takes `-h`/`--help`. Exit codes: 0 success, 1 the thing checked failed, "
                     + "2 usage error, 65 unreadable or malformed input, 69 a server (the warehouse) unreachable."]
        for c in commands { parts += ["", c.markdown] }
        return parts.joined(separator: "\n") + "\n"
    }
}
