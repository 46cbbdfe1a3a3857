import BLECore
import Testing
@testable import BLEReplay

@Suite struct FaultSpecTests {
    /// Each example from the issue parses and prints back in the same (normalised) form.
    @Test(arguments: ["disconnect:0x08@after=write-request:0x0021#3", "disconnect:0x13@t=12.5s",
                      "drop-response:read-request:0x0003#1", "delay-response:read-request:0x0003#1:+2s",
                      "att-error:0x0E@write-request:0x0021#2", "latency-scale:3.0", "stop-advertising@t=5s",
                      "drop-response:any-request", "disconnect:0x08@after=exchange-mtu-request,peer=C4:7A:3B:12:9E:51",
                      "stop-reading@after=handle-value-notification:0x000C#5", "stop-reading@t=12.5s"])
    func roundTrips(_ text: String) throws {
        let f = try FaultSpec(parsing: text)
        #expect(f.description == text)
        #expect(try FaultSpec(parsing: f.description).description == text)
    }

    @Test func decodesFields() throws {
        let f = try FaultSpec(parsing: "disconnect:0x08@after=write-request:0x0021#3")
        guard case .disconnect(let reason, .after(let m)) = f.kind else {
            Issue.record("wrong kind")
            return
        }
        #expect(reason == .connectionTimeout)
        #expect(m.opcode?.rawValue == 0x12 && m.handle == 0x0021 && m.occurrence == 3)
        #expect(m.matches(.writeRequest(0x0021)))
        #expect(!m.matches(.writeRequest(0x0022)))
    }

    @Test(arguments: ["disconnect:0x08", "disconnect:0x08@later", "drop-response:no-such-request", "att-error:0x0E",
                      "latency-scale:-1", "latency-scale:x", "stop-advertising@t=soon", "delay-response:read-request",
                      "drop-response:read-request#0", "explode", "drop-response:read-request,peer=nobody",
                      "stop-reading", "stop-reading@soon", "stop-reading@after=no-such-pdu",
                      // 0x00 is Success (HCI) and reserved (ATT): no link ends with it, no Error Response carries it.
                      "disconnect:0x00@t=5s", "att-error:0x00@read-request"])
    func rejects(_ text: String) {
        #expect(throws: FaultSpec.ParseError.self) { try FaultSpec(parsing: text) }
    }
}
