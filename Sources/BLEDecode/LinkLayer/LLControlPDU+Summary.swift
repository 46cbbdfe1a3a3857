import BLECore

extension LLControlPDU {
    /// One line with Wireshark's field labels: `LL_TERMINATE_IND, Error Code: Remote User
    /// Terminated Connection (0x13)`.
    public var summary: String {
        let fields = self.fields
        guard !fields.isEmpty else { return opcode.name }
        return opcode.name + ", " + fields.map { $0.0 + ": " + $0.1 }.joined(separator: ", ")
    }

    /// Decoded fields with Wireshark's labels, in wire order (for `LinkEvent.fields` and summaries).
    public var fields: [(String, String)] {
        switch self {
        case .connectionUpdateInd(let p):
            return [("Window Size", Fmt.interval(UInt16(p.windowSize))), ("Window Offset", Fmt.interval(p.windowOffset)),
                    ("Interval", Fmt.interval(p.interval)), ("Latency", String(p.latency)),
                    ("Timeout", Fmt.timeout10ms(p.timeout)), ("Instant", String(p.instant))]
        case .channelMapInd(let p):
            return [("Channel Map", Fmt.bytes(p.channelMap) + " (\(LinkLayerFormat.usedChannels(p.channelMap)) channels)"),
                    ("Instant", String(p.instant))]
        case .terminateInd(let e), .rejectInd(let e):
            return [("Error Code", Self.status(e))]
        case .encReq(let p):
            return [("Random Number", hex(p.rand, width: 16)), ("Encrypted Diversifier", Fmt.h4(p.ediv))]
        case .encRsp, .startEncReq, .startEncRsp, .pauseEncReq, .pauseEncRsp, .pingReq, .pingRsp:
            return []
        case .unknownRsp(let t):
            return [("Unknown Type", t.description)]
        case .featureReq(let f), .featureRsp(let f), .peripheralFeatureReq(let f):
            return [("Feature Set", hex(f, width: 16))]
        case .versionInd(let p):
            let version = LLVersionInd.versionName(p.version).map { "\($0) (\(p.version))" } ?? "Unknown (\(p.version))"
            let company = AssignedNumbers.companyName(p.companyID).map { "\($0) (\(Fmt.h4(p.companyID)))" } ?? Fmt.h4(p.companyID)
            return [("Version Number", version), ("Company Id", company), ("Subversion Number", Fmt.h4(p.subversion))]
        case .connectionParamReq(let p), .connectionParamRsp(let p):
            return [("Interval", Fmt.intervalRange(p.intervalMin, p.intervalMax)), ("Latency", String(p.latency)),
                    ("Timeout", Fmt.timeout10ms(p.timeout))]
        case .rejectExtInd(let op, let e):
            return [("Reject Opcode", op.description), ("Error Code", Self.status(e))]
        case .lengthReq(let p), .lengthRsp(let p):
            return [("Max RX octets", String(p.maxRxOctets)), ("Max RX time", "\(p.maxRxTime) µs"),
                    ("Max TX octets", String(p.maxTxOctets)), ("Max TX time", "\(p.maxTxTime) µs")]
        case .phyReq(let tx, let rx), .phyRsp(let tx, let rx):
            return [("TX PHYs", Fmt.phys(tx)), ("RX PHYs", Fmt.phys(rx))]
        case .phyUpdateInd(let p):
            return [("Central to Peripheral PHY", Self.phyUpdate(p.centralToPeripheral)),
                    ("Peripheral to Central PHY", Self.phyUpdate(p.peripheralToCentral)), ("Instant", String(p.instant))]
        case .minUsedChannelsInd(let phys, let n):
            return [("PHYs", Fmt.phys(phys)), ("Minimum Used Channels", String(n))]
        case .clockAccuracyReq(let s), .clockAccuracyRsp(let s):
            return [("Sleep Clock Accuracy", LinkLayerFormat.sleepClockAccuracy(s))]
        case .other(_, let parameters):
            return parameters.isEmpty ? [] : [("CtrData", Fmt.bytes(parameters))]
        }
    }

    /// `Remote User Terminated Connection (0x13)`.
    static func status(_ e: HCIStatusCode) -> String { e.name + " (" + Fmt.h2(e.rawValue) + ")" }

    /// A PHY_C_TO_P / PHY_P_TO_C field: 0 means unchanged.
    static func phyUpdate(_ bits: UInt8) -> String { bits == 0 ? "unchanged" : Fmt.phys(bits) }
}
