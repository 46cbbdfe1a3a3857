import BLECore

// STUB: replaced by the advertising work. Public API contract below must stay.

/// Advertising or scan-response data: a sequence of AD structures
/// (Core v5.4 Vol 3 Part C 11; Core Specification Supplement Part A).
public struct AdvertisingData: Sendable {
    public var localName: String?
    public var txPowerLevel: Int8?
    public init(decoding bytes: ArraySlice<UInt8>) {}
}
