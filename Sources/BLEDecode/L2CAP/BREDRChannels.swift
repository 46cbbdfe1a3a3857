import BLECore

/// Which protocol (PSM) runs on each BR/EDR dynamic channel, learnt from the signalling
/// channel's Connection Request/Response (Core v5.4 Vol 3 Part A 4.2, 4.3), and whether a
/// channel was configured out of Basic mode (Configuration option 0x04, 5.4).
///
/// A packet's CID is the receiver's endpoint: a channel opened by a Connection Request that
/// direction D sent with Source CID S carries CID S in packets going the other way, and the
/// Destination CID of the response in packets going direction D. Bounded: at most
/// `capacity` channels and pending requests; beyond, the oldest knowledge is dropped.
struct BREDRChannelMap: Sendable {
    struct ChannelKey: Hashable, Sendable {
        var connection: Int
        var direction: Direction
        var cid: UInt16
    }

    /// One open channel: its PSM and one name for both directions (the requester's Source CID).
    struct Channel: Sendable, Equatable {
        var psm: UInt16
        var bearer: UInt16
    }

    /// A channel under its connection, named by its bearer.
    struct BearerKey: Hashable, Sendable {
        var connection: Int
        var bearer: UInt16
    }

    static let capacity = 4096
    private var psms: [ChannelKey: Channel] = [:]
    /// Channels a Configuration Request put in a mode other than Basic (ERTM, streaming, …):
    /// their frames carry a control field (3.3), so they are not read as B-frames.
    private var notBasic: Set<BearerKey> = []
    /// Connection Requests awaiting a response: keyed by requester direction and Source CID.
    private var requests: [ChannelKey: UInt16] = [:]

    /// The PSM of the channel a packet travelling `direction` with `cid` belongs to.
    func psm(connection: Int, direction: Direction, cid: UInt16) -> UInt16? {
        channel(connection: connection, direction: direction, cid: cid)?.psm
    }

    /// The channel a packet travelling `direction` with `cid` belongs to.
    func channel(connection: Int, direction: Direction, cid: UInt16) -> Channel? {
        psms.isEmpty ? nil : psms[ChannelKey(connection: connection, direction: direction, cid: cid)]
    }

    /// Whether the channel was configured in Basic mode (no Configuration said otherwise).
    func isBasicMode(connection: Int, bearer: UInt16) -> Bool {
        notBasic.isEmpty || !notBasic.contains(BearerKey(connection: connection, bearer: bearer))
    }

    /// A Configuration Request sent in `direction` for the receiver's `destinationCID`, whose
    /// Retransmission and Flow Control option (5.4) asks for `mode` (0x00 Basic).
    mutating func configured(connection: Int, direction: Direction, destinationCID: UInt16, mode: UInt8) {
        guard let c = channel(connection: connection, direction: direction, cid: destinationCID) else { return }
        let key = BearerKey(connection: connection, bearer: c.bearer)
        if mode == 0 { notBasic.remove(key) } else {
            if notBasic.count >= Self.capacity { notBasic.removeAll() }
            notBasic.insert(key)
        }
    }

    /// A Connection Request sent in `direction`.
    mutating func request(connection: Int, direction: Direction, psm: UInt16, sourceCID: UInt16) {
        if requests.count >= Self.capacity { requests.removeAll() }
        if psms.count >= Self.capacity { psms.removeAll() }
        requests[ChannelKey(connection: connection, direction: direction, cid: sourceCID)] = psm
        psms[ChannelKey(connection: connection, direction: direction.reversed, cid: sourceCID)] =
            Channel(psm: psm, bearer: sourceCID)
        notBasic.remove(BearerKey(connection: connection, bearer: sourceCID))
    }

    /// A Connection Response sent in `direction`. Result 0x0001 (pending) keeps the request.
    mutating func response(connection: Int, direction: Direction, destinationCID: UInt16, sourceCID: UInt16,
                           result: UInt16) -> UInt16? {
        let key = ChannelKey(connection: connection, direction: direction.reversed, cid: sourceCID)
        guard let psm = requests[key] else { return nil }
        if result == 0x0001 { return psm }
        requests[key] = nil
        if result == 0x0000 {
            psms[ChannelKey(connection: connection, direction: direction.reversed, cid: destinationCID)] =
                Channel(psm: psm, bearer: sourceCID)
        } else {
            psms[ChannelKey(connection: connection, direction: direction, cid: sourceCID)] = nil
        }
        return psm
    }

