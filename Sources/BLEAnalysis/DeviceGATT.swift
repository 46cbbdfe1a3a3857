import BLECapture
import BLECore
import BLEDecode
import BLETimeline

/// One GATT server's database merged across its connections, with its identity: a peer
/// device's own database, or the local device's (`isLocalServer`) as the peers that were its
/// clients read it. Which one a PDU belongs to is decided per ATT direction (`GATTServerSide`),
/// never by the link-layer role: on one link the peer can be client of the local server and
/// server to the local client at once.
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
    /// The local device's own GATT server, as the remote clients in `clients` read it; `address` is nil.
    public var isLocalServer: Bool = false
    /// For the local server: the peers that were its clients, with the link-layer role each had.
    public var clients: [Client] = []
    /// For the local server: the capture whose local device it is.
    public var captureFileName: String?
    /// For the local server: the capture is a sniffer's, so "local" is the link's central (the side
    /// a sniffer records as `tx`), not a device that made the capture.
    public var isAirCapture = false
    /// For the local server: the clients that were the central (LE Connection Complete role 0x01).
    public var centrals: [String] { clients.filter { $0.role == "central" }.map(\.address) }

    /// A peer that read or wrote the local GATT server.
    public struct Client: Sendable, Equatable {
        public var address: String
        /// The peer's link-layer role: "central" when the local device was the peripheral.
        public var role: String
        public init(address: String, role: String) { self.address = address; self.role = role }
    }

    /// Loads every server's database, analysing first when needed: each peer's own (under its
    /// address) and then the local device's, when a peer used it. A peer the local device was
    /// central to is listed even when nothing was discovered. Later connections win where they disagree.
    /// BR/EDR links count when they carried ATT (GATT over BR/EDR, Core v5.4 Vol 3 Part G 2.1).
    /// `undiscovered`: also find `undiscoveredHandles`, a scan of every ATT PDU of the device's
    /// connections; a replay, which serves the databases only, goes without (issue 12).
    public static func load(_ store: TimelineStore, undiscovered: Bool = true) throws -> [DeviceGATT] {
        try Analyzer.analyze(store)
        let db = store.database
        var devices: [String: DeviceGATT] = [:]
        var order: [String] = []
        let sides = try serversWithData(db)
        for row in try db.rows("""
            SELECT c.id, c.peer_address, c.peer_address_type, c.role, c.capture_id, k.file_name, k.link_type
            FROM connection c LEFT JOIN capture k ON k.id = c.capture_id
            WHERE c.status = 0 AND (c.transport = 'le' OR EXISTS (SELECT 1 FROM att_pdu a WHERE a.connection_id = c.id))
            ORDER BY c.id
            """) {
            guard let id = row[0].int64 else { continue }
            // Each capture's local device is its own (a timeline can hold several phones' captures).
            let localKey = "local GATT server \(row[4].int ?? 0)"
            let asPeripheral = row[3].string == "peripheral"
            // The peer's own database: wherever the local device was central (the peer is
            // expected to be a server), and wherever the local device read one.
            if !asPeripheral || sides[id, default: []].contains(.remote) {
                let key = row[1].string ?? "connection \(id)"
                if devices[key] == nil {
                    order.append(key)
                    devices[key] = DeviceGATT(address: row[1].string, addressType: row[2].string,
                                              connectionIDs: [], database: GATTDatabase(), undiscoveredHandles: [])
                }
                devices[key]!.connectionIDs.append(id)
                try merge(connection: id, server: .remote, into: &devices[key]!.database, db: db)
            }
            // The local device's database: wherever a peer used it, and on every link where the
            // local device was the peripheral (a remote central came for it).
            if asPeripheral || sides[id, default: []].contains(.local) {
                if devices[localKey] == nil {
                    order.append(localKey)
                    devices[localKey] = DeviceGATT(address: nil, addressType: nil, connectionIDs: [], database: GATTDatabase(),
                                                   undiscoveredHandles: [])
                    devices[localKey]!.isLocalServer = true
                    devices[localKey]!.captureFileName = row[5].string
                    devices[localKey]!.isAirCapture = row[6].int.map { PcapLinkType(rawValue: UInt32(truncatingIfNeeded: $0)).isAirCapture } ?? false
                }
                let peerRole = asPeripheral ? "central" : row[3].string == "central" ? "peripheral" : "unknown"
                let client = Client(address: row[1].string ?? "connection \(id)", role: peerRole)
                if !devices[localKey]!.clients.contains(client) { devices[localKey]!.clients.append(client) }
                devices[localKey]!.connectionIDs.append(id)
                try merge(connection: id, server: .local, into: &devices[localKey]!.database, db: db)
            }
        }
        // The local servers last, after the devices (their connections are the peers' too).
        order = order.filter { devices[$0]?.isLocalServer == false } + order.filter { devices[$0]?.isLocalServer == true }
        var out: [DeviceGATT] = []
        for key in order {
            guard var d = devices[key] else { continue }
            let ids = d.connectionIDs.map(String.init).joined(separator: ",")
            let side = d.isLocalServer ? GATTServerSide.local : .remote
            let used = !undiscovered ? [] : try db.rows("""
                SELECT DISTINCT handle FROM att_pdu WHERE connection_id IN (\(ids)) AND handle IS NOT NULL
                AND opcode IN (0x0A, 0x0C, 0x12, 0x16, 0x52, 0xD2, 0x1B, 0x1D)
                AND \(GATTServerSide.sql(direction: "direction", opcode: "opcode")) = ?1
                """, [.text(side.rawValue)]).compactMap { $0[0].int }.map { UInt16(truncatingIfNeeded: $0) }
            // With no discovery at all, every handle used is one never discovered (a client with a
            // cached database): listed with its values rather than dropped; so is any value read
            // by type (Read Using Characteristic UUID) at a handle no discovery revealed.
            if undiscovered { d.undiscoveredHandles = d.database.undiscoveredHandles(used: Set(used).union(d.database.values.keys)) }
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

    /// Per connection, the sides whose GATT tables hold anything.
    static func serversWithData(_ db: SQLiteDatabase) throws -> [Int64: Set<GATTServerSide>] {
        var out: [Int64: Set<GATTServerSide>] = [:]
        for r in try db.rows("""
            SELECT connection_id, server FROM gatt_service UNION SELECT connection_id, server FROM gatt_characteristic
            UNION SELECT connection_id, server FROM gatt_descriptor UNION SELECT connection_id, server FROM gatt_value
            """) {
            guard let id = r[0].int64, let side = r[1].string.flatMap(GATTServerSide.init(rawValue:)) else { continue }
            out[id, default: []].insert(side)
        }
        return out
    }

    static func merge(connection id: Int64, server: GATTServerSide, into g: inout GATTDatabase, db: SQLiteDatabase) throws {
        let args: [SQLiteValue] = [.integer(id), .text(server.rawValue)]
        for r in try db.rows("SELECT uuid, start_handle, end_handle, is_primary FROM gatt_service WHERE connection_id = ?1 AND server = ?2", args) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let s = GATTDatabase.Service(uuid: uuid, startHandle: UInt16(truncatingIfNeeded: r[1].int ?? 0),
                                         endHandle: UInt16(truncatingIfNeeded: r[2].int ?? 0), isPrimary: r[3].int != 0)
            g.services.removeAll { $0.startHandle == s.startHandle }
            g.services.append(s)
        }
        g.services.sort { $0.startHandle < $1.startHandle }
        for r in try db.rows("SELECT uuid, declaration_handle, value_handle, properties FROM gatt_characteristic WHERE connection_id = ?1 AND server = ?2", args) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let c = GATTDatabase.Characteristic(uuid: uuid, declarationHandle: UInt16(truncatingIfNeeded: r[1].int ?? 0),
                                                valueHandle: UInt16(truncatingIfNeeded: r[2].int ?? 0),
                                                properties: UInt8(truncatingIfNeeded: r[3].int ?? 0))
            g.characteristics.removeAll { $0.declarationHandle == c.declarationHandle }
            g.characteristics.append(c)
        }
        g.characteristics.sort { $0.declarationHandle < $1.declarationHandle }
        for r in try db.rows("SELECT uuid, handle FROM gatt_descriptor WHERE connection_id = ?1 AND server = ?2", args) {
            guard let uuid = r[0].string.flatMap(BluetoothUUID.init) else { continue }
            let d = GATTDatabase.Descriptor(uuid: uuid, handle: UInt16(truncatingIfNeeded: r[1].int ?? 0))
            g.descriptors.removeAll { $0.handle == d.handle }
            g.descriptors.append(d)
        }
        g.descriptors.sort { $0.handle < $1.handle }
        for r in try db.rows("SELECT handle, value, source, packet_id FROM gatt_value WHERE connection_id = ?1 AND server = ?2", args) {
            g.values[UInt16(truncatingIfNeeded: r[0].int ?? 0)] = GATTDatabase.Value(bytes: r[1].blob ?? [], source: r[2].string ?? "",
                                                                                   packetID: r[3].int ?? 0)
        }
    }
}
