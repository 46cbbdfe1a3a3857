import BLECore

/// ATT over BR/EDR (Core v5.4 Vol 3 Part G 2.1, 5.1; Part F 3.2.11): an unenhanced ATT bearer is
/// an L2CAP connection-oriented channel opened for PSM 0x001F by Connection Request/Response on
/// the BR/EDR signalling channel (Vol 3 Part A 4.2, 4.3), in Basic mode: each B-frame (3.1) is
/// one ATT PDU, as on the LE fixed channel 0x0004.
///
/// The PDUs are ATT events on the BR/EDR connection, with `bearer` the requester's Source CID
/// (one name for both directions): transactions are paired per bearer and the GATT database is
/// reconstructed from them like an LE one. A channel that a Configuration Request put in another
/// mode (Enhanced Retransmission, Streaming: option 0x04, Vol 3 Part A 5.4) carries I-frames
/// with a control field and FCS; it is named, never read as B-frames. LE-only rules stay LE-only:
/// Exchange MTU is not used on BR/EDR (Part G 4.3.1), the ATT_MTU is the channel's L2CAP MTU.
extension PacketDecoder {
    static let attPSM: UInt16 = 0x001F

    mutating func decodeBREDRATT(_ frame: L2CAPFrame, channel: BREDRChannelMap.Channel, connection: ConnectionRef,
                                 into d: inout PacketDraft) {
        let suffix = " (BR/EDR ATT CID " + Fmt.h4(frame.cid) + ")"
        guard channels.isBasicMode(connection: connection.index, bearer: channel.bearer) else {
            d.summary.set(d.prefix + "BR/EDR L2CAP CID " + Fmt.h4(frame.cid)
                + " (ATT, not in Basic mode: frames not read), \(frame.payload.count) bytes")
            return
        }
        decodeATT(frame.payload, baseOffset: absolute(frame, 4), connection: connection, bearer: channel.bearer,
                  suffix: suffix, into: &d) { Self.remapped($0, frame) }
    }

    /// The mode a Configuration Request's options ask for: the first byte of the Retransmission
    /// and Flow Control option (type 0x04, Vol 3 Part A 5.4; 0x00 Basic, 0x03 Enhanced
    /// Retransmission, 0x04 Streaming). Options are type u8 (bit 7: hint), length u8, data (5).
    /// Nil when no such option is there (the mode stays as it was: Basic by default).
    static func retransmissionMode(_ options: ArraySlice<UInt8>) -> UInt8? {
        var i = options.startIndex
        var seen = 0
        while options.endIndex - i >= 2, seen < 32 {
            let type = options[i] & 0x7F
            let length = Int(options[i + 1])
            let data = i + 2
            if type == 0x04, length >= 1, data < options.endIndex { return options[data] }
            i = data + length
            seen += 1
        }
        return nil
    }
}
