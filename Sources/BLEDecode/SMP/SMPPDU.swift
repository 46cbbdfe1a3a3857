import BLECore

/// An SMP PDU: the command code and its decoded parameters (Core v5.4 Vol 3 Part H 3.3-3.6).
///
/// Wire layout: `code (1) | parameters` on L2CAP CID 0x0006. Every assigned command has a
/// fixed size; `unknown` keeps other codes with their raw parameters. `encoded()` is the exact
/// inverse of `init(decoding:)`. Key material is redacted in `summary` and `fields` unless
/// `keepKeys`.
public enum SMPPDU: Sendable, Hashable {
    case pairingRequest(SMPPairingFeatures)
    case pairingResponse(SMPPairingFeatures)
    case pairingConfirm(SMPPairingConfirm)
    case pairingRandom(SMPPairingRandom)
    case pairingFailed(SMPPairingFailed)
    case encryptionInformation(SMPEncryptionInformation)
    case centralIdentification(SMPCentralIdentification)
    case identityInformation(SMPIdentityInformation)
    case identityAddressInformation(SMPIdentityAddressInformation)
    case signingInformation(SMPSigningInformation)
    case securityRequest(SMPSecurityRequest)
    case pairingPublicKey(SMPPairingPublicKey)
    case pairingDHKeyCheck(SMPPairingDHKeyCheck)
    case pairingKeypressNotification(SMPPairingKeypressNotification)
    /// A code Core v5.4 does not assign, with everything after it.
    case unknown(code: SMPCode, parameters: [UInt8])

    /// Decodes a whole PDU (code first). Offsets in errors are `baseOffset` + position.
    /// Throws `.truncated` when the PDU is short and `.malformed` when bytes are left over.
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .smp)
        let code = SMPCode(try r.readUInt8("SMP code"))
        switch code {
        case .pairingRequest: self = .pairingRequest(try SMPPairingFeatures(parameters: &r))
        case .pairingResponse: self = .pairingResponse(try SMPPairingFeatures(parameters: &r))
        case .pairingConfirm: self = .pairingConfirm(try SMPPairingConfirm(parameters: &r))
        case .pairingRandom: self = .pairingRandom(try SMPPairingRandom(parameters: &r))
        case .pairingFailed: self = .pairingFailed(try SMPPairingFailed(parameters: &r))
        case .encryptionInformation: self = .encryptionInformation(try SMPEncryptionInformation(parameters: &r))
        case .centralIdentification: self = .centralIdentification(try SMPCentralIdentification(parameters: &r))
        case .identityInformation: self = .identityInformation(try SMPIdentityInformation(parameters: &r))
        case .identityAddressInformation:
            self = .identityAddressInformation(try SMPIdentityAddressInformation(parameters: &r))
        case .signingInformation: self = .signingInformation(try SMPSigningInformation(parameters: &r))
        case .securityRequest: self = .securityRequest(try SMPSecurityRequest(parameters: &r))
        case .pairingPublicKey: self = .pairingPublicKey(try SMPPairingPublicKey(parameters: &r))
        case .pairingDHKeyCheck: self = .pairingDHKeyCheck(try SMPPairingDHKeyCheck(parameters: &r))
        case .pairingKeypressNotification:
            self = .pairingKeypressNotification(try SMPPairingKeypressNotification(parameters: &r))
        default: self = .unknown(code: code, parameters: Array(r.readRemaining()))
        }
        try r.expectEnd(code.name)
    }

    /// The decoded parameters of a command with a fixed code; nil for the pairing
    /// request/response (see `pairingFeatures`) and for `unknown`.
    public var body: (any SMPPDUBody)? {
        switch self {
        case .pairingConfirm(let p): p
        case .pairingRandom(let p): p
        case .pairingFailed(let p): p
        case .encryptionInformation(let p): p
        case .centralIdentification(let p): p
        case .identityInformation(let p): p
        case .identityAddressInformation(let p): p
        case .signingInformation(let p): p
        case .securityRequest(let p): p
        case .pairingPublicKey(let p): p
        case .pairingDHKeyCheck(let p): p
        case .pairingKeypressNotification(let p): p
        case .pairingRequest, .pairingResponse, .unknown: nil
        }
    }

    public var code: SMPCode {
        switch self {
        case .pairingRequest: .pairingRequest
        case .pairingResponse: .pairingResponse
        case .pairingConfirm: .pairingConfirm
        case .pairingRandom: .pairingRandom
        case .pairingFailed: .pairingFailed
        case .encryptionInformation: .encryptionInformation
        case .centralIdentification: .centralIdentification
        case .identityInformation: .identityInformation
        case .identityAddressInformation: .identityAddressInformation
        case .signingInformation: .signingInformation
        case .securityRequest: .securityRequest
        case .pairingPublicKey: .pairingPublicKey
        case .pairingDHKeyCheck: .pairingDHKeyCheck
        case .pairingKeypressNotification: .pairingKeypressNotification
        case .unknown(let code, _): code
        }
    }

    /// For a Pairing Request or Response: the features.
    public var pairingFeatures: SMPPairingFeatures? {
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f): f
        default: nil
        }
    }

    /// For Pairing Failed: the reason.
    public var failureReason: SMPPairingFailedReason? {
        if case .pairingFailed(let p) = self { return p.reason }
        return nil
    }

    /// One line; key material shown only when `keepKeys`, e.g. `Pairing Failed: Confirm Value
    /// Failed`, `Encryption Information: LTK: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f): "\(code.name): \(f.summaryDetail)"
        case .unknown(let code, let parameters):
            parameters.isEmpty ? code.name : "\(code.name): \(keepKeys ? hexString(parameters) : redacted(parameters.count))"
        default: body?.summary(keepKeys: keepKeys) ?? code.name
        }
    }

    /// Decoded fields, name -> value, in wire order, starting with the code. Key material (and
    /// the parameters of unknown codes) redacted unless `keepKeys`.
    public func fields(keepKeys: Bool) -> [(String, String)] {
        let head = [("Code", code.description)]
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f): return head + f.fields
        case .unknown(_, let parameters):
            return head + [("Parameters", keepKeys ? hexString(parameters) : keyText(parameters, keepKeys: false))]
        default: return head + (body?.fields(keepKeys: keepKeys) ?? [])
        }
    }

    /// The PDU's bytes: code, then parameters. `SMPPDU(decoding: pdu.encoded()[...]) == pdu`.
    public func encoded() -> [UInt8] {
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f):
            var out = [code.rawValue]
            f.appendParameters(to: &out)
            return out
        case .unknown(let code, let parameters): return [code.rawValue] + parameters
        default: return body?.encoded() ?? []
        }
    }

    /// The pairing method a Pairing Request and Pairing Response select, e.g.
    /// `LE Secure Connections, Numeric Comparison` (Core v5.4 Vol 3 Part H 2.3.5.1).
    public static func pairingMethod(request: SMPPairingFeatures, response: SMPPairingFeatures) -> String {
        SMPPairingMethod(request: request, response: response).description
    }

    /// The pairing method from two decoded PDUs; nil unless they are a Pairing Request and a
    /// Pairing Response.
    public static func pairingMethod(request: SMPPDU, response: SMPPDU) -> String? {
        guard case .pairingRequest(let q) = request, case .pairingResponse(let p) = response else { return nil }
        return pairingMethod(request: q, response: p)
    }
}
