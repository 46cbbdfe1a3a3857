/// Who the phone that wrote a capture is, as its Android bugreport says: the dumpstate header's
/// `Build fingerprint: '…'` line and the `[ro.product.model]: [Pixel 7]` lines of its SYSTEM
/// PROPERTIES section (AOSP `frameworks/native/cmds/dumpstate/dumpstate.cpp`, `PrintHeader`).
///
/// Every field is nil when the bugreport did not say; nothing is guessed, except the Android
/// version, which the fingerprint carries (`brand/product/device:RELEASE/id/incremental:type/tags`)
/// when `ro.build.version.release` is missing.
public struct PhoneIdentity: Sendable, Hashable {
    /// `ro.build.fingerprint`, e.g. `google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys`.
    public var buildFingerprint: String?
    /// `ro.product.manufacturer`, e.g. `Google`.
    public var manufacturer: String?
    /// `ro.product.model`, e.g. `Pixel 7`.
    public var model: String?
    /// `ro.build.version.release`, e.g. `14`.
    public var androidVersion: String?

    public init(buildFingerprint: String? = nil, manufacturer: String? = nil, model: String? = nil,
                androidVersion: String? = nil) {
        self.buildFingerprint = buildFingerprint
        self.manufacturer = manufacturer
        self.model = model
        self.androidVersion = androidVersion
    }

    /// True when the bugreport named none of the fields.
    public var isEmpty: Bool { buildFingerprint == nil && manufacturer == nil && model == nil && androidVersion == nil }

    /// The release field of a build fingerprint (`…:14/…` -> `14`), nil when it has no such field.
    public static func androidVersion(fingerprint: String) -> String? {
        guard let colon = fingerprint.firstIndex(of: ":") else { return nil }
        let release = fingerprint[fingerprint.index(after: colon)...].prefix { $0 != "/" }
        return release.isEmpty ? nil : String(release)
    }
}
