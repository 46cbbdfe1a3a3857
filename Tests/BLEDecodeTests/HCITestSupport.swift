import BLECore
@testable import BLEDecode

// Builders for capture records fed to PacketDecoder in the HCI, L2CAP, tracker and decoder
// tests. Every record sits at file offset 1000 with the default payloadOffsetInRecord (25),
// so payload byte i is at absolute offset 1025 + i.

enum Rec {
    static let fileOffset = 1000
    /// Absolute offset of payload byte 0.
    static let base = 1025

    static func make(_ kind: PacketKind, _ direction: Direction, _ bytes: [UInt8], drops: UInt32 = 0) -> CaptureRecord {
        CaptureRecord(frameNumber: 1, timestamp: 0, direction: direction, kind: kind, payload: bytes,
                      fileOffset: fileOffset, cumulativeDrops: drops)
    }
    static func cmd(_ bytes: [UInt8]) -> CaptureRecord { make(.command, .sent, bytes) }
    static func evt(_ bytes: [UInt8]) -> CaptureRecord { make(.event, .received, bytes) }
    static func aclRx(_ bytes: [UInt8]) -> CaptureRecord { make(.acl, .received, bytes) }
    static func aclTx(_ bytes: [UInt8]) -> CaptureRecord { make(.acl, .sent, bytes) }

    /// An ACL packet: handle | PB << 12, length, data.
    static func acl(_ direction: Direction, handle: UInt16, pb: UInt16, _ data: [UInt8]) -> CaptureRecord {
        let word = handle | pb << 12
        let n = UInt16(data.count)
        return make(.acl, direction, [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(n & 0xFF), UInt8(n >> 8)] + data)
    }

    /// A single-packet L2CAP B-frame on `cid` (PB 0b10).
    static func l2cap(_ direction: Direction, handle: UInt16, cid: UInt16, _ payload: [UInt8]) -> CaptureRecord {
        let n = UInt16(payload.count)
        return acl(direction, handle: handle, pb: 0b10,
                   [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload)
    }

    /// LE Connection Complete (sub-event 0x01), central, peer C0:11:22:33:44:55 random,
    /// interval 0x0018 (30 ms), latency 0, timeout 0x01F4 (5 s).
    static func leConnectionComplete(status: UInt8 = 0, handle: UInt16) -> CaptureRecord {
        evt([0x3E, 0x13, 0x01, status, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x01,
             0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x05])
    }

    /// Disconnection Complete, status 0.
    static func disconnectionComplete(handle: UInt16, reason: UInt8) -> CaptureRecord {
        evt([0x05, 0x04, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), reason])
    }
}

/// Bytes from hex text, spaces ignored: `hx("3E 13 01")`.
func hx(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var pending: UInt8?
    for c in text.unicodeScalars {
        guard let v = UInt8(String(c), radix: 16) else { continue }
        if let p = pending { out.append(p << 4 | v); pending = nil } else { pending = v }
    }
    return out
}

extension DecodedPacket {
    var commands: [HCICommandInfo] { events.compactMap { if case .command(let c) = $0 { c } else { nil } } }
    var commandResults: [HCICommandResult] { events.compactMap { if case .commandResult(let c) = $0 { c } else { nil } } }
    var connectionCompletes: [ConnectionComplete] {
        events.compactMap { if case .connectionComplete(let c) = $0 { c } else { nil } }
    }
    var disconnections: [DisconnectionComplete] {
        events.compactMap { if case .disconnectionComplete(let c) = $0 { c } else { nil } }
    }
    var reports: [AdvertisingReport] { events.compactMap { if case .advertisingReport(let r) = $0 { r } else { nil } } }
    var linkEvents: [LinkEvent] { events.compactMap { if case .linkEvent(let l) = $0 { l } else { nil } } }
    var attEvents: [ATTEvent] { events.compactMap { if case .att(let a) = $0 { a } else { nil } } }
    var smpEvents: [SMPEvent] { events.compactMap { if case .smp(let s) = $0 { s } else { nil } } }
    var signalingEvents: [SignalingEvent] { events.compactMap { if case .signaling(let s) = $0 { s } else { nil } } }
    var encryptionChanges: [EncryptionChange] {
        events.compactMap { if case .encryptionChange(let e) = $0 { e } else { nil } }
    }
    var foundInProgress: [(ConnectionRef, Transport)] {
        events.compactMap { if case .connectionFoundInProgress(let r, let t) = $0 { (r, t) } else { nil } }
    }
}
