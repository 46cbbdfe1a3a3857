import BLECore

/// An LL Control PDU: the payload of a data channel PDU with LLID 0b11 (Core v5.4 Vol 6 Part B 2.4.2).
///
/// Wire layout: `Opcode (1) | CtrData (0-26 octets, fixed per opcode)`. One case per procedure
/// this tool follows; `other` keeps every other opcode (assigned or not) with its raw CtrData.
/// `encoded` is the exact inverse of decoding.
public enum LLControlPDU: Sendable, Hashable {
    case connectionUpdateInd(LLConnectionUpdateInd)
    case channelMapInd(LLChannelMapInd)
    case terminateInd(errorCode: HCIStatusCode)
    case encReq(LLEncReq)
    case encRsp(LLEncRsp)
    case startEncReq
    case startEncRsp
    case unknownRsp(unknownType: LLControlOpcode)
    case featureReq(featureSet: UInt64)
    case featureRsp(featureSet: UInt64)
    case pauseEncReq
    case pauseEncRsp
    case versionInd(LLVersionInd)
    case rejectInd(errorCode: HCIStatusCode)
    case peripheralFeatureReq(featureSet: UInt64)
    case connectionParamReq(LLConnectionParameters)
    case connectionParamRsp(LLConnectionParameters)
    case rejectExtInd(rejectOpcode: LLControlOpcode, errorCode: HCIStatusCode)
    case pingReq
    case pingRsp
    case lengthReq(LLDataLength)
    case lengthRsp(LLDataLength)
    case phyReq(txPHYs: UInt8, rxPHYs: UInt8)
    case phyRsp(txPHYs: UInt8, rxPHYs: UInt8)
    case phyUpdateInd(LLPHYUpdateInd)
    case minUsedChannelsInd(phys: UInt8, minUsedChannels: UInt8)
    case clockAccuracyReq(sleepClockAccuracy: UInt8)
    case clockAccuracyRsp(sleepClockAccuracy: UInt8)
    /// An opcode this tool does not decode further (CTE, CIS, power control, subrating, …) or
    /// one Core v5.4 does not assign.
    case other(opcode: LLControlOpcode, parameters: [UInt8])

