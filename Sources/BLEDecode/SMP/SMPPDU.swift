import BLECore

// STUB: replaced by the SMP work. Public API contract below must stay.

/// An SMP command code (Core v5.4 Vol 3 Part H 3.3).
public struct SMPCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var name: String { "SMP " + hex(rawValue) }
}

public enum SMPPDU: Sendable {
    case unknown(code: SMPCode, parameters: [UInt8])
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .smp)
        let c = try r.readUInt8("SMP code")
        self = .unknown(code: SMPCode(rawValue: c), parameters: Array(r.readRemaining()))
    }
    public var code: SMPCode { switch self { case .unknown(let c, _): c } }
    /// For Pairing Failed: the reason.
    public var failureReason: SMPPairingFailedReason? { nil }
    /// One line; key material shown only when `keepKeys`.
    public func summary(keepKeys: Bool) -> String { code.name }
    public func encoded() -> [UInt8] { switch self { case .unknown(let c, let p): [c.rawValue] + p } }
}
