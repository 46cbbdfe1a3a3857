import BLECore

/// K-frames on LE credit-based channels, CIDs 0x0040-0x007F (Core v5.4 Vol 3 Part A 3.4.3).
///
/// A channel the capture saw open (`LECreditChannelMap`) has its SDUs put back together from
/// their K-frames; an SDU on an Enhanced ATT bearer (SPSM 0x0027, Vol 3 Part G 5.4) is one ATT
/// PDU and is decoded as ATT on the connection, like ATT on the fixed channel 0x0004. Other
/// PSMs (OTS 0x0025, IPSP 0x0023, vendor PSMs) are named, never taken for ATT. A channel opened
/// before the capture started cannot be told apart from another: its frames are named by CID.
extension PacketDecoder {
    static let eattPSM: UInt16 = 0x0027

    mutating func decodeCreditBasedFrame(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        let cid = frame.cid
        let payload = frame.payload
        let channel = "CID " + Fmt.h4(cid)
        guard let known = leChannels.channel(connection: connection.index, direction: d.direction, cid: cid),
              let outcome = leChannels.kFrame(payload, offset: absolute(frame, 4), connection: connection.index,
                                             direction: d.direction, cid: cid)
        else {
            d.summary.set("\(d.prefix)L2CAP LE CoC data \(channel), \(payload.count) bytes")
            return
        }
        let psm = known.psm
        let name = psm == Self.eattPSM ? "EATT" : BREDRNames.psm(psm)
        switch outcome {
        case .complete(let sdu, let offset, let frames):
            if psm == Self.eattPSM {
                // Offsets of a multi-K-frame SDU are counted from its first byte.
                let single = frames == 1
                decodeATT(sdu[...], baseOffset: offset, connection: connection, bearer: known.bearer,
                          suffix: " (EATT " + channel + ")", into: &d) { single ? Self.remapped($0, frame) : $0 }
                return
            }
            d.summary.set("\(d.prefix)L2CAP LE CoC \(channel) (\(name)), SDU \(sdu.count) bytes"
                + (frames > 1 ? " in \(frames) K-frames" : ""))
        case .needMore(let received, let expected):
            d.summary.set("\(d.prefix)L2CAP LE CoC \(channel) (\(name)), K-frame: \(received) of \(expected) SDU bytes")
        case .unusable(let reason):
            d.problems.append(DecodeError(layer: .l2cap, offset: absolute(frame, 4), kind: .malformed, reason: reason))
            d.summary.set("\(d.prefix)L2CAP LE CoC \(channel) (\(name)) (malformed: \(reason))")
        }
    }
}