    /// Strict decoding: throws `.truncated` when a field is missing and `.malformed` when
    /// CtrData is longer than the opcode's.
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        let (pdu, problem) = Self.decode(bytes, baseOffset: baseOffset)
        if let problem { throw problem }
        guard let pdu else {
            throw DecodeError(layer: .linkLayer, offset: baseOffset, kind: .truncated, reason: "empty LL Control PDU")
        }
        self = pdu
    }

    /// Lenient decoding for captures: a PDU with bytes beyond its CtrData is still returned
    /// (with the problem), because its fields were all read (SweynTooth sends such PDUs, and
    /// Wireshark shows their fields); a cut PDU returns nil and the problem.
    public static func decode(_ bytes: ArraySlice<UInt8>, baseOffset: Int = 0) -> (pdu: LLControlPDU?, problem: DecodeError?) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .linkLayer)
        do {
            let opcode = LLControlOpcode(try r.readUInt8("LL Control Opcode"))
            let pdu = try decodeParameters(opcode, &r)
            if !r.isAtEnd {
                let expected = opcode.parameterLength ?? 0
                return (pdu, r.error("\(opcode.name): CtrData is \(expected) byte(s), \(r.remaining) more follow"))
            }
            return (pdu, nil)
        } catch {
            return (nil, error)
        }
    }

    private static func decodeParameters(_ op: LLControlOpcode, _ r: inout ByteReader) throws(DecodeError) -> LLControlPDU {
        switch op {
        case .connectionUpdateInd: return .connectionUpdateInd(try LLConnectionUpdateInd(parameters: &r))
        case .channelMapInd: return .channelMapInd(try LLChannelMapInd(parameters: &r))
        case .terminateInd: return .terminateInd(errorCode: HCIStatusCode(try r.readUInt8("ErrorCode")))
        case .encReq: return .encReq(try LLEncReq(parameters: &r))
        case .encRsp: return .encRsp(try LLEncRsp(parameters: &r))
        case .startEncReq: return .startEncReq
        case .startEncRsp: return .startEncRsp
        case .unknownRsp: return .unknownRsp(unknownType: LLControlOpcode(try r.readUInt8("UnknownType")))
        case .featureReq: return .featureReq(featureSet: try r.readUInt64(.little, "FeatureSet"))
        case .featureRsp: return .featureRsp(featureSet: try r.readUInt64(.little, "FeatureSet"))
        case .pauseEncReq: return .pauseEncReq
        case .pauseEncRsp: return .pauseEncRsp
        case .versionInd: return .versionInd(try LLVersionInd(parameters: &r))
        case .rejectInd: return .rejectInd(errorCode: HCIStatusCode(try r.readUInt8("ErrorCode")))
        case .peripheralFeatureReq: return .peripheralFeatureReq(featureSet: try r.readUInt64(.little, "FeatureSet"))
        case .connectionParamReq: return .connectionParamReq(try LLConnectionParameters(parameters: &r))
        case .connectionParamRsp: return .connectionParamRsp(try LLConnectionParameters(parameters: &r))
        case .rejectExtInd:
            let rejected = LLControlOpcode(try r.readUInt8("RejectOpcode"))
            return .rejectExtInd(rejectOpcode: rejected, errorCode: HCIStatusCode(try r.readUInt8("ErrorCode")))
        case .pingReq: return .pingReq
        case .pingRsp: return .pingRsp
        case .lengthReq: return .lengthReq(try LLDataLength(parameters: &r))
        case .lengthRsp: return .lengthRsp(try LLDataLength(parameters: &r))
        case .phyReq:
            let tx = try r.readUInt8("TX_PHYS")
            return .phyReq(txPHYs: tx, rxPHYs: try r.readUInt8("RX_PHYS"))
        case .phyRsp:
            let tx = try r.readUInt8("TX_PHYS")
            return .phyRsp(txPHYs: tx, rxPHYs: try r.readUInt8("RX_PHYS"))
        case .phyUpdateInd: return .phyUpdateInd(try LLPHYUpdateInd(parameters: &r))
        case .minUsedChannelsInd:
            let phys = try r.readUInt8("PHYS")
            return .minUsedChannelsInd(phys: phys, minUsedChannels: try r.readUInt8("MinUsedChannels"))
        case .clockAccuracyReq: return .clockAccuracyReq(sleepClockAccuracy: try r.readUInt8("SCA"))
        case .clockAccuracyRsp: return .clockAccuracyRsp(sleepClockAccuracy: try r.readUInt8("SCA"))
        default:
            if let length = op.parameterLength {
                return .other(opcode: op, parameters: Array(try r.readBytes(length, "\(op.name) CtrData")))
            }
            return .other(opcode: op, parameters: Array(r.readRemaining()))
        }
    }

    public var opcode: LLControlOpcode {
        switch self {
        case .connectionUpdateInd: .connectionUpdateInd
        case .channelMapInd: .channelMapInd
        case .terminateInd: .terminateInd
        case .encReq: .encReq
        case .encRsp: .encRsp
        case .startEncReq: .startEncReq
        case .startEncRsp: .startEncRsp
        case .unknownRsp: .unknownRsp
        case .featureReq: .featureReq
        case .featureRsp: .featureRsp
        case .pauseEncReq: .pauseEncReq
        case .pauseEncRsp: .pauseEncRsp
        case .versionInd: .versionInd
        case .rejectInd: .rejectInd
        case .peripheralFeatureReq: .peripheralFeatureReq
        case .connectionParamReq: .connectionParamReq
        case .connectionParamRsp: .connectionParamRsp
        case .rejectExtInd: .rejectExtInd
        case .pingReq: .pingReq
        case .pingRsp: .pingRsp
        case .lengthReq: .lengthReq
        case .lengthRsp: .lengthRsp
        case .phyReq: .phyReq
        case .phyRsp: .phyRsp
        case .phyUpdateInd: .phyUpdateInd
        case .minUsedChannelsInd: .minUsedChannelsInd
        case .clockAccuracyReq: .clockAccuracyReq
        case .clockAccuracyRsp: .clockAccuracyRsp
        case .other(let op, _): op
        }
    }

    /// Opcode and CtrData.
    public var encoded: [UInt8] {
        var b: [UInt8] = [opcode.rawValue]
        switch self {
        case .connectionUpdateInd(let p): p.append(to: &b)
        case .channelMapInd(let p): p.append(to: &b)
        case .terminateInd(let e), .rejectInd(let e): b.append(e.rawValue)
        case .encReq(let p): p.append(to: &b)
        case .encRsp(let p): p.append(to: &b)
        case .startEncReq, .startEncRsp, .pauseEncReq, .pauseEncRsp, .pingReq, .pingRsp: break
        case .unknownRsp(let t): b.append(t.rawValue)
        case .featureReq(let f), .featureRsp(let f), .peripheralFeatureReq(let f): b.append(le64: f)
        case .versionInd(let p): p.append(to: &b)
        case .connectionParamReq(let p), .connectionParamRsp(let p): p.append(to: &b)
        case .rejectExtInd(let op, let e): b += [op.rawValue, e.rawValue]
        case .lengthReq(let p), .lengthRsp(let p): p.append(to: &b)
        case .phyReq(let tx, let rx), .phyRsp(let tx, let rx): b += [tx, rx]
        case .phyUpdateInd(let p): p.append(to: &b)
        case .minUsedChannelsInd(let phys, let n): b += [phys, n]
        case .clockAccuracyReq(let s), .clockAccuracyRsp(let s): b.append(s)
        case .other(_, let parameters): b += parameters
        }
        return b
    }

    /// The error code of LL_TERMINATE_IND, LL_REJECT_IND and LL_REJECT_EXT_IND.
    public var errorCode: HCIStatusCode? {
        switch self {
        case .terminateInd(let e), .rejectInd(let e), .rejectExtInd(_, let e): e
        default: nil
        }
    }
}
