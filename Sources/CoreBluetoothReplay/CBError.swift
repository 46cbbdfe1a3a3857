import BLECore
import Foundation

/// `CBError` with Apple's raw values (REFERENCE.md "CoreBluetooth CBError.Code": connectionTimeout
/// is 6, peripheralDisconnected 7, connectionFailed 10, operationNotSupported 13).
///
/// Works the way Apple's bridged error does: `error as? CBError`, `error.code == .connectionTimeout`,
/// `catch CBError.connectionTimeout`, `(error as NSError).code == 6` with domain `CBErrorDomain`.
public struct CBError: CustomNSError, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case unknown = 0
        case invalidParameters = 1
        case invalidHandle = 2
        case notConnected = 3
        case outOfSpace = 4
        case operationCancelled = 5
        case connectionTimeout = 6
        case peripheralDisconnected = 7
        case uuidNotAllowed = 8
        case alreadyAdvertising = 9
        case connectionFailed = 10
        case connectionLimitReached = 11
        case unknownDevice = 12
        case operationNotSupported = 13
        case peerRemovedPairingInformation = 14
        case encryptionTimedOut = 15
        case tooManyLEPairedDevices = 16
        case leGattExceededBackgroundNotificationLimit = 17
        case leGattNearBackgroundNotificationLimit = 18
    }

    public let code: Code
    /// The HCI disconnection reason behind the error, when a link ended (not Apple's; replay only).
    public let hciReason: UInt8?

    public init(_ code: Code, hciReason: UInt8? = nil) {
        self.code = code
        self.hciReason = hciReason
    }

    public static var errorDomain: String { "CBErrorDomain" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: localizedDescription]
        if let hciReason { info["BLEReplayHCIReason"] = Int(hciReason) }
        return info
    }
    public var localizedDescription: String {
        let name = CoreBluetoothNames.cbError[code.rawValue] ?? "unknown"
        return hciReason.map { "CBError.\(name) (HCI reason \(hex($0)) \(HCIStatusCode($0).name))" } ?? "CBError.\(name)"
    }
    public var description: String { localizedDescription }

    public static var unknown: Code { .unknown }
    public static var invalidParameters: Code { .invalidParameters }
    public static var invalidHandle: Code { .invalidHandle }
    public static var notConnected: Code { .notConnected }
    public static var outOfSpace: Code { .outOfSpace }
    public static var operationCancelled: Code { .operationCancelled }
    public static var connectionTimeout: Code { .connectionTimeout }
    public static var peripheralDisconnected: Code { .peripheralDisconnected }
    public static var uuidNotAllowed: Code { .uuidNotAllowed }
    public static var alreadyAdvertising: Code { .alreadyAdvertising }
    public static var connectionFailed: Code { .connectionFailed }
    public static var connectionLimitReached: Code { .connectionLimitReached }
    public static var unknownDevice: Code { .unknownDevice }
    public static var operationNotSupported: Code { .operationNotSupported }
    public static var peerRemovedPairingInformation: Code { .peerRemovedPairingInformation }
    public static var encryptionTimedOut: Code { .encryptionTimedOut }
    public static var tooManyLEPairedDevices: Code { .tooManyLEPairedDevices }
    public static var leGattExceededBackgroundNotificationLimit: Code { .leGattExceededBackgroundNotificationLimit }
    public static var leGattNearBackgroundNotificationLimit: Code { .leGattNearBackgroundNotificationLimit }
}

/// `CBErrorDomain` and `CBATTErrorDomain`, the NSError domains CoreBluetooth exports
/// (`(error as NSError).domain == CBATTErrorDomain`).
public let CBErrorDomain = CBError.errorDomain
public let CBATTErrorDomain = CBATTError.errorDomain

extension CBError.Code {
    /// `catch CBError.connectionTimeout` / `case CBError.connectionTimeout = error`.
    public static func ~= (match: Self, error: any Error) -> Bool {
        (error as? CBError)?.code == match
    }
}

/// `CBATTError`: ATT error codes as CoreBluetooth reports them (domain `CBATTErrorDomain`);
/// Apple names 0x00-0x11. Other codes (application errors 0x80-0x9F, ...) keep their number in
/// `errorCode` and read as `.unlikelyError` through `code`.
public struct CBATTError: CustomNSError, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case success = 0
        case invalidHandle = 1
        case readNotPermitted = 2
        case writeNotPermitted = 3
        case invalidPdu = 4
        case insufficientAuthentication = 5
        case requestNotSupported = 6
        case invalidOffset = 7
        case insufficientAuthorization = 8
        case prepareQueueFull = 9
        case attributeNotFound = 10
        case attributeNotLong = 11
        case insufficientEncryptionKeySize = 12
        case invalidAttributeValueLength = 13
        case unlikelyError = 14
        case insufficientEncryption = 15
        case unsupportedGroupType = 16
        case insufficientResources = 17
    }

    public let errorCode: Int

    public init(_ code: Code) { errorCode = code.rawValue }
    /// Any ATT error code, named or not.
    public init(rawATTError: UInt8) { errorCode = Int(rawATTError) }

    public var code: Code { Code(rawValue: errorCode) ?? .unlikelyError }
    public static var errorDomain: String { "CBATTErrorDomain" }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: localizedDescription] }
    public var localizedDescription: String {
        let att = ATTErrorCode(UInt8(truncatingIfNeeded: errorCode))
        return "\(CoreBluetoothNames.attErrorName(att) ?? "CBATTError \(errorCode)") (\(att))"
    }
    public var description: String { localizedDescription }

    public static var success: Code { .success }
    public static var invalidHandle: Code { .invalidHandle }
    public static var readNotPermitted: Code { .readNotPermitted }
    public static var writeNotPermitted: Code { .writeNotPermitted }
    public static var invalidPdu: Code { .invalidPdu }
    public static var insufficientAuthentication: Code { .insufficientAuthentication }
    public static var requestNotSupported: Code { .requestNotSupported }
    public static var invalidOffset: Code { .invalidOffset }
    public static var insufficientAuthorization: Code { .insufficientAuthorization }
    public static var prepareQueueFull: Code { .prepareQueueFull }
    public static var attributeNotFound: Code { .attributeNotFound }
    public static var attributeNotLong: Code { .attributeNotLong }
    public static var insufficientEncryptionKeySize: Code { .insufficientEncryptionKeySize }
    public static var invalidAttributeValueLength: Code { .invalidAttributeValueLength }
    public static var unlikelyError: Code { .unlikelyError }
    public static var insufficientEncryption: Code { .insufficientEncryption }
    public static var unsupportedGroupType: Code { .unsupportedGroupType }
    public static var insufficientResources: Code { .insufficientResources }
}

extension CBATTError.Code {
    public static func ~= (match: Self, error: any Error) -> Bool {
        (error as? CBATTError)?.code == match
    }
}
