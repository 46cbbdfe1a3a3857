import BLECore

/// LE signalling channel commands, CID 0x0005 (Core v5.4 Vol 3 Part A 4).
///
/// Wire layout of a C-frame on LE: Code u8, Identifier u8, Length u16, Data (one command per
/// frame). Decoded: Command Reject (0x01), Disconnection Request/Response (0x06/0x07),
/// Connection Parameter Update Request/Response (0x12/0x13), LE Credit Based Connection
/// Request/Response (0x14/0x15), Flow Control Credit (0x16), Credit Based Connection
/// Request/Response (0x17/0x18), Credit Based Reconfigure Request/Response (0x19/0x1A).
extension PacketDecoder {
    mutating func decodeLESignaling(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        d.layer = .signaling
        var r = ByteReader(frame.payload, baseOffset: absolute(frame, 4), layer: .signaling)
        var code: UInt8 = 0
        do {
            code = try r.readUInt8("signalling Code")
            let id = try r.readUInt8("signalling Identifier")
            let length = Int(try r.readUInt16(.little, "signalling Length"))
            let name = L2CAPSignaling.name(code)
            if r.remaining != length {
                let e = r.error("signalling Length \(length), command has \(r.remaining) byte(s)",
                                kind: r.remaining < length ? .truncated : .malformed)
                d.problems.append(remap(e, frame))
            }
            var body = try r.subReader(min(length, r.remaining), "signalling Data")
            var data = body
            leChannels.learn(code: code, identifier: id, data: data.readRemaining(), connection: connection.index,
                             direction: d.direction)
            var event = SignalingEvent(connection: connection, direction: d.direction, code: code, identifier: id, name: name)
            d.summary.set(d.prefix + name + " (id \(id))")
            do {
                // Read whether or not the summary is kept: the parameters go into the event.
                let parameters = try Self.signalingParameters(code, &body, &event)
                d.summary += parameters
            } catch {
                d.problems.append(remap(error, frame))
                d.summary += " (malformed: " + error.reason + ")"
            }
            d.events.append(.signaling(event))
        } catch {
            d.problems.append(remap(error, frame))
            d.summary.set(d.prefix + "LE signalling (malformed: " + error.reason + ")")
        }
    }

    /// Decodes a command's data into `event`; returns summary detail.
    static func signalingParameters(_ code: UInt8, _ r: inout ByteReader,
                                    _ event: inout SignalingEvent) throws(DecodeError) -> String {
        switch code {
        case 0x01:
            // Reason u16, Data (4.1)
            let reason = try r.readUInt16(.little, "Command Reject Reason")
            event.result = reason
            return " reason " + Fmt.h4(reason) + " " + L2CAPSignaling.rejectReason(reason)
        case 0x06, 0x07:
            // Destination CID u16, Source CID u16 (4.6, 4.7)
            let dcid = try r.readUInt16(.little, "Destination CID")
            let scid = try r.readUInt16(.little, "Source CID")
            return " DCID " + Fmt.h4(dcid) + " SCID " + Fmt.h4(scid)
        case 0x12:
            // Interval Min u16, Interval Max u16, Latency u16, Timeout u16 (4.20)
            let lo = try r.readUInt16(.little, "Interval Min")
            let hi = try r.readUInt16(.little, "Interval Max")
            let latency = try r.readUInt16(.little, "Latency")
            let timeout = try r.readUInt16(.little, "Timeout Multiplier")
            event.parameters = (lo, hi, latency, timeout)
            return " interval " + Fmt.intervalRange(lo, hi) + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)
        case 0x13:
            // Result u16: 0 accepted, 1 rejected (4.21)
            let result = try r.readUInt16(.little, "Result")
            event.result = result
            return result == 0 ? " accepted" : result == 1 ? " rejected" : " result " + Fmt.h4(result)
        case 0x14:
            // LE_PSM u16, Source CID u16, MTU u16, MPS u16, Initial Credits u16 (4.22)
            let psm = try r.readUInt16(.little, "LE_PSM")
            let scid = try r.readUInt16(.little, "Source CID")
            let mtu = try r.readUInt16(.little, "MTU")
            let mps = try r.readUInt16(.little, "MPS")
            let credits = try r.readUInt16(.little, "Initial Credits")
            return " PSM " + Fmt.h4(psm) + " SCID " + Fmt.h4(scid) + " MTU \(mtu) MPS \(mps) credits \(credits)"
        case 0x15:
            // Destination CID u16, MTU u16, MPS u16, Initial Credits u16, Result u16 (4.23)
            let dcid = try r.readUInt16(.little, "Destination CID")
            let mtu = try r.readUInt16(.little, "MTU")
            let mps = try r.readUInt16(.little, "MPS")
            let credits = try r.readUInt16(.little, "Initial Credits")
            let result = try r.readUInt16(.little, "Result")
            event.result = result
            return " DCID " + Fmt.h4(dcid) + " MTU \(mtu) MPS \(mps) credits \(credits) result "
                + Fmt.h4(result) + " " + L2CAPSignaling.creditResult(result)
        case 0x16:
            // CID u16, Credits u16 (4.24)
            let cid = try r.readUInt16(.little, "CID")
            let credits = try r.readUInt16(.little, "Credits")
            return " CID " + Fmt.h4(cid) + " credits \(credits)"
        case 0x17:
            // SPSM u16, MTU u16, MPS u16, Initial Credits u16, Source CID[1..5] u16 (4.25)
            let psm = try r.readUInt16(.little, "SPSM")
            let mtu = try r.readUInt16(.little, "MTU")
            let mps = try r.readUInt16(.little, "MPS")
            let credits = try r.readUInt16(.little, "Initial Credits")
            let cids = try Self.cidList(&r, "Source CID")
            return " SPSM " + Fmt.h4(psm) + " MTU \(mtu) MPS \(mps) credits \(credits) SCIDs " + cids
        case 0x18:
            // MTU u16, MPS u16, Initial Credits u16, Result u16, Destination CID[1..5] u16 (4.26)
            let mtu = try r.readUInt16(.little, "MTU")
            let mps = try r.readUInt16(.little, "MPS")
            let credits = try r.readUInt16(.little, "Initial Credits")
            let result = try r.readUInt16(.little, "Result")
            event.result = result
            let cids = try Self.cidList(&r, "Destination CID")
            return " MTU \(mtu) MPS \(mps) credits \(credits) result " + Fmt.h4(result) + " "
                + L2CAPSignaling.creditResult(result) + " DCIDs " + cids
        case 0x19:
            // MTU u16, MPS u16, Destination CID[1..5] u16 (4.27)
            let mtu = try r.readUInt16(.little, "MTU")
            let mps = try r.readUInt16(.little, "MPS")
            let cids = try Self.cidList(&r, "Destination CID")
            return " MTU \(mtu) MPS \(mps) DCIDs " + cids
        case 0x1A:
            // Result u16 (4.28)
            let result = try r.readUInt16(.little, "Result")
            event.result = result
            return " result " + Fmt.h4(result)
        default:
            return ""
        }
    }

    /// A list of 1-5 CIDs filling the rest of the command.
    private static func cidList(_ r: inout ByteReader, _ what: String) throws(DecodeError) -> String {
        if r.remaining < 2 || r.remaining % 2 != 0 || r.remaining > 10 {
            throw r.error("\(what) list: \(r.remaining) byte(s), expected 2-10 and even")
        }
        var out: [String] = []
        while r.remaining >= 2 { out.append(Fmt.h4(try r.readUInt16(.little, what))) }
        return out.joined(separator: ",")
    }
}

