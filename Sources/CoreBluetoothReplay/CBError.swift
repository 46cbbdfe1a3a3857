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
    /// The user info given to `init(_:userInfo:)` (Sendable: NSError carries it).
    private let given: NSError?

    public init(_ code: Code, hciReason: UInt8? = nil) {
        self.code = code
        self.hciReason = hciReason
        given = nil
    }

    /// As Apple's `CBError(_:userInfo:)`, for tests and mocks that build the errors an app handles.
    public init(_ code: Code, userInfo: [String: Any]) {
        self.code = code
        hciReason = (userInfo["BLEReplayHCIReason"] as? Int).flatMap { UInt8(exactly: $0) }
        given = NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: userInfo)
    }

    public static var errorDomain: String { "CBErrorDomain" }
    public var errorCode: Int { code.rawValue }
    /// Apple's `userInfo`: what was given, with `NSLocalizedDescriptionKey` (and, in the replay,
    /// `BLEReplayHCIReason` when a link ended).
    public var userInfo: [String: Any] { errorUserInfo }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = given?.userInfo ?? [:]
        if info[NSLocalizedDescriptionKey] == nil { info[NSLocalizedDescriptionKey] = localizedDescription }
        if let hciReason { info["BLEReplayHCIReason"] = Int(hciReason) }
        return info
    }
    /// Apple's text for the code (CBErrorDescriptions.swift).
    public var localizedDescription: String {
        (given?.userInfo[NSLocalizedDescriptionKey] as? String) ?? CBErrorDescriptions.cbError(code.rawValue)
    }
    /// The code's name and, in the replay, the HCI reason behind it.
    public var description: String {
        let name = CoreBluetoothNames.cbError[code.rawValue] ?? "unknown"
        return hciReason.map { "CBError.\(name) (HCI reason \(hex($0)) \(HCIStatusCode($0).name))" } ?? "CBError.\(name)"
    }

    public static func == (a: CBError, b: CBError) -> Bool { a.code == b.code && a.hciReason == b.hciReason }
    public func hash(into h: inout Hasher) {
        h.combine(code)
        h.combine(hciReason)
    }

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

