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
}
