import Foundation
import Testing

/// Captures that can be read only once: a FIFO (what `<(adb exec-out cat …)` and `mkfifo` give),
/// a character device. An import read the capture more than once (format detection, decode,
/// SHA-256), and `timeline`/`diagnose` first read it for a SQLite header: a btsnoop stream
/// through a FIFO was "unknown capture format (first bytes 00 00 00 08 …)", and `diagnose` on a
/// FIFO waited forever for a second writer. Such an input is now read once into a scratch file
/// under $TMPDIR (removed afterwards) and reads exactly as the regular file does.
@Suite("Captures read only once: FIFOs and devices", .serialized)
struct ReadOnceInputCLITests {
    let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")   // tshark: 690 frames
    let phdr = CLI.sharedCapture("scale-h4-phdr.pcap")

    /// Runs `command` (blereplay's arguments, `FIFO` standing for the FIFO's path) in a fresh
    /// directory with its own TMPDIR, while `cat capture` writes into the FIFO; 60 s at most.
    func throughFIFO(_ capture: String, _ arguments: String, dir: String) throws -> CLI.Result {
        try CLIProcesses.shell("""
            cd '\(dir)' && mkdir tmp && mkfifo 'in fifo' && (cat '\(capture)' > 'in fifo' &) && \
            TMPDIR='\(dir)/tmp' exec timeout 60 "$BLEREPLAY" \(arguments.replacingOccurrences(of: "FIFO", with: "'in fifo'"))
            """)
    }

    @Test func importFromAFIFOKeepsEveryRecordUnderItsOwnName() throws {
        let dir = CLI.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try throughFIFO(yeelock, "import FIFO --db t.db", dir: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("imported in fifo: 690 records, btsnoop v1"), "\(r.stdout)")
        #expect(try SQLite.scalar(dir + "/t.db", "SELECT count(*) FROM packets") == "690")
        #expect(try SQLite.scalar(dir + "/t.db", "SELECT path || '|' || file_name FROM capture") == "in fifo|in fifo")
        #expect(CLIProcesses.names(dir + "/tmp") == [])
    }

    /// pcap goes through libpcap, which reads a regular file: the copy is read as the file is.
    @Test(arguments: [["timeline"], ["gatt"], ["diagnose", "--json"]])
    func commandsOnAFIFOAnswerAsOnTheFile(command: [String]) throws {
        for capture in [yeelock, phdr] {
            let dir = CLI.temporaryDirectory().path
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let fromFIFO = try throughFIFO(capture, (command + ["FIFO"]).joined(separator: " "), dir: dir)
            #expect(fromFIFO.status == 0, "\(command) \(capture): \(fromFIFO.stderr)")
            let fromFile = try CLI.run(command + [capture])
            #expect(fromFIFO.stdout.replacingOccurrences(of: "in fifo", with: capture) == fromFile.stdout, "\(command) \(capture)")
            #expect(!fromFile.stdout.isEmpty)
            #expect(CLIProcesses.names(dir + "/tmp") == [])
        }
    }

    /// Bytes no reader knows are refused from their first bytes: /dev/zero is not copied forever.
    @Test(arguments: ["import /dev/zero --db t.db", "diagnose /dev/zero", "report /dev/zero -o out"])
    func anEndlessDeviceIsRefusedAtOnce(arguments: String) throws {
        let dir = CLI.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLIProcesses.shell("cd '\(dir)' && mkdir tmp && TMPDIR='\(dir)/tmp' exec timeout 60 \"$BLEREPLAY\" \(arguments)")
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("/dev/zero: byte 0: unknown capture format (first bytes 00 00 00 00 00 00 00 00)"), "\(r.stderr)")
        #expect(CLIProcesses.names(dir + "/tmp") == [])
        #expect(CLIProcesses.names(dir) == ["tmp"])
    }
}
