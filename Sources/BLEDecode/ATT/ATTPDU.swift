import BLECore

/// An ATT PDU: the opcode and its decoded parameters (Core v5.4 Vol 3 Part F 3.4).
///
/// Wire layout: `opcode (1) | parameters`; a signed write ends with a 12-byte signature.
/// One case per assigned opcode, each wrapping a small struct; `unknown` keeps every other
/// opcode with its raw parameters. `encoded()` is the exact inverse of `init(decoding:)`.
public enum ATTPDU: Sendable, Hashable {
    case errorResponse(ATTErrorResponse)
    case exchangeMTURequest(ATTExchangeMTURequest)
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    case findInformationRequest(ATTFindInformationRequest)
    case findInformationResponse(ATTFindInformationResponse)
    case findByTypeValueRequest(ATTFindByTypeValueRequest)
    case findByTypeValueResponse(ATTFindByTypeValueResponse)
    case readByTypeRequest(ATTReadByTypeRequest)
    case readByTypeResponse(ATTReadByTypeResponse)
    case readRequest(ATTReadRequest)
    case readResponse(ATTReadResponse)
    case readBlobRequest(ATTReadBlobRequest)
    case readBlobResponse(ATTReadBlobResponse)
    case readMultipleRequest(ATTReadMultipleRequest)
    case readMultipleResponse(ATTReadMultipleResponse)
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    case writeRequest(ATTWriteRequest)
    case writeResponse(ATTWriteResponse)
    case writeCommand(ATTWriteCommand)
    case prepareWriteRequest(ATTPrepareWriteRequest)
    case prepareWriteResponse(ATTPrepareWriteResponse)
    case executeWriteRequest(ATTExecuteWriteRequest)
    case executeWriteResponse(ATTExecuteWriteResponse)
    case handleValueNotification(ATTHandleValueNotification)
    case handleValueIndication(ATTHandleValueIndication)
    case handleValueConfirmation(ATTHandleValueConfirmation)
    case readMultipleVariableRequest(ATTReadMultipleVariableRequest)
    case readMultipleVariableResponse(ATTReadMultipleVariableResponse)
    case multipleHandleValueNotification(ATTMultipleHandleValueNotification)
    case signedWriteCommand(ATTSignedWriteCommand)
    /// An opcode Core v5.4 does not assign, with everything after it.
    case unknown(opcode: ATTOpcode, parameters: [UInt8])

