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
    /// A sniffer's capture: per connection whose payloads turned to ciphertext the sniffer did not
    /// decrypt, the first such packet (the "LL payloads encrypted" link event): discovery and
    /// values after it are not in the capture, though the link may have carried them.
    public var ciphertextFrom: [(connection: Int64, packet: Int)] = []
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
    /// `undiscovered`: also find `undiscoveredHandles`, a scan of every ATT PDU of the device's
    /// connections; a replay, which serves the databases only, goes without (issue 12).
    public static func load(_ store: TimelineStore, undiscovered: Bool = true) throws -> [DeviceGATT] {
        var out: [DeviceGATT] = []
        try forEach(store, undiscovered: undiscovered) { out.append($0) }
        return out
    }

    /// The links that count, as `c` (`k` its capture): established, LE or carrying ATT (GATT over
    /// BR/EDR, Core v5.4 Vol 3 Part G 2.1).
    static func link(_ c: String) -> String {
        "\(c).status = 0 AND (\(c).transport = 'le' OR EXISTS (SELECT 1 FROM att_pdu a WHERE a.connection_id = \(c).id))"
    }

    /// Whether link `c` adds to `side`'s database: the peer's own (`remote`) wherever the local
    /// device was central (the peer is expected to be a server) or read one; the local device's
    /// wherever a peer used it, and on every link where the local device was the peripheral (a
    /// remote central came for it). Which side a link's GATT tables hold is decided per ATT
    /// direction (`GATTServerSide`).
    static func serves(_ side: GATTServerSide, _ c: String) -> String {
        let holds = ["gatt_service", "gatt_characteristic", "gatt_descriptor", "gatt_value"]
            .map { "EXISTS (SELECT 1 FROM \($0) g WHERE g.connection_id = \(c).id AND g.server = '\(side.rawValue)')" }
            .joined(separator: " OR ")
        return "(\(c).role IS \(side == .remote ? "NOT " : "")'peripheral' OR \(holds))"
    }

    static let columns = """
        SELECT c.id, c.peer_address, c.peer_address_type, c.role, k.file_name, k.link_type
        FROM connection c LEFT JOIN capture k ON k.id = c.capture_id
        """

    /// The captures whose local device's database some link adds to, in the order of their first such link.
    static func localServers(_ db: SQLiteDatabase) throws -> [Int64] {
        var first: [(capture: Int64, connection: Int64)] = []
        for r in try db.rows("SELECT id FROM capture ORDER BY id") {
            guard let capture = r[0].int64, let id = try db.scalarInt("""
                SELECT min(c.id) FROM connection c WHERE c.capture_id = ?1 AND \(link("c")) AND \(serves(.local, "c"))
                """, [.integer(capture)]) else { continue }
            first.append((capture, id))
        }
        return first.sorted { $0.connection < $1.connection }.map(\.capture)
    }

    /// How many local GATT servers `forEach` gives (several captures' local devices are named apart).
    public static func localServerCount(_ store: TimelineStore) throws -> Int {
        try Analyzer.analyze(store)
        return try localServers(store.database).count
    }

    /// Hands `body` every server's database in turn, analysing first when needed: the peers'
    /// own (under their addresses) in the order their first connection came, then the local
    /// devices', when a peer used them. A peer the local device was central to is listed even
    /// when nothing was discovered. Later connections win where they disagree.
    ///
    /// Only one server's database is held at a time, whatever the number of links (issue 17):
    /// the links are walked in id order, and at the first link of each peer address the
    /// address's links are read through the index on `peer_address`; no SQL sort holds them all.
    public static func forEach(_ store: TimelineStore, undiscovered: Bool = true, _ body: (DeviceGATT) throws -> Void) throws {
        try Analyzer.analyze(store)
        let db = store.database
        let firsts = try db.prepare(columns + """
             WHERE \(link("c")) AND \(serves(.remote, "c")) AND (c.peer_address IS NULL OR NOT EXISTS (
                SELECT 1 FROM connection e WHERE e.peer_address = c.peer_address AND e.id < c.id AND \(link("e")) AND \(serves(.remote, "e"))))
             ORDER BY c.id
            """)
        let sameAddress = try db.prepare(columns + " WHERE c.peer_address = ?1 AND \(link("c")) AND \(serves(.remote, "c")) ORDER BY c.id")
        while try firsts.step() {
            var d = DeviceGATT(address: firsts.text(1), addressType: firsts.text(2),
                               connectionIDs: [], database: GATTDatabase(), undiscoveredHandles: [])
            if let address = firsts.text(1) {
                try sameAddress.bind([.text(address)])
                while try sameAddress.step() {
                    d.connectionIDs.append(sameAddress.int64(0))
                    try merge(connection: sameAddress.int64(0), server: .remote, into: &d.database, db: db, findInformation: undiscovered)
                }
                sameAddress.reset()
            } else {
                // A peer of unknown address is its link's alone.
                d.connectionIDs.append(firsts.int64(0))
                try merge(connection: firsts.int64(0), server: .remote, into: &d.database, db: db, findInformation: undiscovered)
            }
            try body(try complete(d, undiscovered: undiscovered, db: db))
        }
        // The local servers last, after the devices (their connections are the peers' too).
        let members = try db.prepare(columns + " WHERE c.capture_id = ?1 AND \(link("c")) AND \(serves(.local, "c")) ORDER BY c.id")
        for capture in try localServers(db) {
            var d = DeviceGATT(address: nil, addressType: nil, connectionIDs: [], database: GATTDatabase(), undiscoveredHandles: [])
            d.isLocalServer = true
            var clients = Set<Client>()
            try members.bind([.integer(capture)])
            while try members.step() {
                let id = members.int64(0)
                if d.connectionIDs.isEmpty {
                    d.captureFileName = members.text(4)
                    d.isAirCapture = members.isNull(5) ? false : PcapLinkType(rawValue: UInt32(truncatingIfNeeded: members.int(5))).isAirCapture
                }
                let role = members.text(3)
                let peerRole = role == "peripheral" ? "central" : role == "central" ? "peripheral" : "unknown"
                let client = Client(address: members.text(1) ?? "connection \(id)", role: peerRole)
                if clients.insert(client).inserted { d.clients.append(client) }
                d.connectionIDs.append(id)
                try merge(connection: id, server: .local, into: &d.database, db: db, findInformation: undiscovered)
            }
            members.reset()
            try body(try complete(d, undiscovered: undiscovered, db: db))
        }
    }

    /// A server's database once all its connections are merged: the handles used but never
    /// discovered (with `undiscovered`), and the device's identity.
    static func complete(_ device: DeviceGATT, undiscovered: Bool, db: SQLiteDatabase) throws -> DeviceGATT {
        var d = device
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
        d.ciphertextFrom = try db.rows("""
            SELECT connection_id, min(packet_id) FROM link_event WHERE connection_id IN (\(ids)) AND name = ?1
            GROUP BY connection_id ORDER BY connection_id
            """, [.text(LinkLayerDecoder.ciphertextEventName)]).compactMap { r in
                guard let c = r[0].int, let p = r[1].int else { return nil }
                return (Int64(c), p)
            }
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

    /// Adds one connection's rows of `server`'s database to `g`. `findInformation`: also the
    /// attribute types its Find Information Responses listed (Core v5.4 Vol 3 Part F 3.4.3.2),
    /// read again from `att_pdu` since no table keeps a declaration never read; they tell such
    /// declarations, and what belongs to them, apart (`GATTDeclarations`).
    static func merge(connection id: Int64, server: GATTServerSide, into g: inout GATTDatabase, db: SQLiteDatabase,
                      findInformation: Bool = true) throws {
        let args: [SQLiteValue] = [.integer(id), .text(server.rawValue)]
        if findInformation {
            for r in try db.rows("""
                SELECT pdu FROM att_pdu WHERE connection_id = ?1 AND opcode = \(ATTOpcode.findInformationResponse.rawValue) AND cut = 0
                AND \(GATTServerSide.sql(direction: "direction", opcode: "opcode")) = ?2 ORDER BY packet_id
                """, args) {
                guard let bytes = r[0].blob, case .findInformationResponse(let rs)? = try? ATTPDU(decoding: bytes[...]) else { continue }
                for info in rs.information { g.attributeTypes[info.handle] = info.uuid }
            }
        }
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
