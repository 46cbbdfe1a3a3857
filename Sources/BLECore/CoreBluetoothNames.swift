/// CoreBluetooth's names for error codes, as Apple's `CBError.h` and `CBATTError` define them.
///
/// REFERENCE.md "CoreBluetooth `CBError.Code`": connectionTimeout is 6 and
/// operationNotSupported is 13 (articles in circulation get both wrong).
public enum CoreBluetoothNames {
    /// `CBError.Code` raw values and their case names.
    public static let cbError: [Int: String] = [
        0: "unknown", 1: "invalidParameters", 2: "invalidHandle", 3: "notConnected",
        4: "outOfSpace", 5: "operationCancelled", 6: "connectionTimeout",
        7: "peripheralDisconnected", 8: "uuidNotAllowed", 9: "alreadyAdvertising",
        10: "connectionFailed", 11: "connectionLimitReached", 12: "unknownDevice",
        13: "operationNotSupported", 14: "peerRemovedPairingInformation",
        15: "encryptionTimedOut", 16: "tooManyLEPairedDevices",
        17: "leGattExceededBackgroundNotificationLimit",
        18: "leGattNearBackgroundNotificationLimit",
    ]

    /// `CBATTError.Code` case names: the same numbers as ATT 0x00-0x11; Apple defines no
    /// case above 0x11.
    public static let cbATTError: [UInt8: String] = [
        0x00: "success", 0x01: "invalidHandle", 0x02: "readNotPermitted", 0x03: "writeNotPermitted",
        0x04: "invalidPdu", 0x05: "insufficientAuthentication", 0x06: "requestNotSupported",
        0x07: "invalidOffset", 0x08: "insufficientAuthorization", 0x09: "prepareQueueFull",
        0x0A: "attributeNotFound", 0x0B: "attributeNotLong", 0x0C: "insufficientEncryptionKeySize",
        0x0D: "invalidAttributeValueLength", 0x0E: "unlikelyError", 0x0F: "insufficientEncryption",
        0x10: "unsupportedGroupType", 0x11: "insufficientResources",
    ]

    /// `CBATTError.<name>` for an ATT error code, nil above 0x11.
    public static func attErrorName(_ code: ATTErrorCode) -> String? {
        cbATTError[code.rawValue].map { "CBATTError.\($0)" }
    }

    /// `CBError.<name>` for a raw CBError code.
    public static func errorName(_ code: Int) -> String? {
        cbError[code].map { "CBError.\($0)" }
    }
}

/// What a CoreBluetooth app sees when the link ends with an HCI reason.
///
/// Apple documents no mapping; this is the heuristic of REFERENCE.md ("HCI disconnect reason
/// -> what a CoreBluetooth app sees"), kept in one place so it can be configured.
public struct DisconnectMapping: Sendable {
    /// HCI reason -> CBError raw code. Reasons not listed map to 0 (unknown).
    public var reasonToCBError: [UInt8: Int]

    public static let `default` = DisconnectMapping(reasonToCBError: [
        0x08: 6,   // Connection Timeout -> connectionTimeout
        0x13: 7, 0x14: 7, 0x15: 7,   // peer ended it -> peripheralDisconnected
        0x3E: 10,  // Connection Failed to be Established -> connectionFailed (didFailToConnect)
    ])

    public init(reasonToCBError: [UInt8: Int]) { self.reasonToCBError = reasonToCBError }

    /// The CBError code an app would get; nil for 0x16 after its own cancel (no error).
    public func cbError(for reason: HCIStatusCode, cancelledByApp: Bool = false) -> Int? {
        if reason.rawValue == 0x16 && cancelledByApp { return nil }
        return reasonToCBError[reason.rawValue] ?? 0
    }

    /// `CBError.<name>` or nil.
    public func cbErrorName(for reason: HCIStatusCode, cancelledByApp: Bool = false) -> String? {
        cbError(for: reason, cancelledByApp: cancelledByApp).flatMap(CoreBluetoothNames.errorName)
    }
}
