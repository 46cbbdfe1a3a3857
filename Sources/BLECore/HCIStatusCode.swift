/// A controller error code, as in HCI status and disconnect-reason fields (Core v5.4 Vol 1 Part F 1.3).
///
/// An open set: values nobody has named yet keep their number and print as hex.
public struct HCIStatusCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

    public static let success = HCIStatusCode(rawValue: 0x00)
    public static let unknownHCICommand = HCIStatusCode(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIStatusCode(rawValue: 0x02)
    public static let hardwareFailure = HCIStatusCode(rawValue: 0x03)
    public static let pageTimeout = HCIStatusCode(rawValue: 0x04)
    public static let authenticationFailure = HCIStatusCode(rawValue: 0x05)
    public static let pINOrKeyMissing = HCIStatusCode(rawValue: 0x06)
    public static let memoryCapacityExceeded = HCIStatusCode(rawValue: 0x07)
    public static let connectionTimeout = HCIStatusCode(rawValue: 0x08)
    public static let connectionLimitExceeded = HCIStatusCode(rawValue: 0x09)
    public static let synchronousConnectionLimitToADeviceExceeded = HCIStatusCode(rawValue: 0x0A)
    public static let connectionAlreadyExists = HCIStatusCode(rawValue: 0x0B)
    public static let commandDisallowed = HCIStatusCode(rawValue: 0x0C)
    public static let connectionRejectedDueToLimitedResources = HCIStatusCode(rawValue: 0x0D)
    public static let connectionRejectedDueToSecurityReasons = HCIStatusCode(rawValue: 0x0E)
    public static let connectionRejectedDueToUnacceptableBDADDR = HCIStatusCode(rawValue: 0x0F)
    public static let connectionAcceptTimeoutExceeded = HCIStatusCode(rawValue: 0x10)
    public static let unsupportedFeatureOrParameterValue = HCIStatusCode(rawValue: 0x11)
    public static let invalidHCICommandParameters = HCIStatusCode(rawValue: 0x12)
    public static let remoteUserTerminatedConnection = HCIStatusCode(rawValue: 0x13)
    public static let remoteDeviceTerminatedConnectionDueToLowResources = HCIStatusCode(rawValue: 0x14)
    public static let remoteDeviceTerminatedConnectionDueToPowerOff = HCIStatusCode(rawValue: 0x15)
    public static let connectionTerminatedByLocalHost = HCIStatusCode(rawValue: 0x16)
    public static let repeatedAttempts = HCIStatusCode(rawValue: 0x17)
    public static let pairingNotAllowed = HCIStatusCode(rawValue: 0x18)
    public static let unknownLMPPDU = HCIStatusCode(rawValue: 0x19)
    public static let unsupportedRemoteFeature = HCIStatusCode(rawValue: 0x1A)
    public static let sCOOffsetRejected = HCIStatusCode(rawValue: 0x1B)
    public static let sCOIntervalRejected = HCIStatusCode(rawValue: 0x1C)
    public static let sCOAirModeRejected = HCIStatusCode(rawValue: 0x1D)
    public static let invalidLMPParameters = HCIStatusCode(rawValue: 0x1E)
    public static let unspecifiedError = HCIStatusCode(rawValue: 0x1F)
    public static let unsupportedLMPParameterValue = HCIStatusCode(rawValue: 0x20)
    public static let roleChangeNotAllowed = HCIStatusCode(rawValue: 0x21)
    public static let lMPResponseTimeout = HCIStatusCode(rawValue: 0x22)
    public static let lMPErrorTransactionCollision = HCIStatusCode(rawValue: 0x23)
    public static let lMPPDUNotAllowed = HCIStatusCode(rawValue: 0x24)
    public static let encryptionModeNotAcceptable = HCIStatusCode(rawValue: 0x25)
    public static let linkKeyCannotBeChanged = HCIStatusCode(rawValue: 0x26)
    public static let requestedQoSNotSupported = HCIStatusCode(rawValue: 0x27)
    public static let instantPassed = HCIStatusCode(rawValue: 0x28)
    public static let pairingWithUnitKeyNotSupported = HCIStatusCode(rawValue: 0x29)
    public static let differentTransactionCollision = HCIStatusCode(rawValue: 0x2A)
    public static let qoSUnacceptableParameter = HCIStatusCode(rawValue: 0x2C)
    public static let qoSRejected = HCIStatusCode(rawValue: 0x2D)
    public static let channelClassificationNotSupported = HCIStatusCode(rawValue: 0x2E)
    public static let insufficientSecurity = HCIStatusCode(rawValue: 0x2F)
    public static let parameterOutOfMandatoryRange = HCIStatusCode(rawValue: 0x30)
    public static let roleSwitchPending = HCIStatusCode(rawValue: 0x32)
    public static let reservedSlotViolation = HCIStatusCode(rawValue: 0x34)
    public static let roleSwitchFailed = HCIStatusCode(rawValue: 0x35)
    public static let extendedInquiryResponseTooLarge = HCIStatusCode(rawValue: 0x36)
    public static let secureSimplePairingNotSupportedByHost = HCIStatusCode(rawValue: 0x37)
    public static let hostBusyPairing = HCIStatusCode(rawValue: 0x38)
    public static let connectionRejectedDueToNoSuitableChannelFound = HCIStatusCode(rawValue: 0x39)
    public static let controllerBusy = HCIStatusCode(rawValue: 0x3A)
    public static let unacceptableConnectionParameters = HCIStatusCode(rawValue: 0x3B)
    public static let advertisingTimeout = HCIStatusCode(rawValue: 0x3C)
    public static let connectionTerminatedDueToMICFailure = HCIStatusCode(rawValue: 0x3D)
    public static let connectionFailedToBeEstablished = HCIStatusCode(rawValue: 0x3E)
    public static let mACConnectionFailed = HCIStatusCode(rawValue: 0x3F)
    public static let coarseClockAdjustmentRejectedButWillTryToAdjustUsingClockDragging = HCIStatusCode(rawValue: 0x40)
    public static let type0SubmapNotDefined = HCIStatusCode(rawValue: 0x41)
    public static let unknownAdvertisingIdentifier = HCIStatusCode(rawValue: 0x42)
    public static let limitReached = HCIStatusCode(rawValue: 0x43)
    public static let operationCancelledByHost = HCIStatusCode(rawValue: 0x44)
    public static let packetTooLong = HCIStatusCode(rawValue: 0x45)
    public static let tooLate = HCIStatusCode(rawValue: 0x46)
    public static let tooEarly = HCIStatusCode(rawValue: 0x47)

    /// The spec's name; nil when the value is not defined.
    public var specName: String? {
        switch rawValue {
        case 0x00: "Success"
        case 0x01: "Unknown HCI Command"
        case 0x02: "Unknown Connection Identifier"
        case 0x03: "Hardware Failure"
        case 0x04: "Page Timeout"
        case 0x05: "Authentication Failure"
        case 0x06: "PIN or Key Missing"
        case 0x07: "Memory Capacity Exceeded"
        case 0x08: "Connection Timeout"
        case 0x09: "Connection Limit Exceeded"
        case 0x0A: "Synchronous Connection Limit To A Device Exceeded"
        case 0x0B: "Connection Already Exists"
        case 0x0C: "Command Disallowed"
        case 0x0D: "Connection Rejected due to Limited Resources"
        case 0x0E: "Connection Rejected Due To Security Reasons"
        case 0x0F: "Connection Rejected due to Unacceptable BD_ADDR"
        case 0x10: "Connection Accept Timeout Exceeded"
        case 0x11: "Unsupported Feature or Parameter Value"
        case 0x12: "Invalid HCI Command Parameters"
        case 0x13: "Remote User Terminated Connection"
        case 0x14: "Remote Device Terminated Connection due to Low Resources"
        case 0x15: "Remote Device Terminated Connection due to Power Off"
        case 0x16: "Connection Terminated By Local Host"
        case 0x17: "Repeated Attempts"
        case 0x18: "Pairing Not Allowed"
        case 0x19: "Unknown LMP PDU"
        case 0x1A: "Unsupported Remote Feature"
        case 0x1B: "SCO Offset Rejected"
        case 0x1C: "SCO Interval Rejected"
        case 0x1D: "SCO Air Mode Rejected"
        case 0x1E: "Invalid LMP Parameters / Invalid LL Parameters"
        case 0x1F: "Unspecified Error"
        case 0x20: "Unsupported LMP Parameter Value / Unsupported LL Parameter Value"
        case 0x21: "Role Change Not Allowed"
        case 0x22: "LMP Response Timeout / LL Response Timeout"
        case 0x23: "LMP Error Transaction Collision / LL Procedure Collision"
        case 0x24: "LMP PDU Not Allowed"
        case 0x25: "Encryption Mode Not Acceptable"
        case 0x26: "Link Key cannot be Changed"
        case 0x27: "Requested QoS Not Supported"
        case 0x28: "Instant Passed"
        case 0x29: "Pairing With Unit Key Not Supported"
        case 0x2A: "Different Transaction Collision"
        case 0x2C: "QoS Unacceptable Parameter"
        case 0x2D: "QoS Rejected"
        case 0x2E: "Channel Classification Not Supported"
        case 0x2F: "Insufficient Security"
        case 0x30: "Parameter Out Of Mandatory Range"
        case 0x32: "Role Switch Pending"
        case 0x34: "Reserved Slot Violation"
        case 0x35: "Role Switch Failed"
        case 0x36: "Extended Inquiry Response Too Large"
        case 0x37: "Secure Simple Pairing Not Supported By Host"
        case 0x38: "Host Busy - Pairing"
        case 0x39: "Connection Rejected due to No Suitable Channel Found"
        case 0x3A: "Controller Busy"
        case 0x3B: "Unacceptable Connection Parameters"
        case 0x3C: "Advertising Timeout"
        case 0x3D: "Connection Terminated due to MIC Failure"
        case 0x3E: "Connection Failed to be Established"
        case 0x3F: "MAC Connection Failed"
        case 0x40: "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging"
        case 0x41: "Type0 Submap Not Defined"
        case 0x42: "Unknown Advertising Identifier"
        case 0x43: "Limit Reached"
        case 0x44: "Operation Cancelled by Host"
        case 0x45: "Packet Too Long"
        case 0x46: "Too Late"
        case 0x47: "Too Early"
        default: nil
        }
    }

    /// The spec's name, or `Unknown (0xNN)`.
    public var name: String { specName ?? "Unknown (\(hex(rawValue)))" }
    public var description: String { "\(hex(rawValue)) \(name)" }
}
