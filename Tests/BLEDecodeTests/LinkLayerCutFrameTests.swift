import BLECore
import Testing
@testable import BLEDecode

/// An air capture whose snapshot length cut its frames (pcap caplen < len; pcap-savefile(5)):
/// the sniffer header's lengths, the PDU's Length field and the CRC no longer match the bytes,
/// so a cut frame is named as cut and not read: before, a cut CONNECT_IND was malformed, a cut
/// LL Control PDU became "Encrypted LL Control PDU (ciphertext)" and a cut ATT PDU malformed ATT.
@Suite("Air frames cut by the snapshot length")
struct LinkLayerCutFrameTests {
    @Test(arguments: [UInt16(272), 256])
    func aCutFrameIsNamedAndNotDecoded(linkType: UInt16) {
        let ll = AirFrameBuilder.advertising(0x05, txRandom: false, rxRandom: true, AirFrameBuilder.connectInd())
        let whole = linkType == 272 ? AirFrameBuilder.nordic(ll) : AirFrameBuilder.rf(ll, rfChannel: 0)
        var b = AirFrameBuilder()
        b.add(Array(whole.prefix(30)), linkType: linkType)
        b.records[0].originalLength = whole.count
        var options = DecoderOptions(payloadOffsetInRecord: 16)
        options.recordCutter = .snapshotLength
        var decoder = PacketDecoder(options: options)
        let p = decoder.decode(b.records[0])
        #expect(p.problems.isEmpty)
        #expect(p.events.isEmpty)
        let name = linkType == 272 ? "nRF Sniffer" : "LE LL"
        #expect(p.summary == "\(name) packet, not decoded (cut by the capture's snapshot length: 30 of \(whole.count) bytes kept)")
        // The same frame whole is a CONNECT_IND.
        var again = AirFrameBuilder()
        again.add(whole, linkType: linkType)
        let summary = again.decode().first?.summary ?? ""
        #expect(summary.contains("CONNECT_IND"), "\(summary)")
    }
}
