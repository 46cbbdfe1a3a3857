import Foundation

/// A btsnoop v1 file (datalink 1002, H4) built record by record from packet bytes laid out as
/// Core v5.4 Vol 4 Part E 5.4 says, for scenarios the sample captures lack.
public struct SpecCapture {
    public init() {}

    /// `original`: the record header's original length (more than `h4.count` for a cut record).
    private var records: [(ms: Int64, h4: [UInt8], received: Bool, original: Int)] = []

    public mutating func add(_ ms: Int64, _ h4: [UInt8], received: Bool) { records.append((ms, h4, received, h4.count)) }
    /// A record the writer cut to its first `keep` H4 bytes, the original length kept in the
    /// record header, as Android's filtered snoop log and btsnooz v2 write them.
    public mutating func cut(_ ms: Int64, _ h4: [UInt8], keep: Int, received: Bool) {
        records.append((ms, Array(h4.prefix(keep)), received, h4.count))
    }
    /// Every record cut to its first `snapshotLength` H4 bytes, its original length kept, as a
    /// pcap capture with that snapshot length writes them (tcpdump -s; pcap-savefile(5)).
    public func snapped(to snapshotLength: Int) -> SpecCapture {
        var c = self
        c.records = records.map { ($0.ms, Array($0.h4.prefix(snapshotLength)), $0.received, $0.original) }
        return c
    }
    /// An HCI command (H4 0x01), host to controller.
    public mutating func cmd(_ ms: Int64, _ opcode: UInt16, _ params: [UInt8]) {
        add(ms, [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(params.count)] + params, received: false)
    }
    /// An HCI event (H4 0x04), controller to host.
    public mutating func evt(_ ms: Int64, _ code: UInt8, _ params: [UInt8]) {
        add(ms, [0x04, code, UInt8(params.count)] + params, received: true)
    }
    /// One ACL packet carrying a whole L2CAP basic frame on `cid` (Vol 3 Part A 3.1).
    public mutating func l2cap(_ ms: Int64, handle: UInt16, cid: UInt16, _ payload: [UInt8], received: Bool) {
        let frame = le16(UInt16(payload.count)) + le16(cid) + payload
        let pb: UInt16 = received ? 0x2 : 0x0
        add(ms, [0x02] + le16(handle | pb << 12) + le16(UInt16(frame.count)) + frame, received: received)
    }
    public mutating func smp(_ ms: Int64, handle: UInt16, _ pdu: [UInt8], received: Bool) {
        l2cap(ms, handle: handle, cid: 0x0006, pdu, received: received)
    }
    /// One ACL packet with packet boundary flag `pb` (0b10 start, 0b01 continuation; Vol 4 Part E 5.4.2).
    public mutating func acl(_ ms: Int64, handle: UInt16, pb: UInt16, _ data: [UInt8], received: Bool) {
        add(ms, [0x02] + le16(handle | pb << 12) + le16(UInt16(data.count)) + data, received: received)
    }
    public mutating func att(_ ms: Int64, handle: UInt16, _ pdu: [UInt8], received: Bool) {
        l2cap(ms, handle: handle, cid: 0x0004, pdu, received: received)
    }
    /// A request the central sends at `t` ms and the peripheral's response 30 ms later; `t`
    /// moves on 40 ms to the next exchange (one ATT transaction at a time, Vol 3 Part F 3.3.2).
    public mutating func exchange(_ t: inout Int64, handle: UInt16, _ request: [UInt8], _ response: [UInt8]) {
        att(t, handle: handle, request, received: false)
        att(t + 30, handle: handle, response, received: true)
        t += 40
    }
    /// A remote central's ATT request on `handle` and, 2 ms later, the local server's recorded
    /// answer (nil: none): what a peripheral-role capture is made of.
    public mutating func served(_ ms: Int64, handle: UInt16, _ request: [UInt8], _ response: [UInt8]?) {
        att(ms, handle: handle, request, received: true)
        if let response { att(ms + 2, handle: handle, response, received: false) }
    }

    /// LE Connection Complete (LE Meta 0x3E, subevent 0x01, Vol 4 Part E 7.7.65.1): role 0 central,
    /// 1 peripheral; interval in 1.25 ms, timeout in 10 ms.
    public mutating func connectionComplete(_ ms: Int64, handle: UInt16, role: UInt8, peer: [UInt8], interval: UInt16 = 24, timeout: UInt16 = 400) {
        evt(ms, 0x3E, [0x01, 0x00] + le16(handle) + [role, 0x01] + peer.reversed() + le16(interval) + le16(0) + le16(timeout) + [0x00])
    }
    /// Disconnection Complete (7.7.5): status 0, handle, reason.
    public mutating func disconnectionComplete(_ ms: Int64, handle: UInt16, reason: UInt8) {
        evt(ms, 0x05, [0x00] + le16(handle) + [reason])
    }
    public mutating func commandStatus(_ ms: Int64, _ opcode: UInt16, status: UInt8 = 0) {
        evt(ms, 0x0F, [status, 0x01] + le16(opcode))
    }

