import BLEAnalysis
import BLECore

/// A peer whose own GATT database the capture never shows discovered: the local host used its
/// handles from a cache (bonded devices, Android's and iOS's GATT caches), so the reconstruction
/// of its server holds values at handles but no service (GATTServerSide.remote). What the peer's
/// requests read on the local server is the local device's database, never the peer's.
///
/// A central script or CoreBluetoothReplay app that discovers such a device gets only what the
/// recording answered (often no service at all); the note says why, so that "0 services" is not
/// taken for the device's database.
public enum CachedDatabaseNote {
    /// The note for the simulated device `model`, or nil when the capture shows any of its services.
    public static func note(_ model: PeripheralModel) -> String? {
        let g = model.gatt
        guard g.services.isEmpty, !g.values.isEmpty else { return nil }
        let handles = g.values.keys.sorted()
        let shown = handles.prefix(8).map { hex($0, width: 4) }.joined(separator: ", ") + (handles.count > 8 ? ", …" : "")
        return "the capture never shows the GATT services of \(model.label) being discovered: the local host used its handles "
            + "\(shown) from a cached database, so a discovery against its simulation finds only what the recording answered"
    }
}
