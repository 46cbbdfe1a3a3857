import BLEAnalysis

/// A peer's GATT database and the subscription finder made from it, immutable and held apart
/// from its model: 56 bytes inline in every model (and so in every simulated peripheral), where
/// a faithful replay's models hold empty ones (`ModelBuilder.build(_:jobs:databaseAnswers:)`),
/// and so does every peer whose database the capture never shows. Those all share one
/// (issue 17: a simulated peripheral of 200 bytes a link then fits 160).
final class PeerDatabase: Sendable {
    let gatt: GATTDatabase
    let extractor: BehaviourExtractor

    private init(gatt: GATTDatabase, extractor: BehaviourExtractor) {
        self.gatt = gatt
        self.extractor = extractor
    }

    /// The one every model with an empty database and finder shares.
    private static let empty = PeerDatabase(gatt: GATTDatabase(), extractor: BehaviourExtractor(gatt: nil))

    /// `gatt` and `extractor` held apart: the shared empty one when both are empty.
    static func make(gatt: GATTDatabase, extractor: BehaviourExtractor) -> PeerDatabase {
        let emptyGATT = gatt.services.isEmpty && gatt.characteristics.isEmpty && gatt.descriptors.isEmpty
            && gatt.includes.isEmpty && gatt.values.isEmpty
        if emptyGATT && extractor.cccdOwners.isEmpty && extractor.serviceChangedHandles.isEmpty { return empty }
        return PeerDatabase(gatt: gatt, extractor: extractor)
    }
}
