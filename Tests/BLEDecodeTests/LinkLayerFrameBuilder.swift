import BLECore
@testable import BLEDecode

/// Builds air frames for decoder tests: nRF Sniffer (LINKTYPE 272, header version 2) and
/// LINKTYPE 256 records around hand-made LE packets. CRCs are the right ones (Core v5.4 Vol 6
/// Part B 3.1.1: 0x555555 on the advertising access address, else `connectInd()`'s CRCInit
/// 0x332211), for the LINKTYPE 251 frames whose CRC the decoder checks itself.
struct AirFrameBuilder {
    static let accessAddress: UInt32 = 0x9A32_8370
    /// AdvA CA:FE:13:37:00:01, InitA 5C:F3:70:73:3E:F4 on the wire.
    static let advA: [UInt8] = [0x01, 0x00, 0x37, 0x13, 0xFE, 0xCA]
    static let initA: [UInt8] = [0xF4, 0x3E, 0x73, 0x70, 0xF3, 0x5C]

    var records: [CaptureRecord] = []
    var time: Int64 = 1_700_000_000_000_000
    var offset = 24

    /// CRCInit of `connectInd()`.
    static let crcInit: UInt32 = 0x33_2211

    /// An LE packet: access address, header, payload, 3 CRC bytes.
    static func packet(_ aa: UInt32, _ header: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        var b: [UInt8] = []
        b.append(le32: aa)
        let crc = LinkLayerCRC.compute(header + payload,
                                       crcInit: aa == LinkLayerPacket.advertisingAccessAddress ? LinkLayerCRC.advertisingInit : crcInit)
        return b + header + payload + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16)]
    }

    /// A data channel PDU on `aa` (LLID, SN, NESN).
    static func data(_ llid: UInt8, _ payload: [UInt8], sn: UInt8 = 0, nesn: UInt8 = 0, aa: UInt32 = accessAddress) -> [UInt8] {
        packet(aa, [llid | nesn << 2 | sn << 3, UInt8(payload.count)], payload)
    }

    /// An advertising channel PDU.
    static func advertising(_ type: UInt8, txRandom: Bool = true, rxRandom: Bool = false, _ payload: [UInt8]) -> [UInt8] {
        packet(LinkLayerPacket.advertisingAccessAddress,
               [type | (txRandom ? 0x40 : 0) | (rxRandom ? 0x80 : 0), UInt8(payload.count)], payload)
    }

    /// CONNECT_IND payload: interval 24 (30 ms), latency 0, timeout 400, all channels, hop 7.
    static func connectInd(aa: UInt32 = accessAddress, interval: UInt16 = 24) -> [UInt8] {
        var p = initA + advA
        p.append(le32: aa)
        p += [0x11, 0x22, 0x33, 0x02]
        p.append(le16: 3)
        p.append(le16: interval)
        p.append(le16: 0)
        p.append(le16: 400)
        return p + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x07]
    }

    /// An nRF Sniffer v2 frame around `ll`; `sender` sets the direction flag of a data PDU.
    static func nordic(_ ll: [UInt8], sender: LinkLayerRole? = nil, flags: UInt8 = 0x01, channel: UInt8 = 37,
                       eventCounter: UInt16 = 0) -> [UInt8] {
        var f = flags
        if sender == .central { f |= 0x02 }
        var b: [UInt8] = [0x4B]
        b.append(le16: UInt16(10 + ll.count))
        b += [0x02, 0x00, 0x00, 0x00, 0x0A, f, channel, 0x3C]
        b.append(le16: eventCounter)
        return b + [0, 0, 0, 0] + ll
    }

    /// A LINKTYPE 256 frame: RF channel, signal -50 dBm (valid), PDU type bits from `sender`,
    /// CRC checked and valid unless `crcValid` is false.
    static func rf(_ ll: [UInt8], sender: LinkLayerRole? = nil, rfChannel: UInt8 = 5, crcValid: Bool = true) -> [UInt8] {
        var flags: UInt16 = 0x0001 | 0x0002 | 0x0400 | (crcValid ? 0x0800 : 0)
        switch sender {
        case .central: flags |= 2 << 7
        case .peripheral: flags |= 3 << 7
        case nil: break
        }
        var b: [UInt8] = [rfChannel, 0xCE, 0x80, 0x00, 0, 0, 0, 0]
        b.append(le16: flags)
        return b + ll
    }

    /// Appends a record `gap` µs after the previous one.
    mutating func add(_ frame: [UInt8], linkType: UInt16 = 272, gap: Int64 = 300) {
        time += gap
        records.append(CaptureRecord(frameNumber: records.count + 1, timestamp: time, direction: .unknown, kind: .other,
                                     payload: frame, fileOffset: offset, rawType: linkType))
        offset += 16 + frame.count
    }

    /// A CONNECT_IND then nothing else.
    static func connected(aa: UInt32 = accessAddress) -> AirFrameBuilder {
        var b = AirFrameBuilder()
        b.add(nordic(advertising(0x05, txRandom: false, rxRandom: true, connectInd(aa: aa))))
        return b
    }

    /// Decodes the records with pcap's 16-byte record header before each frame.
    func decode() -> [DecodedPacket] {
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: 16))
        return records.map { decoder.decode($0) }
    }
}