    /// A Disconnection Response sent in `direction` (DCID: the responder's CID).
    mutating func disconnected(connection: Int, direction: Direction, destinationCID: UInt16, sourceCID: UInt16) {
        psms[ChannelKey(connection: connection, direction: direction.reversed, cid: destinationCID)] = nil
        psms[ChannelKey(connection: connection, direction: direction, cid: sourceCID)] = nil
    }

    mutating func remove(connection: Int) {
        guard !psms.isEmpty || !requests.isEmpty || !notBasic.isEmpty else { return }
        psms = psms.filter { $0.key.connection != connection }
        requests = requests.filter { $0.key.connection != connection }
        notBasic = notBasic.filter { $0.connection != connection }
    }

    mutating func removeAll() {
        psms.removeAll()
        requests.removeAll()
        notBasic.removeAll()
    }
}

extension Direction {
    /// The other way across the HCI (`.unknown` stays unknown).
    var reversed: Direction {
        switch self {
        case .sent: .received
        case .received: .sent
        case .unknown: .unknown
        }
    }
}

/// BR/EDR L2CAP classification (Core v5.4 Vol 3 Part A 2.1): fixed channels by name, the
/// signalling channel's commands by name, dynamic channels by the PSM they were opened for;
/// the BR/EDR Security Manager channel 0x0007 is decoded as SMP.
extension PacketDecoder {
    mutating func classifyBREDR(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        d.layer = .bredr
        let cid = frame.cid
        let payload = frame.payload
        switch cid {
        case 0x0001:
            // Read whether or not the summary is kept: it learns the channels' PSMs.
            let commands = bredrSignaling(payload, connection: connection, direction: d.direction)
            d.summary.set(d.prefix + "BR/EDR L2CAP " + commands)
        case 0x0002:
            d.summary.set(d.prefix + "BR/EDR L2CAP connectionless data, \(payload.count) bytes")
        case 0x0003:
            d.summary.set(d.prefix + "BR/EDR L2CAP AMP Manager, \(payload.count) bytes")
        case 0x0007:
            // BR/EDR Security Manager (Core v5.4 Vol 3 Part H 3.2, 2.4.2.4): the same PDUs as
            // on LE CID 0x0006, used for cross-transport key derivation.
            decodeSMP(frame, connection: connection, into: &d)
            d.summary += " (BR/EDR)"
        default:
            if let channel = channels.channel(connection: connection.index, direction: d.direction, cid: cid) {
                if channel.psm == Self.attPSM {
                    decodeBREDRATT(frame, channel: channel, connection: connection, into: &d)
                    return
                }
                d.summary.set("\(d.prefix)BR/EDR L2CAP CID \(Fmt.h4(cid)) (\(BREDRNames.psm(channel.psm))), \(payload.count) bytes")
            } else {
                d.summary.set("\(d.prefix)BR/EDR L2CAP CID \(Fmt.h4(cid)), \(payload.count) bytes")
            }
        }
    }

