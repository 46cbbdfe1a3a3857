import Testing
@testable import BLEWarehouse

/// COPY's text format (PostgreSQL documentation, COPY "Text Format") without a server: what
/// bytes each value becomes.
@Suite struct CopyTextTests {
    func row(_ values: [String?]) -> String {
        var out: [UInt8] = []
        CopyText.appendRow(values, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func separatorsAndEscapesInValues() {
        // Tab, newline, CR and backslash escaped; NULL is \N; a value "\N" is not NULL.
        #expect(row(["a\tb", nil, "c\\d\ne\rf", "\\N"]) == "a\\tb\t\\N\tc\\\\d\\ne\\rf\t\\\\N\n")
        // Other control characters as octal; the end-of-data marker \. cannot appear.
        #expect(row(["\u{1}\u{1B}\u{7F}", "\\."]) == "\\001\\033\\177\t\\\\.\n")
        // Multi-byte UTF-8 and quotes pass through unchanged.
        #expect(row(["'\"é中😀"]) == "'\"é中😀\n")
        #expect(row([""]) == "\n")
    }

    @Test func nulBecomesTheSymbolForNull() {
        #expect(WarehouseText.storable("a\0b\0") == "a\u{2400}b\u{2400}")
        #expect(row(["a\0b"]) == "a\u{2400}b\n")
        #expect(WarehouseText.storable("no nul") == "no nul")
    }

    @Test func passwordsAreRedactedInMessages() throws {
        let uri = try WarehouseURL("postgresql://fleet:s%40cret%20pw@db.example:6543/facts")
        #expect(uri.host == "db.example")
        #expect(uri.port == "6543")
        #expect(uri.redact("failed for s@cret pw and s%40cret%20pw") == "failed for *** and ***")
        let kv = try WarehouseURL("host=/run/pg port=5433 password='it\\'s \\\\ secret' dbname=x")
        #expect(kv.host == "/run/pg")
        #expect(kv.port == "5433")
        #expect(kv.redact("it's \\ secret") == "***")
        // A string libpq cannot parse is never echoed, even in part.
        for bad in ["host=a password='SeCrEt99", "host=a password=x SeCrEt99", "postgresql://u:SeCrEt99@h:5432/d?SeCrEt99=1"] {
            let error = #expect(throws: WarehouseError.self) { try WarehouseURL(bad) }
            #expect(error?.message.contains("SeCrEt99") == false, "\(error?.message ?? "")")
        }
    }
}
