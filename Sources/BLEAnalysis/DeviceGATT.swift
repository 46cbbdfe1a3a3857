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
    public struct Client: Sendable, Hashable {
        public var address: String
        /// The peer's link-layer role: "central" when the local device was the peripheral.
        public var role: String
        public init(address: String, role: String) { self.address = address; self.role = role }
    }

    /// Loads every server's database, analysing first when needed, in the order `forEach` gives them.
    public static func load(_ store: TimelineStore) throws -> [DeviceGATT] {
        var out: [DeviceGATT] = []
        try forEach(store) { out.append($0) }
        return out
    }

    /// Which server's database each connection adds to: the peer's own (`local` 0, keyed by its
    /// address) wherever the local device was central (the peer is expected to be a server) or
    /// read one; the local device's (`local` 1, one per capture) wherever a peer used it, and on
    /// every link where the local device was the peripheral (a remote central came for it).
    /// Which side a link's GATT tables hold is decided per ATT direction (`GATTServerSide`).
    /// BR/EDR links count when they carried ATT (GATT over BR/EDR, Core v5.4 Vol 3 Part G 2.1).
    static let membership = """
        WITH link AS (
            SELECT c.id, c.peer_address, c.peer_address_type, c.role, c.capture_id, k.file_name, k.link_type,
                   c.role IS NOT 'peripheral' OR \(holds("remote")) AS as_remote,
                   c.role IS 'peripheral' OR \(holds("local")) AS as_local
            FROM connection c LEFT JOIN capture k ON k.id = c.capture_id
            WHERE c.status = 0 AND (c.transport = 'le' OR EXISTS (SELECT 1 FROM att_pdu a WHERE a.connection_id = c.id))
        ), member AS (
            SELECT 0 AS local, coalesce(peer_address, 'connection ' || id) AS server, \(columns) FROM link WHERE as_remote
            UNION ALL
            SELECT 1 AS local, 'local GATT server ' || coalesce(capture_id, 0) AS server, \(columns) FROM link WHERE as_local
        )
        """

    static let columns = "id, peer_address, peer_address_type, role, capture_id, file_name, link_type"

    /// Whether connection `c.id` has GATT rows of `side`'s server in any table.
    static func holds(_ side: String) -> String {
        ["gatt_service", "gatt_characteristic", "gatt_descriptor", "gatt_value"]
            .map { "EXISTS (SELECT 1 FROM \($0) g WHERE g.connection_id = c.id AND g.server = '\(side)')" }
            .joined(separator: " OR ")
    }

    /// How many local GATT servers `forEach` gives (several captures' local devices are named apart).
    public static func localServerCount(_ store: TimelineStore) throws -> Int {
        try Analyzer.analyze(store)
        return Int(try store.database.scalarInt(membership + "SELECT count(DISTINCT server) FROM member WHERE local") ?? 0)
    }

    /// Hands `body` every server's database in turn, analysing first when needed: the peers'
    /// own (under their addresses) in the order their first connection came, then the local
    /// devices', when a peer used them. A peer the local device was central to is listed even
    /// when nothing was discovered. Later connections win where they disagree. Only one server's
    /// database is held at a time, whatever the number of links (issue 17): SQL orders the
    /// connections by server.
    public static func forEach(_ store: TimelineStore, _ body: (DeviceGATT) throws -> Void) throws {
        try Analyzer.analyze(store)
        let db = store.database
        let s = try db.prepare(membership + """
            SELECT local, server, id, peer_address, peer_address_type, role, file_name, link_type,
                   min(id) OVER (PARTITION BY local, server) AS first
            FROM member ORDER BY local, first, id
            """)
        var current: (local: Bool, server: String, device: DeviceGATT, clients: Set<Client>)?
        func finish() throws {
            guard let c = current else { return }
            try body(try complete(c.device, db: db))
            current = nil
        }
        while try s.step() {
            let local = s.int(0) != 0, server = s.text(1) ?? "", id = s.int64(2)
            if current.map({ $0.local != local || $0.server != server }) ?? true {
                try finish()
                var d = DeviceGATT(address: local ? nil : s.text(3), addressType: local ? nil : s.text(4),
                                   connectionIDs: [], database: GATTDatabase(), undiscoveredHandles: [])
                if local {
                    d.isLocalServer = true
                    d.captureFileName = s.text(6)
                    d.isAirCapture = s.isNull(7) ? false : PcapLinkType(rawValue: UInt32(truncatingIfNeeded: s.int(7))).isAirCapture
                }
                current = (local, server, d, [])
            }
            if local {
                let role = s.text(5)
                let peerRole = role == "peripheral" ? "central" : role == "central" ? "peripheral" : "unknown"
                let client = Client(address: s.text(3) ?? "connection \(id)", role: peerRole)
                if current!.clients.insert(client).inserted { current!.device.clients.append(client) }
            }
            current!.device.connectionIDs.append(id)
            try merge(connection: id, server: local ? .local : .remote, into: &current!.device.database, db: db)
        }
        try finish()
    }

    /// A server's database once all its connections are merged: the handles used but never
    /// discovered, and the device's identity.
    static func complete(_ device: DeviceGATT, db: SQLiteDatabase) throws -> DeviceGATT {
        var d = device
        let ids = d.connectionIDs.map(String.init).joined(separator: ",")
        let side = d.isLocalServer ? GATTServerSide.local : .remote
        let used = try db.rows("""
            SELECT DISTINCT handle FROM att_pdu WHERE connection_id IN (\(ids)) AND handle IS NOT NULL
            AND opcode IN (0x0A, 0x0C, 0x12, 0x16, 0x52, 0xD2, 0x1B, 0x1D)
            AND \(GATTServerSide.sql(direction: "direction", opcode: "opcode")) = ?1
            """, [.text(side.rawValue)]).compactMap { $0[0].int }.map { UInt16(truncatingIfNeeded: $0) }
        // With no discovery at all, every handle used is one never discovered (a client with a
        // cached database): listed with its values rather than dropped; so is any value read
        // by type (Read Using Characteristic UUID) at a handle no discovery revealed.
        d.undiscoveredHandles = d.database.undiscoveredHandles(used: Set(used).union(d.database.values.keys))
        if let a = d.address, let info = try db.rows("""
            SELECT name, manufacturer, model, firmware_revision, hardware_revision, software_revision, serial_number,
                   company_id, company_name, appearance FROM device WHERE address = ?1
            """, [.text(a)]).first {
            d.name = info[0].string; d.manufacturer = info[1].string; d.model = info[2].string
            d.firmwareRevision = info[3].string; d.hardwareRevision = info[4].string
            d.softwareRevision = info[5].string; d.serialNumber = info[6].string
            d.companyID = info[7].int; d.companyName = info[8].string; d.appearance = info[9].int
        }
        return d
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
