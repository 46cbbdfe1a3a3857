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

extension PhoneIdentity {
    /// What adding another source's identity of the same capture to this one gives.
    public enum Merge: Sendable, Hashable {
        /// Nothing new: `other` names no field this one lacks.
        case unchanged
        /// `other` filled fields this one lacked; the merged identity.
        case added(PhoneIdentity)
        /// A field both name differs: this one is kept (the first seen), nothing is taken from `other`.
        case conflict
    }

    /// Fills this identity's missing fields from `other`, the identity another copy of the same
    /// capture (same SHA-256) came with; never overwrites a field, and takes nothing when a field
    /// both name differs.
    public func merging(_ other: PhoneIdentity) -> Merge {
        let pairs = [(buildFingerprint, other.buildFingerprint), (manufacturer, other.manufacturer),
                     (model, other.model), (androidVersion, other.androidVersion)]
        if pairs.contains(where: { mine, theirs in mine != nil && theirs != nil && mine != theirs }) { return .conflict }
        let merged = PhoneIdentity(buildFingerprint: buildFingerprint ?? other.buildFingerprint,
                                   manufacturer: manufacturer ?? other.manufacturer, model: model ?? other.model,
                                   androidVersion: androidVersion ?? other.androidVersion)
        return merged == self ? .unchanged : .added(merged)
    }

    /// `Google Pixel 7 (google/panther/…)`: how warnings name an identity.
    public var summary: String {
        let name = [manufacturer, model].compactMap { $0 }.joined(separator: " ")
        let fingerprint = buildFingerprint.map { "(\($0))" }
        return [name.isEmpty ? nil : name, fingerprint].compactMap { $0 }.joined(separator: " ")
    }
}
