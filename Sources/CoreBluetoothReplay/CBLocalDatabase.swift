import BLEAnalysis
import BLECore
import BLEReplay
import Foundation

/// The app's GATT server database as iOS lays it out (Docs/peripheral.md "System attributes"
/// and "Handles"): the system's Generic Access (1800) and Generic Attribute (1801, with Service
/// Changed 2A05 and its CCCD) services first, then the app's services in the order added, each
/// as its declaration, then per characteristic its declaration, value, the system's CCCD when it
/// notifies or indicates, and the app's descriptors (Core v5.4 Vol 3 Part G 3.1-3.3); a
/// service's include declarations (3.2) come right after its declaration.
///
/// A service keeps the handles it was given when added: removing another service leaves a gap
/// rather than moving the ones after it, whose handles a connected central holds (a server's
/// handles change only with a Service Changed indication naming them, Core v5.4 Vol 3 Part G
/// 2.5.2 and 7.1); a service added later goes after the last handle in use.
struct CBLocalDatabase {
    enum Attribute {
        /// A system attribute with a fixed value.
        case system(BluetoothUUID, [UInt8])
        case service(CBMutableService)
        /// An include declaration (Core v5.4 Vol 3 Part G 3.2) naming this published service.
        case include(CBMutableService)
        case declaration(CBMutableCharacteristic)
        case value(CBMutableCharacteristic)
        /// The system-owned Client Characteristic Configuration of a characteristic (nil: Service Changed's).
        case cccd(CBMutableCharacteristic?)
        case descriptor(CBMutableDescriptor)
    }

    /// By handle (index + 1); nil in the gap a removed service left.
    private(set) var attributes: [Attribute?] = []
    /// The app's services with the first handle each was given, in handle order.
    private(set) var placed: [(service: CBMutableService, start: UInt16)] = []
    /// The first handle after the system's services.
    static let firstAppHandle: UInt16 = 0x000A
    /// The discovery view of it (answered by the system with GATTServerEmulator).
    private(set) var gatt = GATTDatabase()
    /// Service Changed's value handle.
    static let serviceChangedHandle: UInt16 = 0x0008
    static let serviceChangedCCCD: UInt16 = 0x0009
    /// Each published service's handle range (its declaration to its last attribute), as laid out.
    private(set) var ranges: [ObjectIdentifier: ClosedRange<UInt16>] = [:]
    /// The device name the system's GAP service reports.
    var deviceName = "iPhone"

    /// A characteristic declaration's Characteristic Properties octet (Core v5.4 Vol 3 Part G
    /// 3.3.1.1): CoreBluetooth's low eight bits are the octet's; its `.notifyEncryptionRequired`
    /// and `.indicateEncryptionRequired` (0x100, 0x200) go out as Notify (0x10) and Indicate
    /// (0x20), the encryption being a permission of the CCCD, not a property.
    ///
    /// `.broadcast` (0x01) and `.extendedProperties` (0x80) are left out: Apple allows neither on a
    /// local characteristic (`CBMutableCharacteristic.properties`: "you can't use the broadcast and
    /// extendedProperties characteristic properties when creating a mutable characteristic"), and
    /// the system publishes neither descriptor they require (3.3.1.1: Broadcast needs a Server
    /// Characteristic Configuration 2903; Extended Properties needs the Characteristic Extended
    /// Properties descriptor 2900, 3.3.3.1, whose Reliable Write and Writable Auxiliaries bits
    /// CoreBluetooth cannot express), so a declaration with them would promise descriptors a
    /// central cannot find. `CBPeripheralManager.add(_:)` notes it (`CBReplayDiagnostic.Kind.notAllowedLocally`).
    static let notDeclaredLocally: CBCharacteristicProperties = [.broadcast, .extendedProperties]

    static func declaredProperties(_ p: CBCharacteristicProperties) -> UInt8 {
        var octet = UInt8(truncatingIfNeeded: p.subtracting(notDeclaredLocally).rawValue)
        if p.contains(.notifyEncryptionRequired) { octet |= 0x10 }
        if p.contains(.indicateEncryptionRequired) { octet |= 0x20 }
        return octet
    }

    func attribute(at handle: UInt16) -> Attribute? {
        handle >= 1 && Int(handle) <= attributes.count ? attributes[Int(handle) - 1] : nil
    }

    /// Publishes `service` after the last handle in use; the system caches the values its
    /// characteristics have now (nil: dynamic, for as long as it stays published).
    mutating func add(_ service: CBMutableService) {
        for case let c as CBMutableCharacteristic in service.characteristics ?? [] { c.cachedValue = c.value }
        placed.append((service, max(Self.firstAppHandle, UInt16(truncatingIfNeeded: attributes.count + 1))))
        layOut()
    }

    /// Unpublishes these services; the others keep their handles. A removed characteristic's
    /// handles go back to 0 (it is no longer in the database).
    mutating func remove(_ services: [CBMutableService]) {
        for s in services {
            for case let c as CBMutableCharacteristic in s.characteristics ?? [] {
                c.valueHandle = 0
                c.cccdHandle = nil
                c.cachedValue = nil
                for case let d as CBMutableDescriptor in c.descriptors ?? [] { d.localHandle = 0 }
            }
        }
        placed.removeAll { p in services.contains { $0 === p.service } }
        layOut()
    }

