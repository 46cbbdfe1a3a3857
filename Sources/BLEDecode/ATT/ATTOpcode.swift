import BLECore

/// An ATT opcode (Core v5.4 Vol 3 Part F 3.3.1, 3.4.8).
///
/// Wire layout: one octet; bits 0-5 are the method, bit 6 the command flag, bit 7 the
/// authentication signature flag. An open set: opcodes nobody has named keep their value
/// and print as `Unknown (0xNN)`.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// Every opcode Core v5.4 assigns, in numeric order.
    public static let allAssigned: [ATTOpcode] = [
        .errorResponse, .exchangeMTURequest, .exchangeMTUResponse,
        .findInformationRequest, .findInformationResponse,
        .findByTypeValueRequest, .findByTypeValueResponse,
        .readByTypeRequest, .readByTypeResponse, .readRequest, .readResponse,
        .readBlobRequest, .readBlobResponse, .readMultipleRequest, .readMultipleResponse,
        .readByGroupTypeRequest, .readByGroupTypeResponse, .writeRequest, .writeResponse,
        .prepareWriteRequest, .prepareWriteResponse, .executeWriteRequest, .executeWriteResponse,
        .handleValueNotification, .handleValueIndication, .handleValueConfirmation,
        .readMultipleVariableRequest, .readMultipleVariableResponse,
        .multipleHandleValueNotification, .writeCommand, .signedWriteCommand,
    ]

    /// The name as Wireshark spells it; nil when the opcode is not assigned.
    public var specName: String? {
        switch rawValue {
        case 0x01: "Error Response"
        case 0x02: "Exchange MTU Request"
        case 0x03: "Exchange MTU Response"
        case 0x04: "Find Information Request"
        case 0x05: "Find Information Response"
        case 0x06: "Find By Type Value Request"
        case 0x07: "Find By Type Value Response"
        case 0x08: "Read By Type Request"
        case 0x09: "Read By Type Response"
        case 0x0A: "Read Request"
        case 0x0B: "Read Response"
        case 0x0C: "Read Blob Request"
        case 0x0D: "Read Blob Response"
        case 0x0E: "Read Multiple Request"
        case 0x0F: "Read Multiple Response"
        case 0x10: "Read By Group Type Request"
        case 0x11: "Read By Group Type Response"
        case 0x12: "Write Request"
        case 0x13: "Write Response"
        case 0x16: "Prepare Write Request"
        case 0x17: "Prepare Write Response"
        case 0x18: "Execute Write Request"
        case 0x19: "Execute Write Response"
        case 0x1B: "Handle Value Notification"
        case 0x1D: "Handle Value Indication"
        case 0x1E: "Handle Value Confirmation"
        case 0x20: "Read Multiple Variable Request"
        case 0x21: "Read Multiple Variable Response"
        case 0x23: "Multiple Handle Value Notification"
        case 0x52: "Write Command"
        case 0xD2: "Signed Write Command"
        default: nil
        }
    }

    /// The name as Wireshark spells it, or `Unknown (0xNN)`.
    public var name: String { specName ?? "Unknown (\(hex(rawValue)))" }
    public var description: String { "\(hex(rawValue)) \(name)" }

    /// Bits 0-5: the method (Core v5.4 Vol 3 Part F 3.3.1).
    public var method: UInt8 { rawValue & 0x3F }
    /// Bit 6: the PDU is a command (no response follows).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-octet authentication signature ends the PDU.
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// How a PDU takes part in the protocol (Core v5.4 Vol 3 Part F 3.3).
    public enum Kind: String, Sendable, CaseIterable {
        case request, response, command, notification, indication, confirmation, unknown
    }

    /// The PDU's role: request, response, command, notification, indication, confirmation,
    /// or unknown for unassigned opcodes. An Error Response is a response.
    public var kind: Kind {
        switch rawValue {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: .request
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: .response
        case 0x52, 0xD2: .command
        case 0x1B, 0x23: .notification
        case 0x1D: .indication
        case 0x1E: .confirmation
        default: .unknown
        }
    }

    /// For a request, the opcode of its success response; for an indication, the confirmation.
    /// Nil otherwise. (Any request may also be answered by an Error Response.)
    public var responseOpcode: ATTOpcode? {
        switch kind {
        case .request: ATTOpcode(rawValue + 1)
        case .indication: .handleValueConfirmation
        default: nil
        }
    }

    /// For a success response, the opcode of the request it answers; for a confirmation, the
    /// indication. Nil otherwise, including for an Error Response (its request opcode is in
    /// the PDU: `ATTErrorResponse.requestOpcode`).
    public var requestOpcode: ATTOpcode? {
        switch kind {
        case .response where self != .errorResponse: ATTOpcode(rawValue - 1)
        case .confirmation: .handleValueIndication
        default: nil
        }
    }
}