/// Names of L2CAP signalling codes and results (Core v5.4 Vol 3 Part A 4).
public enum L2CAPSignaling {
    static let names: [String?] = {
        var t = [String?](repeating: nil, count: 256)
        let pairs: [(Int, String)] = [
            (0x01, "Command Reject"), (0x02, "Connection Request"), (0x03, "Connection Response"),
            (0x04, "Configure Request"), (0x05, "Configure Response"), (0x06, "Disconnection Request"),
            (0x07, "Disconnection Response"), (0x08, "Echo Request"), (0x09, "Echo Response"),
            (0x0A, "Information Request"), (0x0B, "Information Response"), (0x0C, "Create Channel Request"),
            (0x0D, "Create Channel Response"), (0x0E, "Move Channel Request"), (0x0F, "Move Channel Response"),
            (0x10, "Move Channel Confirmation Request"), (0x11, "Move Channel Confirmation Response"),
            (0x12, "Connection Parameter Update Request"), (0x13, "Connection Parameter Update Response"),
            (0x14, "LE Credit Based Connection Request"), (0x15, "LE Credit Based Connection Response"),
            (0x16, "Flow Control Credit"), (0x17, "Credit Based Connection Request"),
            (0x18, "Credit Based Connection Response"), (0x19, "Credit Based Reconfigure Request"),
            (0x1A, "Credit Based Reconfigure Response"),
        ]
        for (k, v) in pairs { t[k] = v }
        return t
    }()

    static func name(_ code: UInt8) -> String {
        names[Int(code)] ?? ("Unknown signalling code " + Fmt.h2(code))
    }

    /// Command Reject reasons (4.1).
    static func rejectReason(_ r: UInt16) -> String {
        switch r {
        case 0x0000: "Command not understood"
        case 0x0001: "Signaling MTU exceeded"
        case 0x0002: "Invalid CID in request"
        default: "Unknown reason"
        }
    }

    /// LE Credit Based / Credit Based Connection Response results (4.23, 4.26).
    /// Whether a credit-based connection response's result (Core v5.4 Vol 3 Part A 4.23, 4.26)
    /// refuses the connection, all or some of it: neither success (0x0000) nor pending (0x000D-0x000F).
    public static func refusesCreditConnection(_ r: UInt16) -> Bool { r != 0 && !(0x000D...0x000F).contains(r) }

    public static func creditResult(_ r: UInt16) -> String {
        switch r {
        case 0x0000: "Successful"
        case 0x0002: "SPSM not supported"
        case 0x0004: "No resources available"
        case 0x0005: "Insufficient Authentication"
        case 0x0006: "Insufficient Authorization"
        case 0x0007: "Encryption Key Size Too Short"
        case 0x0008: "Insufficient Encryption"
        case 0x0009: "Invalid Source CID"
        case 0x000A: "Source CID already allocated"
        case 0x000B: "Unacceptable parameters"
        case 0x000C: "Invalid parameters"
        case 0x000D: "Pending, no further information"
        case 0x000E: "Pending, authentication pending"
        case 0x000F: "Pending, authorization pending"
        default: "Unknown result"
        }
    }
}