    /// Rebuilds the attributes and the discovery view from the placed services.
    private mutating func layOut() {
        attributes = []
        var g = GATTDatabase()
        func add(_ a: Attribute) -> UInt16 {
            attributes.append(a)
            return UInt16(truncatingIfNeeded: attributes.count)
        }
        func value(_ h: UInt16, _ bytes: [UInt8]) { g.values[h] = GATTDatabase.Value(bytes: bytes, source: "system", packetID: 0) }
        // Generic Access: Device Name (2A00), Appearance (2A01) 0x0040 Generic Phone.
        let gap = add(.system(BluetoothUUID(uint16: 0x2800), [0x00, 0x18]))
        let nameDecl = add(.system(BluetoothUUID(uint16: 0x2803), []))
        let name = add(.system(BluetoothUUID(uint16: 0x2A00), Array(deviceName.utf8)))
        value(name, Array(deviceName.utf8))
        let appearanceDecl = add(.system(BluetoothUUID(uint16: 0x2803), []))
        let appearance = add(.system(BluetoothUUID(uint16: 0x2A01), [0x40, 0x00]))
        value(appearance, [0x40, 0x00])
        g.services.append(.init(uuid: BluetoothUUID(uint16: 0x1800), startHandle: gap, endHandle: appearance, isPrimary: true))
        g.characteristics.append(.init(uuid: BluetoothUUID(uint16: 0x2A00), declarationHandle: nameDecl, valueHandle: name, properties: 0x02))
        g.characteristics.append(.init(uuid: BluetoothUUID(uint16: 0x2A01), declarationHandle: appearanceDecl, valueHandle: appearance, properties: 0x02))
        // Generic Attribute: Service Changed (2A05, indicate) and its CCCD.
        let gattService = add(.system(BluetoothUUID(uint16: 0x2800), [0x01, 0x18]))
        let scDecl = add(.system(BluetoothUUID(uint16: 0x2803), []))
        let sc = add(.system(BluetoothUUID(uint16: 0x2A05), [0x01, 0x00, 0xFF, 0xFF]))
        let scCCCD = add(.cccd(nil))
        g.services.append(.init(uuid: BluetoothUUID(uint16: 0x1801), startHandle: gattService, endHandle: scCCCD, isPrimary: true))
        g.characteristics.append(.init(uuid: BluetoothUUID(uint16: 0x2A05), declarationHandle: scDecl, valueHandle: sc, properties: 0x20))
        g.descriptors.append(.init(uuid: BluetoothUUID(uint16: 0x2902), handle: scCCCD))

        var ranges: [ObjectIdentifier: ClosedRange<UInt16>] = [:]
        for (s, first) in placed {
            while attributes.count + 1 < Int(first) { attributes.append(nil) }   // a removed service's gap
            let start = add(.service(s))
            // Include declarations right after the service declaration, before any characteristic
            // (Vol 3 Part G 3.2): the included service's handle range, and its UUID when 16-bit.
            for case let included as CBMutableService in s.includedServices ?? [] {
                guard let range = ranges[ObjectIdentifier(included)] else {
                    attributes.append(nil)   // the included service was removed since: its slot stays, so no handle moves
                    continue
                }
                let r = (start: range.lowerBound, end: range.upperBound)
                let h = add(.include(included))
                let uuid = included.uuid.bluetoothUUID
                value(h, [UInt8(r.start & 0xFF), UInt8(r.start >> 8), UInt8(r.end & 0xFF), UInt8(r.end >> 8)]
                    + (uuid.uint16 != nil ? uuid.littleEndianBytes : []))
                g.includes.append(.init(declarationHandle: h, startHandle: r.start, endHandle: r.end, uuid: uuid))
            }
            for case let c as CBMutableCharacteristic in s.characteristics ?? [] {
                let decl = add(.declaration(c))
                let v = add(.value(c))
                c.valueHandle = v
                c.cccdHandle = nil
                if let cached = c.cachedValue { value(v, Array(cached)) }
                g.characteristics.append(.init(uuid: c.uuid.bluetoothUUID, declarationHandle: decl, valueHandle: v,
                                               properties: Self.declaredProperties(c.properties)))
                if !c.properties.isDisjoint(with: [.notify, .indicate, .notifyEncryptionRequired, .indicateEncryptionRequired]) {
                    let h = add(.cccd(c))
                    c.cccdHandle = h
                    g.descriptors.append(.init(uuid: BluetoothUUID(uint16: 0x2902), handle: h))
                }
                for case let d as CBMutableDescriptor in c.descriptors ?? [] where d.uuid.bluetoothUUID != BluetoothUUID(uint16: 0x2902) {
                    let h = add(.descriptor(d))
                    d.localHandle = h
                    value(h, d.bytes)
                    g.descriptors.append(.init(uuid: d.uuid.bluetoothUUID, handle: h))
                }
            }
            let end = UInt16(truncatingIfNeeded: attributes.count)
            ranges[ObjectIdentifier(s)] = start...end
            g.services.append(.init(uuid: s.uuid.bluetoothUUID, startHandle: start, endHandle: end, isPrimary: s.isPrimary))
        }
        gatt = g
        self.ranges = ranges
    }
}
