import Testing
@testable import BLELive

@Suite struct RotationPolicyTests {
    @Test(arguments: [
        ("100M", RotationPolicy.size(bytes: 100 << 20)), ("64K", .size(bytes: 64 << 10)), ("2GiB", .size(bytes: 2 << 30)),
        ("1mb", .size(bytes: 1 << 20)), ("4096", .size(bytes: 4096)), ("30s", .duration(milliseconds: 30_000)),
        ("30min", .duration(milliseconds: 1_800_000)), ("1h", .duration(milliseconds: 3_600_000)),
        ("2d", .duration(milliseconds: 172_800_000)),
    ])
    func parses(text: String, policy: RotationPolicy) throws {
        #expect(try RotationPolicy(parsing: text) == policy)
    }

    @Test(arguments: ["", "M", "10m", "0M", "-1h", "1.5G", "12parsecs", "100"])
    func refuses(text: String) {
        let error = #expect(throws: RotationPolicy.ParseError.self) { try RotationPolicy(parsing: text) }
        if text == "10m" { #expect(error?.message.contains("10M for megabytes or 10min for minutes") == true) }
    }

    @Test func segmentNames() {
        #expect(RotationPolicy.segmentPath("/tmp/x.btsnoop", number: 1) == "/tmp/x.1.btsnoop")
        #expect(RotationPolicy.segmentPath("/tmp/x", number: 12) == "/tmp/x.12")
        #expect(RotationPolicy.segmentPath("/tmp/a.b/x", number: 2) == "/tmp/a.b/x.2")
        #expect(RotationPolicy.segmentPath(".hidden", number: 3) == ".hidden.3")
    }
}
