import BLECore
import Foundation
@testable import BLEDecode

/// A tiny reader for the air captures in ../shared/captures (pcap and pcapng with LINKTYPE
/// 251, 256, 272): BLEDecodeTests cannot import BLECapture. Records come out as BLECapture's
/// pcap reader makes them: the whole frame as payload, kind `.other`, `rawType` = link type,
/// `fileOffset` = the record's (pcap) or block's (pcapng) first byte.
struct AirCapture: Sendable {
    var records: [CaptureRecord]
    /// Bytes from a record's `fileOffset` to its frame: 16 for pcap, 28 for a pcapng Enhanced
    /// Packet Block.
    var payloadOffsetInRecord: Int

    static func load(_ name: String) -> AirCapture? {
        guard let data = FileManager.default.contents(atPath: TestCapture.path(name)) else { return nil }
        return parse([UInt8](data))
    }

    static func parse(_ d: [UInt8]) -> AirCapture? {
        guard d.count >= 24 else { return nil }
        if d.starts(with: [0x0A, 0x0D, 0x0D, 0x0A]) { return pcapng(d) }
        return pcap(d)
    }

    private static func u32(_ d: [UInt8], _ i: Int, big: Bool) -> Int {
        big ? Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
            : Int(d[i + 3]) << 24 | Int(d[i + 2]) << 16 | Int(d[i + 1]) << 8 | Int(d[i])
    }

    private static func u16(_ d: [UInt8], _ i: Int, big: Bool) -> Int {
        big ? Int(d[i]) << 8 | Int(d[i + 1]) : Int(d[i + 1]) << 8 | Int(d[i])
    }

    /// pcap: 24-byte header (magic, version, zone, sigfigs, snaplen, link type), then
    /// 16-byte record headers (seconds, microseconds or nanoseconds, captured, original length).
    static func pcap(_ d: [UInt8]) -> AirCapture? {
        let magic = u32(d, 0, big: true)
        let big: Bool, nanos: Bool
        switch magic {
        case 0xA1B2_C3D4: (big, nanos) = (true, false)
        case 0xD4C3_B2A1: (big, nanos) = (false, false)
        case 0xA1B2_3C4D: (big, nanos) = (true, true)
        case 0x4D3C_B2A1: (big, nanos) = (false, true)
        default: return nil
        }
        let linkType = UInt16(truncatingIfNeeded: u32(d, 20, big: big))
        var records: [CaptureRecord] = []
        var off = 24
        while off + 16 <= d.count {
            let seconds = Int64(u32(d, off, big: big)), fraction = Int64(u32(d, off + 4, big: big))
            let captured = u32(d, off + 8, big: big)
            guard off + 16 + captured <= d.count else { break }
            let micros = seconds * 1_000_000 + (nanos ? fraction / 1000 : fraction)
            records.append(CaptureRecord(frameNumber: records.count + 1, timestamp: micros, direction: .unknown,
                                         kind: .other, payload: Array(d[(off + 16)..<(off + 16 + captured)]),
                                         fileOffset: off, rawType: linkType))
            off += 16 + captured
        }
        return AirCapture(records: records, payloadOffsetInRecord: 16)
    }

    /// pcapng: Section Header (byte order), Interface Description (link type, if_tsresol
    /// option 9), Enhanced Packet Blocks (interface, timestamp high/low, captured, original).
    static func pcapng(_ d: [UInt8]) -> AirCapture? {
        guard d.count >= 12 else { return nil }
        let big = d[8] == 0x1A
        var records: [CaptureRecord] = []
        var interfaces: [(linkType: UInt16, unitsPerSecond: Int64)] = []
        var off = 0
        while off + 12 <= d.count {
            let type = u32(d, off, big: big), length = u32(d, off + 4, big: big)
            guard length >= 12, off + length <= d.count else { break }
            switch type {
            case 1:
                var units: Int64 = 1_000_000
                var o = off + 16
                while o + 4 <= off + length - 4 {
                    let code = u16(d, o, big: big), size = u16(d, o + 2, big: big)
                    if code == 0 { break }
                    if code == 9, size >= 1 {
                        let v = d[o + 4]
                        units = v & 0x80 != 0 ? Int64(1) << Int64(v & 0x7F) : Int64(pow(10, Double(v)))
                    }
                    o += 4 + (size + 3) / 4 * 4
                }
                interfaces.append((UInt16(truncatingIfNeeded: u16(d, off + 8, big: big)), units))
            case 6:
                let interface = u32(d, off + 8, big: big)
                let stamp = Int64(u32(d, off + 12, big: big)) << 32 | Int64(u32(d, off + 16, big: big))
                let captured = u32(d, off + 20, big: big)
                guard interface < interfaces.count, off + 28 + captured <= off + length else { break }
                let units = interfaces[interface].unitsPerSecond
                let micros = units == 1_000_000 ? stamp : stamp / units * 1_000_000 + stamp % units * 1_000_000 / units
                records.append(CaptureRecord(frameNumber: records.count + 1, timestamp: micros, direction: .unknown,
                                             kind: .other, payload: Array(d[(off + 28)..<(off + 28 + captured)]),
                                             fileOffset: off, rawType: interfaces[interface].linkType))
            default:
                break
            }
            off += length
        }
        return AirCapture(records: records, payloadOffsetInRecord: 28)
    }

    /// Decodes every record; returns the packets (the decoder's `finish()` problems last).
    func decode() -> (packets: [DecodedPacket], finish: [DecodeError]) {
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: payloadOffsetInRecord))
        let packets = records.map { decoder.decode($0) }
        return (packets, decoder.finish())
    }
}