    /// Names the commands in a BR/EDR signalling C-frame (several commands may share one) and
    /// learns channel PSMs from Connection Request/Response and Disconnection Response.
    private mutating func bredrSignaling(_ payload: ArraySlice<UInt8>, connection: ConnectionRef,
                                         direction: Direction) -> String {
        var parts: [String] = []
        var i = payload.startIndex
        while payload.endIndex - i >= 4, parts.count < 8 {
            let code = payload[i]
            let length = Int(payload[i + 2]) | Int(payload[i + 3]) << 8
            let start = i + 4
            let end = min(payload.endIndex, start + length)
            let data = payload[start..<end]
            var text = L2CAPSignaling.name(code)
            func u16(_ at: Int) -> UInt16? {
                at + 1 < data.count ? UInt16(data[data.startIndex + at]) | UInt16(data[data.startIndex + at + 1]) << 8 : nil
            }
            switch code {
            case 0x02:
                if let psm = u16(0), let scid = u16(2) {
                    channels.request(connection: connection.index, direction: direction, psm: psm, sourceCID: scid)
                    text += " (PSM " + Fmt.h4(psm) + " " + BREDRNames.psm(psm) + ", SCID " + Fmt.h4(scid) + ")"
                }
            case 0x03:
                if let dcid = u16(0), let scid = u16(2), let result = u16(4) {
                    let psm = channels.response(connection: connection.index, direction: direction,
                                                destinationCID: dcid, sourceCID: scid, result: result)
                    text += " (" + (result == 0 ? "success" : result == 1 ? "pending" : "result " + Fmt.h4(result))
                    if let psm { text += ", " + BREDRNames.psm(psm) }
                    // Destination CID is meaningful only on success (4.3)
                    text += ", SCID " + Fmt.h4(scid) + (result == 0 ? ", DCID " + Fmt.h4(dcid) : "") + ")"
                }
            case 0x01:
                // Reason u16 (4.1)
                if let reason = u16(0) { text += " (reason " + Fmt.h4(reason) + " " + L2CAPSignaling.rejectReason(reason) + ")" }
            case 0x04:
                // Destination CID u16, Flags u16, options (4.4)
                if let dcid = u16(0) {
                    text += " (DCID " + Fmt.h4(dcid) + ")"
                    if let mode = Self.retransmissionMode(data.dropFirst(4)) {
                        channels.configured(connection: connection.index, direction: direction,
                                            destinationCID: dcid, mode: mode)
                    }
                }
            case 0x05:
                // Source CID u16, Flags u16, Result u16, options (4.5)
                if let scid = u16(0), let result = u16(4) {
                    text += " (SCID " + Fmt.h4(scid) + ", " + BREDRNames.configureResult(result) + ")"
                }
            case 0x06:
                // Destination CID u16, Source CID u16 (4.6)
                if let dcid = u16(0), let scid = u16(2) { text += " (SCID " + Fmt.h4(scid) + ", DCID " + Fmt.h4(dcid) + ")" }
            case 0x07:
                // Destination CID u16, Source CID u16 (4.7)
                if let dcid = u16(0), let scid = u16(2) {
                    channels.disconnected(connection: connection.index, direction: direction,
                                          destinationCID: dcid, sourceCID: scid)
                    text += " (SCID " + Fmt.h4(scid) + ", DCID " + Fmt.h4(dcid) + ")"
                }
            case 0x0A:
                // InfoType u16 (4.10)
                if let type = u16(0) { text += " (" + BREDRNames.infoType(type) + ")" }
            case 0x0B:
                // InfoType u16, Result u16, data (4.11)
                if let type = u16(0), let result = u16(2) {
                    text += " (" + BREDRNames.infoType(type) + ", "
                        + (result == 0 ? "success" : result == 1 ? "not supported" : "result " + Fmt.h4(result)) + ")"
                }
            default:
                break
            }
            parts.append(text)
            i = end
        }
        if parts.isEmpty { return "signalling, \(payload.count) bytes" }
        return parts.joined(separator: ", ")
    }
}

/// Protocol/service multiplexer names (Bluetooth Assigned Numbers 2.2).
enum BREDRNames {
    /// Information Request/Response InfoType (Core v5.4 Vol 3 Part A 4.10).
    static func infoType(_ t: UInt16) -> String {
        switch t {
        case 0x0001: "Connectionless MTU"
        case 0x0002: "Extended Features Mask"
        case 0x0003: "Fixed Channels Supported"
        default: "InfoType " + Fmt.h4(t)
        }
    }

    /// Configuration Response result (Core v5.4 Vol 3 Part A 4.5).
    static func configureResult(_ r: UInt16) -> String {
        switch r {
        case 0x0000: "success"
        case 0x0001: "failure: unacceptable parameters"
        case 0x0002: "failure: rejected"
        case 0x0003: "failure: unknown options"
        case 0x0004: "pending"
        case 0x0005: "failure: flow spec rejected"
        default: "result " + Fmt.h4(r)
        }
    }

    static func psm(_ p: UInt16) -> String {
        switch p {
        case 0x0001: "SDP"
        case 0x0003: "RFCOMM"
        case 0x0005: "TCS-BIN"
        case 0x0007: "TCS-BIN-CORDLESS"
        case 0x000F: "BNEP"
        case 0x0011: "HID Control"
        case 0x0013: "HID Interrupt"
        case 0x0015: "UPnP"
        case 0x0017: "AVCTP"
        case 0x0019: "AVDTP"
        case 0x001B: "AVCTP Browsing"
        case 0x001D: "UDI C-Plane"
        case 0x001F: "ATT"
        case 0x0021: "3DSP"
        case 0x0023: "IPSP"
        case 0x0025: "OTS"
        case 0x0027: "EATT"
        default: "PSM " + Fmt.h4(p)
        }
    }
}
