import BLECore

/// The opcode of an LL Control PDU (Core v5.4 Vol 6 Part B 2.4.2, Table 2.18).
///
/// Open: opcodes Core v5.4 does not assign keep their value and print as
/// `Unknown LL control opcode 0xNN`. Names are the spec's; Wireshark 4.0 calls 0x0E
/// LL_SLAVE_FEATURE_REQ, the name before Core v5.3.
public struct LLControlOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

    public static let connectionUpdateInd = LLControlOpcode(0x00)
    public static let channelMapInd = LLControlOpcode(0x01)
    public static let terminateInd = LLControlOpcode(0x02)
    public static let encReq = LLControlOpcode(0x03)
    public static let encRsp = LLControlOpcode(0x04)
    public static let startEncReq = LLControlOpcode(0x05)
    public static let startEncRsp = LLControlOpcode(0x06)
    public static let unknownRsp = LLControlOpcode(0x07)
    public static let featureReq = LLControlOpcode(0x08)
    public static let featureRsp = LLControlOpcode(0x09)
    public static let pauseEncReq = LLControlOpcode(0x0A)
    public static let pauseEncRsp = LLControlOpcode(0x0B)
    public static let versionInd = LLControlOpcode(0x0C)
    public static let rejectInd = LLControlOpcode(0x0D)
    public static let peripheralFeatureReq = LLControlOpcode(0x0E)
    public static let connectionParamReq = LLControlOpcode(0x0F)
    public static let connectionParamRsp = LLControlOpcode(0x10)
    public static let rejectExtInd = LLControlOpcode(0x11)
    public static let pingReq = LLControlOpcode(0x12)
    public static let pingRsp = LLControlOpcode(0x13)
    public static let lengthReq = LLControlOpcode(0x14)
    public static let lengthRsp = LLControlOpcode(0x15)
    public static let phyReq = LLControlOpcode(0x16)
    public static let phyRsp = LLControlOpcode(0x17)
    public static let phyUpdateInd = LLControlOpcode(0x18)
    public static let minUsedChannelsInd = LLControlOpcode(0x19)
    public static let clockAccuracyReq = LLControlOpcode(0x1D)
    public static let clockAccuracyRsp = LLControlOpcode(0x1E)

    /// Spec names of 0x00-0x29, in opcode order.
    private static let names: [String] = [
        "LL_CONNECTION_UPDATE_IND", "LL_CHANNEL_MAP_IND", "LL_TERMINATE_IND", "LL_ENC_REQ", "LL_ENC_RSP",
        "LL_START_ENC_REQ", "LL_START_ENC_RSP", "LL_UNKNOWN_RSP", "LL_FEATURE_REQ", "LL_FEATURE_RSP",
        "LL_PAUSE_ENC_REQ", "LL_PAUSE_ENC_RSP", "LL_VERSION_IND", "LL_REJECT_IND", "LL_PERIPHERAL_FEATURE_REQ",
        "LL_CONNECTION_PARAM_REQ", "LL_CONNECTION_PARAM_RSP", "LL_REJECT_EXT_IND", "LL_PING_REQ", "LL_PING_RSP",
        "LL_LENGTH_REQ", "LL_LENGTH_RSP", "LL_PHY_REQ", "LL_PHY_RSP", "LL_PHY_UPDATE_IND",
        "LL_MIN_USED_CHANNELS_IND", "LL_CTE_REQ", "LL_CTE_RSP", "LL_PERIODIC_SYNC_IND", "LL_CLOCK_ACCURACY_REQ",
        "LL_CLOCK_ACCURACY_RSP", "LL_CIS_REQ", "LL_CIS_RSP", "LL_CIS_IND", "LL_CIS_TERMINATE_IND",
        "LL_POWER_CONTROL_REQ", "LL_POWER_CONTROL_RSP", "LL_POWER_CHANGE_IND", "LL_SUBRATE_REQ", "LL_SUBRATE_IND",
        "LL_CHANNEL_REPORTING_IND", "LL_CHANNEL_STATUS_IND",
    ]

    /// CtrData length of each assigned opcode, in opcode order (Vol 6 Part B 2.4.2.1-2.4.2.42).
    private static let parameterLengths: [Int] = [
        11, 7, 1, 22, 12, 0, 0, 1, 8, 8,
        0, 0, 5, 1, 8, 23, 23, 2, 0, 0,
        8, 8, 2, 2, 4, 2, 1, 0, 34, 1,
        1, 35, 8, 15, 3, 3, 4, 4, 10, 10,
        3, 10,
    ]

    /// True when Core v5.4 assigns the opcode.
    public var isAssigned: Bool { Int(rawValue) < Self.names.count }

    /// `LL_VERSION_IND`, or `Unknown LL control opcode 0xNN`.
    public var name: String {
        isAssigned ? Self.names[Int(rawValue)] : "Unknown LL control opcode " + Fmt.h2(rawValue)
    }

    /// The CtrData length the spec fixes for this opcode; nil when unassigned.
    public var parameterLength: Int? { isAssigned ? Self.parameterLengths[Int(rawValue)] : nil }

    public var description: String { "\(name) (\(Fmt.h2(rawValue)))" }
}
