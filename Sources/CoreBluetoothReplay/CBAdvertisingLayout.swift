import BLECore
import Foundation

/// What iOS puts on the air for `startAdvertising(_:)` (Docs/peripheral.md "Advertising"):
/// legacy advertising, 31 bytes of AD structures per PDU (Core v5.4 Vol 6 Part B 2.3.1.1; Vol 3
/// Part C 11). The Flags AD takes 3 bytes, leaving the 28 Apple's guide speaks of; the service
/// UUIDs go first, 16-bit ones as one list and 128-bit ones as another, as many as fit
/// (incomplete-list AD types 0x02 / 0x06 when some do not); the ones left over go to Apple's
/// "overflow area", which only an iOS device scanning for them explicitly finds. The local name
/// goes in the advertising PDU when it fits whole, else in the scan response, where iOS gives it
/// 10 bytes: a name longer than 8 bytes is cut (Shortened Local Name, 0x08).
public struct CBAdvertisingLayout: Sendable, Equatable {
    public var advertisingData: [UInt8]
    public var scanResponse: [UInt8]
    /// Service UUIDs that did not fit (Apple's overflow area).
    public var overflowServiceUUIDs: [String]
    /// The name went out shortened.
    public var nameShortened: Bool

    static let pduSpace = 31
    static let scanResponseNameSpace = 10

    public init(_ data: [String: Any]) {
        var adv: [UInt8] = [0x02, 0x01, 0x06]
        let uuids = (data[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? []
        var overflow: [String] = []
        for (short, complete, incomplete) in [(true, UInt8(0x03), UInt8(0x02)), (false, UInt8(0x07), UInt8(0x06))] {
            let group = uuids.filter { ($0.bluetoothUUID.uint16 != nil) == short }
            guard !group.isEmpty else { continue }
            let size = short ? 2 : 16
            let room = (Self.pduSpace - adv.count - 2) / size
            let fitting = Array(group.prefix(max(0, room)))
            overflow += group.dropFirst(fitting.count).map(\.uuidString)
            guard !fitting.isEmpty else { continue }
            let bytes = fitting.flatMap { $0.bluetoothUUID.littleEndianBytes.suffix(size) }
            adv += [UInt8(1 + bytes.count), fitting.count == group.count ? complete : incomplete] + bytes
        }
        var rsp: [UInt8] = []
        var shortened = false
        if let name = data[CBAdvertisementDataLocalNameKey] as? String, !name.isEmpty {
            let bytes = Array(name.utf8)
            if adv.count + 2 + bytes.count <= Self.pduSpace {
                adv += [UInt8(1 + bytes.count), 0x09] + bytes
            } else {
                let room = Self.scanResponseNameSpace - 2
                shortened = bytes.count > room
                let part = Self.utf8Prefix(bytes, maxBytes: room)
                rsp = [UInt8(1 + part.count), shortened ? 0x08 : 0x09] + part
            }
        }
        advertisingData = adv
        scanResponse = rsp
        overflowServiceUUIDs = overflow
        nameShortened = shortened
    }

    /// The longest prefix of UTF-8 `bytes` no longer than `maxBytes` that ends on a character.
    static func utf8Prefix(_ bytes: [UInt8], maxBytes: Int) -> [UInt8] {
        var n = min(bytes.count, maxBytes)
        while n > 0, n < bytes.count, bytes[n] & 0xC0 == 0x80 { n -= 1 }
        return Array(bytes.prefix(n))
    }
}