    public func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    public var bytes: [UInt8] {
        var out = Array("btsnoop".utf8) + [0] + be(UInt32(1)) + be(UInt32(1002))
        let epoch: Int64 = 0x00DC_DDB3_0F2F_8000 + 1_777_881_600_000_000   // 2026-05-04T08:00:00Z
        for r in records {
            let flags: UInt32 = (r.received ? 1 : 0) | (r.h4[0] == 0x01 || r.h4[0] == 0x04 ? 2 : 0)
            out += be(UInt32(r.original)) + be(UInt32(r.h4.count)) + be(flags) + be(UInt32(0))
            out += be(UInt64(bitPattern: epoch + r.ms * 1000)) + r.h4
        }
        return out
    }

    public func write(to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// The same records as an Apple PacketLogger file (captures/MANIFEST.md "PacketLogger record
    /// layout"): per record u32 length (timestamp, type and payload), u32 seconds, u32
    /// microseconds, u8 type (0x00 command, 0x01 event, 0x02 ACL sent, 0x03 ACL received),
    /// then the HCI packet without its H4 byte; big-endian, as Mac PacketLogger writes it.
    public var packetLoggerBytes: [UInt8] {
        var out: [UInt8] = []
        let start: Int64 = 1_777_881_600_000_000
        for r in records {
            let type: UInt8 = r.h4[0] == 0x01 ? 0x00 : r.h4[0] == 0x04 ? 0x01 : (r.received ? 0x03 : 0x02)
            let payload = Array(r.h4.dropFirst())
            let us = start + r.ms * 1000
            out += be(UInt32(9 + payload.count)) + be(UInt32(us / 1_000_000)) + be(UInt32(us % 1_000_000)) + [type] + payload
        }
        return out
    }

    public func writePacketLogger(to path: String) throws { try Data(packetLoggerBytes).write(to: URL(fileURLWithPath: path)) }

    /// The same records as a pcap of LINKTYPE_BLUETOOTH_HCI_H4 (187), which records no direction
    /// (tcpdump.org link types; pcap-savefile(5)): a little-endian file header (magic a1b2c3d4,
    /// version 2.4, snaplen 65535, link type 187), then per record u32 seconds, u32
    /// microseconds, u32 captured length, u32 original length and the H4 packet.
    public var pcapH4Bytes: [UInt8] {
        var out = le(UInt32(0xA1B2_C3D4)) + le(UInt16(2)) + le(UInt16(4)) + le(UInt32(0)) + le(UInt32(0))
            + le(UInt32(65535)) + le(UInt32(187))
        let start: Int64 = 1_777_881_600_000_000
        for r in records {
            let us = start + r.ms * 1000
            out += le(UInt32(us / 1_000_000)) + le(UInt32(us % 1_000_000)) + le(UInt32(r.h4.count)) + le(UInt32(r.original)) + r.h4
        }
        return out
    }

    /// The same records as raw H4, as an emulated controller or `hciattach` traffic gives it: each
    /// H4 packet (type byte, then the HCI packet) back to back, with no time and no direction.
    public var rawH4Bytes: [UInt8] { records.flatMap(\.h4) }

    public func writePcapH4(to path: String) throws { try Data(pcapH4Bytes).write(to: URL(fileURLWithPath: path)) }

    /// The same records as a pcapng (draft-ietf-opsawg-pcapng) of LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR
    /// (201: a u32 big-endian direction, 0 sent, then the H4 packet), little-endian: a Section
    /// Header Block (4.1), one Interface Description Block (4.2, snaplen 262144, µs), then each
    /// record in an Enhanced Packet Block (4.3: interface 0, timestamp, captured and original
    /// length), except the records whose index is in `simplePackets`, written as Simple Packet
    /// Blocks (4.4: original length and the packet; no interface, no timestamp).
    public func pcapngBytes(simplePackets: Set<Int> = []) -> [UInt8] {
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            return le(type) + le(UInt32(12 + padded.count)) + padded + le(UInt32(12 + padded.count))
        }
        var out = block(0x0A0D_0D0A, le(UInt32(0x1A2B_3C4D)) + le(UInt16(1)) + le(UInt16(0)) + le(Int64(-1)))
        out += block(1, le(UInt16(201)) + le(UInt16(0)) + le(UInt32(262_144)))
        let start: Int64 = 1_777_881_600_000_000
        for (i, r) in records.enumerated() {
            let packet = be(UInt32(r.received ? 1 : 0)) + r.h4
            if simplePackets.contains(i) {
                out += block(3, le(UInt32(r.original + 4)) + packet)
            } else {
                let us = UInt64(start + r.ms * 1000)
                out += block(6, le(UInt32(0)) + le(UInt32(us >> 32)) + le(UInt32(us & 0xFFFF_FFFF))
                    + le(UInt32(packet.count)) + le(UInt32(r.original + 4)) + packet)
            }
        }
        return out
    }

    private func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
}
