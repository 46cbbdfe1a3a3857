import Foundation

/// What iOS refuses in `CBPeripheralManager.add(_:)` by raising an Objective-C exception
/// (NSInternalInconsistencyException), which ends the app. Swift on Linux has no Objective-C
/// exceptions; as for a CCCD written with `writeValue(_:for:)` (Docs/replay.md "CCCD writes"),
/// the replay traps with iOS's message: an error callback would let a test pass where the iPhone
/// app crashes.
extension CBPeripheralManager {
    static let cachedValuesMustBeReadOnly = "Characteristics with cached values must be read-only"
    static let serviceAddedTwice = "Services cannot be added more than once"
    static let characteristicAddedTwice = "Characteristics cannot be added more than once"
    static let includedServiceUnpublished = "Included services must be published before the services that include them"

    /// Traps, as iOS raises, when `service` cannot be published:
    /// - a characteristic with a cached (non-nil) value whose properties are not exactly `.read`
    ///   or whose permissions allow writing (Apple, `CBMutableCharacteristic.init`: "If you
    ///   specify a value for the characteristic, the value is cached and its properties and
    ///   permissions are set to be readable");
    /// - the same service object published already, or a characteristic object already in a
    ///   published service or twice in this one;
    /// - an included service that is not published yet.
    func checkPublishable(_ service: CBMutableService) {
        precondition(!services.contains { $0 === service }, Self.serviceAddedTwice)
        let published = services.flatMap { $0.characteristics ?? [] }
        let characteristics = service.characteristics ?? []
        for (i, c) in characteristics.enumerated() {
            precondition(!published.contains { $0 === c } && !characteristics[..<i].contains { $0 === c }, Self.characteristicAddedTwice)
            guard c.value != nil else { continue }
            let permissions = (c as? CBMutableCharacteristic)?.permissions ?? [.readable]
            precondition(c.properties == .read && permissions.isDisjoint(with: [.writeable, .writeEncryptionRequired]),
                         Self.cachedValuesMustBeReadOnly)
        }
        for included in service.includedServices ?? [] {
            precondition(services.contains { $0 === included }, Self.includedServiceUnpublished)
        }
    }

    /// Service UUIDs the system keeps for itself: its own Generic Access (1800) and Generic
    /// Attribute (1801) services, of which a server holds one instance each (Core v5.4 Vol 3 Part
    /// C 12, Part G 7; CBLocalDatabase publishes the system's), and Apple's Notification Center
    /// Service, which iOS itself serves. iOS refuses to publish them: `didAdd` with CBError 8
    /// uuidNotAllowed, "The specified UUID is not allowed for this operation", as developers
    /// report for ANCS (Docs/peripheral.md "Services the system keeps").
    static let reservedServiceUUIDs: Set<String> = ["1800", "1801", "7905F431-B5CE-4E99-A40F-4B1E122D00D0"]

    /// Whether `service` is one the system keeps for itself (`reservedServiceUUIDs`).
    static func isReserved(_ service: CBService) -> Bool {
        reservedServiceUUIDs.contains(service.uuid.uuidString.uppercased())
    }
}
