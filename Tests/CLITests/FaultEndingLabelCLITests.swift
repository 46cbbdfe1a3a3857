import Foundation
import Testing

/// The `peripheral:` line of a faithful replay is the recorded peripheral's ending rule. Under a
/// fault that ended the link otherwise it read as this run's ending ("peripheral: the central
/// disconnected" under "disconnected 0x08 Connection Timeout"); now it says it is the recording's.
@Suite("replay: the recorded ending rule under a fault")
struct FaultEndingLabelCLITests {
    @Test func theRecordedRuleIsLabelledWhenTheRunEndedOtherwise() throws {
        let capture = CLI.sample("heart-rate-healthy.btsnoop")
        let faulted = try CLI.run(["replay", capture, "--inject", "disconnect:0x08@after=write-request#1"])
        #expect(faulted.stdout.contains("disconnected 0x08 Connection Timeout"))
        #expect(faulted.stdout.contains("      peripheral, as recorded: the central disconnected (this run ended otherwise)\n"))
        let plain = try CLI.run(["replay", capture])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("      peripheral: the central disconnected\n"))
    }
}
