import BLECore
import BLETimeline

/// One peer device's GATT database merged across its connections, with its identity.
public struct DeviceGATT: Sendable {
    public var address: String?
    public var addressType: String?
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var firmwareRevision: String?
    public var hardwareRevision: String?
    public var softwareRevision: String?
    public var serialNumber: String?
    public var companyID: Int?
    public var companyName: String?
    public var appearance: Int?
    public var connectionIDs: [Int64]
    public var database: GATTDatabase
    /// Handles that requests named but no discovery revealed.
    public var undiscoveredHandles: [UInt16]
    /// The local device's own GATT server, as the remote centrals in `centrals` read it (the
    /// local controller was the peripheral, LE Connection Complete role 0x01); `address` is nil.
    public var isLocalServer: Bool = false
    public var centrals: [String] = []

    /// Loads every peer's database, analysing first when needed. Later connections win where they disagree.
    public static func load(_ store: TimelineStore) throws -> [DeviceGATT] {
        try Analyzer.analyze(store)
        let db = store.database
        var devices: [String: DeviceGATT] = [:]
        var order: [String] = []
        for row in try db.rows("""
            SELECT id, peer_address, peer_address_type, role FROM connection WHERE transport = 'le' AND status = 0 ORDER BY id
            """) {
            guard let id = row[0].int64 else { continue }
            // As peripheral, the database a remote central discovered is this device's own: one
            // entry for the local server, never attributed to the central that read it.
            let local = row[3].string == "peripheral"
            let key = local ? "local GATT server" : row[1].string ?? "connection \(id)"
            if devices[key] == nil {
                order.append(key)
                devices[key] = DeviceGATT(address: local ? nil : row[1].string, addressType: local ? nil : row[2].string,
                                          connectionIDs: [], database: GATTDatabase(), undiscoveredHandles: [])
                devices[key]!.isLocalServer = local
            }
            if local, let central = row[1].string, !devices[key]!.centrals.contains(central) { devices[key]!.centrals.append(central) }
            devices[key]!.connectionIDs.append(id)
            try merge(connection: id, into: &devices[key]!.database, db: db)
        }
        var out: [DeviceGATT] = []
        for key in order {
            guard var d = devices[key] else { continue }
            let ids = d.connectionIDs.map(String.init).joined(separator: ",")
            let used = try db.rows("""
                SELECT DISTINCT handle FROM att_pdu WHERE connection_id IN (\(ids)) AND handle IS NOT NULL
                AND opcode IN (0x0A, 0x0C, 0x12, 0x16, 0x52, 0xD2, 0x1B, 0x1D)
                """).compactMap { $0[0].int }.map { UInt16(truncatingIfNeeded: $0) }
            d.undiscoveredHandles = d.database.isEmpty ? [] : d.database.undiscoveredHandles(used: Set(used))
            if let a = d.address, let info = try db.rows("""
                SELECT name, manufacturer, model, firmware_revision, hardware_revision, software_revision, serial_number,
                       company_id, company_name, appearance FROM device WHERE address = ?1
                """, [.text(a)]).first {
                d.name = info[0].string; d.manufacturer = info[1].string; d.model = info[2].string
                d.firmwareRevision = info[3].string; d.hardwareRevision = info[4].string
                d.softwareRevision = info[5].string; d.serialNumber = info[6].string
                d.companyID = info[7].int; d.companyName = info[8].string; d.appearance = info[9].int
            }
            out.append(d)
        }
        return out
    }

    static func merge(connection id: Int64, into g: inout GATTDatabase, db: SQLiteDatabase) throws {
        for r in try db.rows("SELECT uuid, start_handle, end_handle, is_primary FROM gatt_service WHERE connection_id = ?1", [.integer(id)]) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let s = GATTDatabase.Service(uuid: uuid, startHandle: UInt16(truncatingIfNeeded: r[1].int ?? 0),
                                         endHandle: UInt16(truncatingIfNeeded: r[2].int ?? 0), isPrimary: r[3].int != 0)
            g.services.removeAll { $0.startHandle == s.startHandle }
            g.services.append(s)
        }
        g.services.sort { $0.startHandle < $1.startHandle }
        for r in try db.rows("SELECT uuid, declaration_handle, value_handle, properties FROM gatt_characteristic WHERE connection_id = ?1", [.integer(id)]) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let c = GATTDatabase.Characteristic(uuid: uuid, declarationHandle: UInt16(truncatingIfNeeded: r[1].int ?? 0),
                                                valueHandle: UInt16(truncatingIfNeeded: r[2].int ?? 0),
                                                properties: UInt8(truncatingIfNeeded: r[3].int ?? 0))
            g.characteristics.removeAll { $0.declarationHandle == c.declarationHandle }
            g.characteristics.append(c)
        }
        g.characteristics.sort { $0.declarationHandle < $1.declarationHandle }
        for r in try db.rows("SELECT uuid, handle FROM gatt_descriptor WHERE connection_id = ?1", [.integer(id)]) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let d = GATTDatabase.Descriptor(uuid: uuid, handle: UInt16(truncatingIfNeeded: r[1].int ?? 0))
            g.descriptors.removeAll { $0.handle == d.handle }
            g.descriptors.append(d)
        }
        g.descriptors.sort { $0.handle < $1.handle }
        for r in try db.rows("SELECT handle, value, source, packet_id FROM gatt_value WHERE connection_id = ?1", [.integer(id)]) {
            g.values[UInt16(truncatingIfNeeded: r[0].int ?? 0)] = GATTDatabase.Value(bytes: r[1].blob ?? [], source: r[2].string ?? "",
                                                                                   packetID: r[3].int ?? 0)
        }
    }
}
