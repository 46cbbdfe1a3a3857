import BLECore
import Testing
@testable import BLEDecode

/// `DecoderOptions.summaries` false (the fleet report's scratch timelines): every packet comes
/// back with an empty summary and everything else exactly as with summaries, over every real
/// capture (HCI, ACL reassembly, L2CAP, ATT, SMP, signalling, BR/EDR, air captures), and the
/// decoder's state at the end too.
@Suite struct SummaryOptionTests {
    static let captures = [
        "android-classic-spp.btsnoop", "android-lock-long-session.btsnoop", "android-lock-pairing.btsnoop",
        "android-pongbot.btsnoop", "android-yeelock.btsnoop", "btmon-monitor.btsnoop", "ios-glasses.pklg",
        "ios-glasses-app-control.pklg", "nrf-sniffer-att-deadlock.pcap", "nrf-sniffer-zero-ltk.pcap",
        "sniffle-gatt.pcap", "smartwatch-h4-phdr.pcapng", "scale-h4-phdr.pcap",
        "ubertooth-le-sc-pairing.pcapng",
    ]

    /// Every packet's fields but its summary, in full (`dump` walks every stored property).
    static func facts(_ p: DecodedPacket) -> String {
        var p = p
        p.summary = ""
        var out = ""
        dump(p, to: &out)
        return out
    }

    @Test(arguments: captures)
    func sameFactsWithoutSummaries(name: String) throws {
        let host = TestCapture.load(name)
        let air = host == nil ? AirCapture.load(name) : nil
        let records = try #require(host?.records ?? air?.records, "\(name) not read")
        let offset = host?.payloadOffsetInRecord ?? air?.payloadOffsetInRecord ?? 0
        var with = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: offset))
        var options = DecoderOptions(payloadOffsetInRecord: offset)
        options.summaries = false
        var without = PacketDecoder(options: options)
        var summarized = 0
        for record in records {
            let a = with.decode(record), b = without.decode(record)
            if !a.summary.isEmpty { summarized += 1 }
            #expect(b.summary.isEmpty, "\(name) frame \(record.frameNumber): \(b.summary)")
            #expect(Self.facts(a) == Self.facts(b), "\(name) frame \(record.frameNumber) differs")
        }
        #expect(summarized > records.count / 2, "\(name): \(summarized) of \(records.count) packets summarized")
        #expect(with.finish().map(\.description) == without.finish().map(\.description))
        #expect(with.connectionsSeen == without.connectionsSeen)
    }
}
