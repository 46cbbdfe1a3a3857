import BLECore

/// The phone's identity (`PhoneIdentity`, from an Android bugreport) in the `capture` table's
/// `phone_manufacturer`, `phone_model`, `android_version` and `build_fingerprint` columns.
public enum PhoneIdentityColumns {
    public static let names = ["phone_manufacturer", "phone_model", "android_version", "build_fingerprint"]

    static func write(_ phone: PhoneIdentity, captureID: Int64, to db: SQLiteDatabase) throws(SQLiteError) {
        let values = [phone.manufacturer, phone.model, phone.androidVersion, phone.buildFingerprint]
        try db.run("""
            UPDATE capture SET phone_manufacturer = ?1, phone_model = ?2, android_version = ?3, build_fingerprint = ?4
            WHERE id = ?5
            """, values.map { $0.map { SQLiteValue.text($0) } ?? .null } + [.integer(captureID)])
    }

    /// The identity stored for capture `captureID`; nil when none is (a capture that came from no bugreport).
    public static func read(captureID: Int64, from db: SQLiteDatabase) throws(SQLiteError) -> PhoneIdentity? {
        guard let row = try db.rows("SELECT \(names.joined(separator: ", ")) FROM capture WHERE id = ?1",
                                    [.integer(captureID)]).first else { return nil }
        let phone = PhoneIdentity(buildFingerprint: row[3].string, manufacturer: row[0].string, model: row[1].string,
                                  androidVersion: row[2].string)
        return phone.isEmpty ? nil : phone
    }
}
