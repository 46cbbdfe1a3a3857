import BLECore
import Foundation

/// `CBATTError`: ATT error codes as CoreBluetooth reports them (domain `CBATTErrorDomain`).
///
/// Apple names 0x00-0x11 (Core v5.4 Vol 3 Part F 3.4.1.1); every other code (application
/// errors 0x80-0x9F, common profile errors 0xE0-0xFF, reserved ones) keeps its number: on iOS an
/// application error 0x80 has `code.rawValue == 128`, and so it has here (`Code.unnamed`).
public struct CBATTError: CustomNSError, Hashable, Sendable, CustomStringConvertible {
    /// Apple's `CBATTError.Code`, open as the imported C enum is: `Code(rawValue:)` accepts any
    /// value; codes Apple does not name are `.unnamed(n)`, which an app's `@unknown default` (or
    /// `default`) handles.
    public enum Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        case success
        case invalidHandle
        case readNotPermitted
        case writeNotPermitted
        case invalidPdu
        case insufficientAuthentication
        case requestNotSupported
        case invalidOffset
        case insufficientAuthorization
        case prepareQueueFull
        case attributeNotFound
        case attributeNotLong
        case insufficientEncryptionKeySize
        case invalidAttributeValueLength
        case unlikelyError
        case insufficientEncryption
        case unsupportedGroupType
        case insufficientResources
        /// A code Apple does not name (0x12 and up), with its number.
        case unnamed(Int)

        static let named: [Code] = [.success, .invalidHandle, .readNotPermitted, .writeNotPermitted, .invalidPdu,
                                    .insufficientAuthentication, .requestNotSupported, .invalidOffset,
                                    .insufficientAuthorization, .prepareQueueFull, .attributeNotFound, .attributeNotLong,
                                    .insufficientEncryptionKeySize, .invalidAttributeValueLength, .unlikelyError,
                                    .insufficientEncryption, .unsupportedGroupType, .insufficientResources]

        public init?(rawValue: Int) {
            self = Self.named.indices.contains(rawValue) ? Self.named[rawValue] : .unnamed(rawValue)
        }

        public var rawValue: Int { ordinal }

        public static func == (a: Code, b: Code) -> Bool {
            switch (a, b) {
            case (.unnamed(let x), .unnamed(let y)): x == y
            case (.unnamed, _), (_, .unnamed): a.rawValue == b.rawValue
            default: a.ordinal == b.ordinal
            }
        }
        public func hash(into h: inout Hasher) { h.combine(rawValue) }

        private var ordinal: Int {
            switch self {
            case .success: 0
            case .invalidHandle: 1
            case .readNotPermitted: 2
            case .writeNotPermitted: 3
            case .invalidPdu: 4
            case .insufficientAuthentication: 5
            case .requestNotSupported: 6
            case .invalidOffset: 7
            case .insufficientAuthorization: 8
            case .prepareQueueFull: 9
            case .attributeNotFound: 10
            case .attributeNotLong: 11
            case .insufficientEncryptionKeySize: 12
            case .invalidAttributeValueLength: 13
            case .unlikelyError: 14
            case .insufficientEncryption: 15
            case .unsupportedGroupType: 16
            case .insufficientResources: 17
            case .unnamed(let n): n
            }
        }

        public var description: String {
            if case .unnamed(let n) = self { return "CBATTError.Code(rawValue: \(n))" }
            return CoreBluetoothNames.attErrorName(ATTErrorCode(UInt8(truncatingIfNeeded: rawValue))) ?? "CBATTError.Code(rawValue: \(rawValue))"
        }
    }

    public let errorCode: Int

    public init(_ code: Code) { errorCode = code.rawValue }
    /// Any ATT error code, named or not.
    public init(rawATTError: UInt8) { errorCode = Int(rawATTError) }

    public var code: Code { Code(rawValue: errorCode)! }
    public static var errorDomain: String { "CBATTErrorDomain" }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: localizedDescription] }
    /// Apple's text for the code (CBErrorDescriptions.swift).
    public var localizedDescription: String { CBErrorDescriptions.attError(errorCode) }
    /// The code's name and the ATT error behind it.
    public var description: String {
        let att = ATTErrorCode(UInt8(truncatingIfNeeded: errorCode))
        return "\(CoreBluetoothNames.attErrorName(att) ?? "CBATTError \(errorCode)") (\(att))"
    }

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
