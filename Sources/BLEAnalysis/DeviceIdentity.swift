import BLECore
import BLEDecode
import BLETimeline

/// Device identity per address: names and manufacturer data from advertising, and the Device
/// Information Service strings (0x180A) read over GATT (model, firmware, …).
enum DeviceIdentity {
    /// Device Information characteristic UUIDs -> `device` column (GATT Specification Supplement 3.x).
    static let disColumns: [(String, String)] = [
        ("2A29", "manufacturer"), ("2A24", "model"), ("2A26", "firmware_revision"),
        ("2A27", "hardware_revision"), ("2A28", "software_revision"), ("2A25", "serial_number"),
    ]

    static func rebuild(_ db: SQLiteDatabase) throws {
        try db.execute("DELETE FROM device")
        // Advertisers.
        try db.execute("""
            INSERT INTO device (address, address_type, name, rssi_max, adv_reports)
            SELECT address, max(address_type),
                   (SELECT name FROM adv_report r2 WHERE r2.address = r.address AND r2.name IS NOT NULL ORDER BY length(r2.name) DESC, packet_id LIMIT 1),
                   max(rssi), count(*)
            FROM adv_report r GROUP BY address
            """)
        // Connected peers that never advertised in the capture.
        try db.execute("""
            INSERT OR IGNORE INTO device (address, address_type) SELECT peer_address, max(peer_address_type)
            FROM connection WHERE peer_address IS NOT NULL AND transport = 'le' GROUP BY peer_address
            """)
        try db.execute("""
            UPDATE device SET connections = (SELECT count(*) FROM connection c WHERE c.peer_address = device.address AND c.status = 0)
            """)
        // Device Information strings, and the GAP Device Name when advertising carried no name:
        // the latest value read from each characteristic, as text without its NUL padding
        // (GATTStringValue). Only the peer's own server: the local one is this device's. A value
        // read by its type (Read By Type, `read_by_type`) counts though its characteristic was
        // never discovered, as iOS and Android's stack read the Device Name on connecting.
        let strings = try db.prepare("""
            SELECT c.peer_address, coalesce(ch.uuid, v.read_by_type), v.value FROM gatt_value v
            LEFT JOIN gatt_characteristic ch ON ch.connection_id = v.connection_id AND ch.value_handle = v.handle AND ch.server = v.server
            JOIN connection c ON c.id = v.connection_id
            WHERE c.peer_address IS NOT NULL
            AND coalesce(ch.uuid, v.read_by_type) IN (\((disColumns.map(\.0) + ["2A00"]).map { "'\($0)'" }.joined(separator: ",")))
            AND length(v.value) > 0
            AND v.server = 'remote' -- the peer's own GATT server, never the local one it read (GATTServerSide)
            ORDER BY v.packet_id DESC
            """)
        var seen: Set<[String]> = []
        var found: [(address: String, column: String, text: String)] = []
        while try strings.step() {
            guard let address = strings.text(0), let uuid = strings.text(1), let bytes = strings.blob(2),
                  let text = GATTStringValue.text(bytes) else { continue }
            let column = disColumns.first { $0.0 == uuid }?.1 ?? "name"
            guard seen.insert([address, column]).inserted else { continue }
            found.append((address, column, text))
        }
        for f in found {
            let onlyIfMissing = f.column == "name" ? " AND name IS NULL" : ""
            try db.run("UPDATE device SET \(f.column) = ?1 WHERE address = ?2\(onlyIfMissing)", [.text(f.text), .text(f.address)])
        }
        // Manufacturer data company and appearance, from the advertising data as BLEDecode parses it:
        // the company of a device's first report (in packet order) that names one, its latest
        // appearance. Read in the table's order and kept by (packet, row): `ORDER BY packet_id`
        // sorted every report, data included, in SQLite's sorter (16 MB at 3M records, the
        // import's peak); only a value per device is kept here.
        let s = try db.prepare("SELECT address, packet_id, rowid, data FROM adv_report")
        var company: [String: (id: UInt16, at: ReportOrder)] = [:]
        var appearance: [String: (value: UInt16, at: ReportOrder)] = [:]
        while try s.step() {
            guard let address = s.text(0), let data = s.blob(3) else { continue }
            let at = ReportOrder(packet: s.int64(1), row: s.int64(2))
            let parsed = AdvertisingData(decoding: data[...])
            // An iBeacon frame (Apple's company ID, then 0x02 0x15) is a format any vendor's beacon
            // sends: it names no maker, so a device is not called Apple for it.
            if company[address].map({ at < $0.at }) ?? true,
               let first = parsed.manufacturerData.first(where: { !($0.companyID == 0x004C && $0.data.starts(with: [0x02, 0x15])) }) {
                company[address] = (first.companyID, at)
            }
            if let a = parsed.appearance, appearance[address].map({ at > $0.at }) ?? true { appearance[address] = (a, at) }
        }
        for (address, (id, _)) in company {
            try db.run("UPDATE device SET company_id = ?1, company_name = ?2 WHERE address = ?3",
                       [.integer(Int64(id)), AssignedNumbers.companyName(id).map { .text($0) } ?? .null, .text(address)])
        }
        for (address, (a, _)) in appearance {
            try db.run("UPDATE device SET appearance = ?1 WHERE address = ?2", [.integer(Int64(a)), .text(address)])
        }
    }
}

/// Where an advertising report stands in its capture: its packet, then its row (an extended
/// advertising event can carry several reports in one packet).
private struct ReportOrder: Comparable {
    var packet: Int64
    var row: Int64
    static func < (a: Self, b: Self) -> Bool { (a.packet, a.row) < (b.packet, b.row) }
}
