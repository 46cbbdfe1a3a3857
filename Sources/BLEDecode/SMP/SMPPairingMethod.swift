import BLECore

/// The pairing method two devices' Pairing Request and Response select
/// (Core v5.4 Vol 3 Part H 2.3.5.1, Tables 2.6-2.8).
///
/// LE Secure Connections is used when both set the SC bit. Out of band is used when both set
/// the OOB flag (legacy) or either does (Secure Connections). Otherwise, when neither sets
/// MITM, Just Works; when one does, the IO capabilities decide (Table 2.8).
public struct SMPPairingMethod: Sendable, Hashable, CustomStringConvertible {
    /// The association model.
    public enum Association: String, Sendable, Hashable {
        case justWorks = "Just Works"
        case passkeyEntry = "Passkey Entry"
        case numericComparison = "Numeric Comparison"
        case outOfBand = "OOB"
    }

    /// Who types and who shows the passkey in Passkey Entry.
    public enum PasskeyRoles: String, Sendable, Hashable {
        case initiatorDisplaysResponderInputs = "initiator displays, responder inputs"
        case responderDisplaysInitiatorInputs = "responder displays, initiator inputs"
        case bothInput = "both input"
    }

    public var secureConnections: Bool
    public var association: Association
    /// Set for Passkey Entry only.
    public var passkeyRoles: PasskeyRoles?
    /// An IO capability was reserved (0x05-0xFF): the method shown is Just Works, as the spec
    /// gives no row for it, and this flag says the guess was made.
    public var usedReservedIOCapability: Bool

    public init(request: SMPPairingFeatures, response: SMPPairingFeatures) {
        let initiator = request, responder = response
        secureConnections = initiator.authenticationRequirements.contains(.secureConnections)
            && responder.authenticationRequirements.contains(.secureConnections)
        passkeyRoles = nil
        usedReservedIOCapability = false
        let oob = secureConnections
            ? (initiator.oobDataPresent || responder.oobDataPresent)
            : (initiator.oobDataPresent && responder.oobDataPresent)
        if oob {
            association = .outOfBand
            return
        }
        guard initiator.authenticationRequirements.contains(.mitm) || responder.authenticationRequirements.contains(.mitm) else {
            association = .justWorks
            return
        }
        let i = initiator.ioCapability.rawValue, r = responder.ioCapability.rawValue
        guard i <= 4, r <= 4 else {
            association = .justWorks
            usedReservedIOCapability = true
            return
        }
        (association, passkeyRoles) = Self.table(initiator: initiator.ioCapability, responder: responder.ioCapability,
                                                 secureConnections: secureConnections)
    }

    /// Core v5.4 Vol 3 Part H Table 2.8: rows the responder's capability, columns the initiator's.
    static func table(initiator: SMPIOCapability, responder: SMPIOCapability,
                      secureConnections sc: Bool) -> (Association, PasskeyRoles?) {
        let jw: (Association, PasskeyRoles?) = (.justWorks, nil)
        let nc: (Association, PasskeyRoles?) = (.numericComparison, nil)
        let iDisplays: (Association, PasskeyRoles?) = (.passkeyEntry, .initiatorDisplaysResponderInputs)
        let rDisplays: (Association, PasskeyRoles?) = (.passkeyEntry, .responderDisplaysInitiatorInputs)
        let bothInput: (Association, PasskeyRoles?) = (.passkeyEntry, .bothInput)
        if initiator == .noInputNoOutput || responder == .noInputNoOutput { return jw }
        switch (initiator, responder) {
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo),
             (.displayYesNo, .displayOnly):
            return jw
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay),
             (.displayYesNo, .keyboardOnly), (.keyboardDisplay, .keyboardOnly):
            return iDisplays
        case (.keyboardOnly, .displayOnly), (.keyboardOnly, .displayYesNo), (.keyboardOnly, .keyboardDisplay),
             (.keyboardDisplay, .displayOnly):
            return rDisplays
        case (.keyboardOnly, .keyboardOnly):
            return bothInput
        case (.displayYesNo, .displayYesNo):
            return sc ? nc : jw
        case (.displayYesNo, .keyboardDisplay), (.keyboardDisplay, .keyboardDisplay):
            return sc ? nc : iDisplays
        case (.keyboardDisplay, .displayYesNo):
            return sc ? nc : rDisplays
        default:
            return jw
        }
    }

    /// `LE Secure Connections, Numeric Comparison`, `LE Legacy, Passkey Entry (initiator displays,
    /// responder inputs)`, `LE Legacy, Just Works`.
    public var description: String {
        var s = (secureConnections ? "LE Secure Connections, " : "LE Legacy, ") + association.rawValue
        if let passkeyRoles { s += " (\(passkeyRoles.rawValue))" }
        if usedReservedIOCapability { s += " (reserved IO capability)" }
        return s
    }
}