    /// Decodes a whole PDU (opcode first). Offsets in errors are `baseOffset` + position.
    ///
    /// Throws `.truncated` when a field or a required list entry is missing or cut, and
    /// `.malformed` for bad length or format fields and for bytes left over after a
    /// fixed-size PDU.
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .att)
        let op = ATTOpcode(try r.readUInt8("ATT opcode"))
        switch op {
        case .errorResponse: self = .errorResponse(try ATTErrorResponse(parameters: &r))
        case .exchangeMTURequest: self = .exchangeMTURequest(try ATTExchangeMTURequest(parameters: &r))
        case .exchangeMTUResponse: self = .exchangeMTUResponse(try ATTExchangeMTUResponse(parameters: &r))
        case .findInformationRequest: self = .findInformationRequest(try ATTFindInformationRequest(parameters: &r))
        case .findInformationResponse: self = .findInformationResponse(try ATTFindInformationResponse(parameters: &r))
        case .findByTypeValueRequest: self = .findByTypeValueRequest(try ATTFindByTypeValueRequest(parameters: &r))
        case .findByTypeValueResponse: self = .findByTypeValueResponse(try ATTFindByTypeValueResponse(parameters: &r))
        case .readByTypeRequest: self = .readByTypeRequest(try ATTReadByTypeRequest(parameters: &r))
        case .readByTypeResponse: self = .readByTypeResponse(try ATTReadByTypeResponse(parameters: &r))
        case .readRequest: self = .readRequest(try ATTReadRequest(parameters: &r))
        case .readResponse: self = .readResponse(try ATTReadResponse(parameters: &r))
        case .readBlobRequest: self = .readBlobRequest(try ATTReadBlobRequest(parameters: &r))
        case .readBlobResponse: self = .readBlobResponse(try ATTReadBlobResponse(parameters: &r))
        case .readMultipleRequest: self = .readMultipleRequest(try ATTReadMultipleRequest(parameters: &r))
        case .readMultipleResponse: self = .readMultipleResponse(try ATTReadMultipleResponse(parameters: &r))
        case .readByGroupTypeRequest: self = .readByGroupTypeRequest(try ATTReadByGroupTypeRequest(parameters: &r))
        case .readByGroupTypeResponse: self = .readByGroupTypeResponse(try ATTReadByGroupTypeResponse(parameters: &r))
        case .writeRequest: self = .writeRequest(try ATTWriteRequest(parameters: &r))
        case .writeResponse: self = .writeResponse(try ATTWriteResponse(parameters: &r))
        case .writeCommand: self = .writeCommand(try ATTWriteCommand(parameters: &r))
        case .prepareWriteRequest: self = .prepareWriteRequest(try ATTPrepareWriteRequest(parameters: &r))
        case .prepareWriteResponse: self = .prepareWriteResponse(try ATTPrepareWriteResponse(parameters: &r))
        case .executeWriteRequest: self = .executeWriteRequest(try ATTExecuteWriteRequest(parameters: &r))
        case .executeWriteResponse: self = .executeWriteResponse(try ATTExecuteWriteResponse(parameters: &r))
        case .handleValueNotification: self = .handleValueNotification(try ATTHandleValueNotification(parameters: &r))
        case .handleValueIndication: self = .handleValueIndication(try ATTHandleValueIndication(parameters: &r))
        case .handleValueConfirmation: self = .handleValueConfirmation(try ATTHandleValueConfirmation(parameters: &r))
        case .readMultipleVariableRequest:
            self = .readMultipleVariableRequest(try ATTReadMultipleVariableRequest(parameters: &r))
        case .readMultipleVariableResponse:
            self = .readMultipleVariableResponse(try ATTReadMultipleVariableResponse(parameters: &r))
        case .multipleHandleValueNotification:
            self = .multipleHandleValueNotification(try ATTMultipleHandleValueNotification(parameters: &r))
        case .signedWriteCommand: self = .signedWriteCommand(try ATTSignedWriteCommand(parameters: &r))
        default: self = .unknown(opcode: op, parameters: Array(r.readRemaining()))
        }
        try r.expectEnd(op.name)
    }

    /// The decoded parameters of a known PDU; nil for `unknown`.
    public var body: (any ATTPDUBody)? {
        switch self {
        case .errorResponse(let p): p
        case .exchangeMTURequest(let p): p
        case .exchangeMTUResponse(let p): p
        case .findInformationRequest(let p): p
        case .findInformationResponse(let p): p
        case .findByTypeValueRequest(let p): p
        case .findByTypeValueResponse(let p): p
        case .readByTypeRequest(let p): p
        case .readByTypeResponse(let p): p
        case .readRequest(let p): p
        case .readResponse(let p): p
        case .readBlobRequest(let p): p
        case .readBlobResponse(let p): p
        case .readMultipleRequest(let p): p
        case .readMultipleResponse(let p): p
        case .readByGroupTypeRequest(let p): p
        case .readByGroupTypeResponse(let p): p
        case .writeRequest(let p): p
        case .writeResponse(let p): p
        case .writeCommand(let p): p
        case .prepareWriteRequest(let p): p
        case .prepareWriteResponse(let p): p
        case .executeWriteRequest(let p): p
        case .executeWriteResponse(let p): p
        case .handleValueNotification(let p): p
        case .handleValueIndication(let p): p
        case .handleValueConfirmation(let p): p
        case .readMultipleVariableRequest(let p): p
        case .readMultipleVariableResponse(let p): p
        case .multipleHandleValueNotification(let p): p
        case .signedWriteCommand(let p): p
        case .unknown: nil
        }
    }

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .findByTypeValueRequest: .findByTypeValueRequest
        case .findByTypeValueResponse: .findByTypeValueResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readMultipleRequest: .readMultipleRequest
        case .readMultipleResponse: .readMultipleResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .prepareWriteRequest: .prepareWriteRequest
        case .prepareWriteResponse: .prepareWriteResponse
        case .executeWriteRequest: .executeWriteRequest
        case .executeWriteResponse: .executeWriteResponse
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .readMultipleVariableRequest: .readMultipleVariableRequest
        case .readMultipleVariableResponse: .readMultipleVariableResponse
        case .multipleHandleValueNotification: .multipleHandleValueNotification
        case .signedWriteCommand: .signedWriteCommand
        case .unknown(let op, _): op
        }
    }

    /// The handle the PDU is about: for an Error Response the handle in error; for a range
    /// request the starting handle; for a handle list or a list response the first handle.
    /// Nil for PDUs that carry no handle.
    public var attributeHandle: UInt16? {
        switch self {
        case .errorResponse(let p): p.attributeHandle
        case .findInformationRequest(let p): p.startingHandle
        case .findInformationResponse(let p): p.information.first?.handle
        case .findByTypeValueRequest(let p): p.startingHandle
        case .findByTypeValueResponse(let p): p.handlesInformation.first?.foundAttributeHandle
        case .readByTypeRequest(let p): p.startingHandle
        case .readByTypeResponse(let p): p.attributeDataList.first?.handle
        case .readRequest(let p): p.attributeHandle
        case .readBlobRequest(let p): p.attributeHandle
        case .readMultipleRequest(let p): p.setOfHandles.first
        case .readByGroupTypeRequest(let p): p.startingHandle
        case .readByGroupTypeResponse(let p): p.attributeDataList.first?.handle
        case .writeRequest(let p): p.attributeHandle
        case .writeCommand(let p): p.attributeHandle
        case .prepareWriteRequest(let p): p.attributeHandle
        case .prepareWriteResponse(let p): p.attributeHandle
        case .handleValueNotification(let p): p.attributeHandle
        case .handleValueIndication(let p): p.attributeHandle
        case .readMultipleVariableRequest(let p): p.setOfHandles.first
        case .multipleHandleValueNotification(let p): p.handleValueTuples.first?.attributeHandle
        case .signedWriteCommand(let p): p.attributeHandle
        case .exchangeMTURequest, .exchangeMTUResponse, .readResponse, .readBlobResponse,
             .readMultipleResponse, .writeResponse, .executeWriteRequest, .executeWriteResponse,
             .handleValueConfirmation, .readMultipleVariableResponse, .unknown: nil
        }
    }

    /// For an Error Response: the error code.
    public var errorCode: ATTErrorCode? {
        if case .errorResponse(let p) = self { return p.errorCode }
        return nil
    }

    /// The attribute value carried: read and blob responses, Read Multiple Response (the
    /// values concatenated), writes (without a signature), prepared parts, notifications and
    /// indications. Nil for the list PDUs and PDUs that carry no value.
    public var value: [UInt8]? {
        switch self {
        case .readResponse(let p): p.attributeValue
        case .readBlobResponse(let p): p.partAttributeValue
        case .readMultipleResponse(let p): p.setOfValues
        case .writeRequest(let p): p.attributeValue
        case .writeCommand(let p): p.attributeValue
        case .signedWriteCommand(let p): p.attributeValue
        case .prepareWriteRequest(let p): p.partAttributeValue
        case .prepareWriteResponse(let p): p.partAttributeValue
        case .handleValueNotification(let p): p.attributeValue
        case .handleValueIndication(let p): p.attributeValue
        default: nil
        }
    }

    /// One line, as Wireshark's Info column shows it without the GATT context, e.g.
    /// `Write Request, Handle: 0x0021`.
    public var summary: String {
        if case .unknown(let op, let parameters) = self {
            return parameters.isEmpty ? op.name : "\(op.name), Parameters: \(shortHex(parameters))"
        }
        return body?.summary ?? opcode.name
    }

    /// Decoded fields, name -> value, in wire order, starting with the opcode.
    public var fields: [(String, String)] {
        let head = [("Opcode", opcode.description)]
        if case .unknown(_, let parameters) = self { return head + [("Parameters", hexString(parameters))] }
        return head + (body?.fields ?? [])
    }

    /// The PDU's bytes: opcode, then parameters. `ATTPDU(decoding: pdu.encoded()[...]) == pdu`.
    public func encoded() -> [UInt8] {
        if case .unknown(let op, let parameters) = self { return [op.rawValue] + parameters }
        return body?.encoded() ?? []
    }
}
