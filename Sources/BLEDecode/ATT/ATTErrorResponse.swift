import BLECore

/// Error Response: a request could not be performed (Core v5.4 Vol 3 Part F 3.4.1.1).
///
/// Wire layout: `01 | request opcode (1) | attribute handle in error (2, LE) | error code (1)`.
public struct ATTErrorResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.errorResponse
    /// The opcode of the request that failed.
    public var requestOpcode: ATTOpcode
    /// The handle that caused the error; 0x0000 when no handle applies.
    public var attributeHandle: UInt16
    public var errorCode: ATTErrorCode

    public init(requestOpcode: ATTOpcode, attributeHandle: UInt16, errorCode: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.attributeHandle = attributeHandle
        self.errorCode = errorCode
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        requestOpcode = ATTOpcode(try r.readUInt8("Request Opcode in Error"))
        attributeHandle = try r.readUInt16(.little, "Handle in Error")
        errorCode = ATTErrorCode(try r.readUInt8("Error Code"))
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(requestOpcode.rawValue)
        bytes.append(le16: attributeHandle)
        bytes.append(errorCode.rawValue)
    }

    public var fields: [(String, String)] {
        [("Request Opcode in Error", requestOpcode.description),
         ("Handle in Error", handleString(attributeHandle)),
         ("Error Code", errorCode.description)]
    }

    /// `Error Response - Attribute Not Found, Handle: 0x0001 (Read By Group Type Request)`.
    public var summary: String {
        "\(Self.opcode.name) - \(errorCode.name), Handle: \(handleString(attributeHandle)) (\(requestOpcode.name))"
    }
}
