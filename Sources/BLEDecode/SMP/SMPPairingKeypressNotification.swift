import BLECore

/// Pairing Keypress Notification: progress of passkey entry (Core v5.4 Vol 3 Part H 3.5.8).
///
/// Wire layout: `0E | Notification Type (1)`.
public struct SMPPairingKeypressNotification: SMPPDUBody {
    public static let code = SMPCode.pairingKeypressNotification
    public var notificationType: SMPKeypressNotificationType

    public init(notificationType: SMPKeypressNotificationType) { self.notificationType = notificationType }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        notificationType = SMPKeypressNotificationType(try r.readUInt8("Notification Type"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(notificationType.rawValue) }

    public func fields(keepKeys: Bool) -> [(String, String)] {
        [("Notification Type", "\(hex(notificationType.rawValue)) \(notificationType.name)")]
    }

    /// `Pairing Keypress Notification: Passkey Digit Entered`.
    public func summary(keepKeys: Bool) -> String { "\(Self.code.name): \(notificationType.name)" }
}
