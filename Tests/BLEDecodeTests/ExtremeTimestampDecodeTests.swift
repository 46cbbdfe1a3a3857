import BLECore
import Testing
@testable import BLEDecode

/// The every-prefix sweep again, with the extreme timestamps plain mutation never produced
/// (issue 17): the air decoder infers who sent a data PDU from the gap since the last one, and
/// `timestamp &- last` wrapped, so Int64.min after Int64.max looked 1 µs later.
@Suite("Extreme timestamps in the decoder")
struct ExtremeTimestampDecodeTests {
    typealias B = AirFrameBuilder
    static let extremes: [Int64] = [0, -1, .max, .min, .max - 1, .min + 1, -Timestamp.btsnoopEpochOffset]

    /// Every prefix of every frame, decoded in one decoder (state carries across, as in a
    /// capture), each record stamped with the next extreme value.
    @Test("every prefix with extreme timestamps", arguments: extremes.indices)
    func everyPrefix(_ start: Int) {
        var b = B.connected()
        b.add(B.nordic(B.data(0b10, LinkLayerDecoderTests.mtuRequest), sender: .central))
        b.add(B.nordic(B.data(0b11, [0x0C, 0x09, 0x59, 0x00, 0x34, 0x12]), sender: .peripheral))
        b.add(B.rf(B.data(0b11, [0x02, 0x13]), sender: .central), linkType: 256)
        // Without an event counter the decoder counts connection events from the times.
        b.add(B.rf(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd(aa: 0x5065_9A3C)), rfChannel: 0),
              linkType: 256)
        b.add(B.rf(B.data(0b01, [], aa: 0x5065_9A3C), sender: .central), linkType: 256)
        b.add(B.rf(B.data(0b01, [], nesn: 1, aa: 0x5065_9A3C), sender: .peripheral), linkType: 256)
        b.add(B.rf(B.data(0b01, [], sn: 1, nesn: 1, aa: 0x5065_9A3C), sender: .central), linkType: 256)
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: 16))
        var i = start
        for record in b.records {
            for n in 0...record.payload.count {
                var cut = record
                cut.payload = Array(record.payload[0..<n])
                cut.timestamp = Self.extremes[i % Self.extremes.count]
                i += 1
                let p = decoder.decode(cut)
                #expect(!p.problems.isEmpty || !p.summary.isEmpty, "prefix \(n)")
            }
        }
        _ = decoder.finish()
    }

    /// Int64.max then Int64.min: far apart, not 1 µs apart. Without an event counter (an
    /// Ubertooth-style RF header, LINKTYPE 256), a data PDU after a huge gap opens a new
    /// connection event, so its sender is the central.
    @Test func aWrappedGapIsNotAShortOne() {
        var connection = LinkLayerConnection(ref: ConnectionRef(index: 1, handle: 0), accessAddress: 0x5065_9A3C,
                                             origin: .foundInProgress, interval: nil, frame: 1)
        // LLID 0b01, empty PDU (Core v5.4 Vol 6 Part B 2.4.1)
        let header = DataChannelHeader(llid: 0b01, length: 0)
        _ = connection.inferSender(header: header, payload: [], timestamp: .max, eventCounter: nil,
                                   pendingL2CAP: (false, false))
        let second = connection.inferSender(header: header, payload: [], timestamp: .min, eventCounter: nil,
                                            pendingL2CAP: (false, false))
        #expect(second == .central)
    }
}
