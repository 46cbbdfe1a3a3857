import BLEAnalysis
import BLECore

/// A recorded remote device, ready to be simulated (DESIGN.md "Replay semantics", recorded
/// peripheral model): identity, advertising, GATT database and values, and its behaviour in each
/// recorded connection. The n-th connection to it behaves like the n-th recorded one, then the last.
public struct PeripheralModel: Sendable {
    /// Address text, or `connection N` when the capture never named the peer.
    public var key: String {
        get { storedKey ?? "connection \(unnamedConnection)" }
        set {
            if let id = Self.unnamedConnection(newValue) {
                storedKey = nil
                unnamedConnection = id
            } else {
                storedKey = newValue
            }
        }
    }
    /// `key`, unless it is `connection N` (`unnamedConnection` then holds N): that one is made
    /// when asked for, not stored, since every peer a capture never names has one (64 bytes a
    /// link from `connection 10000` on, issue 17).
    private var storedKey: String?
    private var unnamedConnection: Int64 = 0

    /// N, when `key` is exactly `connection N`.
    static func unnamedConnection(_ key: String) -> Int64? {
        guard key.hasPrefix("connection "), let id = Int64(key.dropFirst("connection ".count)),
              "connection \(id)" == key else { return nil }
        return id
    }
    public var address: PeerAddress?
    /// Its name and advertising, held once for every peer whose are the same (`Presence`).
    private var presence: Presence
    public var name: String? {
        get { presence.name }
        set { presence = Presence(name: newValue, advertising: presence.advertising) }
    }
    /// True when `text` is its name: the GAP Device Name or the name it advertised (a device
    /// often advertises a shortened name of its own). How a script's `peripheral`, a `scan`'s
    /// `name` and a `connect` without a scan pick a device, all alike.
    public func isNamed(_ text: String) -> Bool {
        name == text || advertising.localName == text
    }
    public var advertising: AdvertisingModel {
        get { presence.advertising }
        set { presence = Presence(name: presence.name, advertising: newValue) }
    }
    public var gatt: GATTDatabase {
        get { database.gatt }
        set { database = PeerDatabase.make(gatt: newValue, extractor: database.extractor) }
    }
    /// Finds subscriptions (CCCD writes) the way the behaviours were extracted.
    public var extractor: BehaviourExtractor {
        get { database.extractor }
        set { database = PeerDatabase.make(gatt: database.gatt, extractor: newValue) }
    }
    /// `gatt` and `extractor`, held apart (`PeerDatabase`): one shared when both are empty.
    private var database: PeerDatabase
    public var behaviours: [PeerBehaviour]
    /// The recording shows it gone after its last connection: lost, and not heard again while
    /// others were (ModelBuilder.isGone).
    public var goneAfterLastConnection = false
    /// False for a peer the recording shows only on BR/EDR (GATT over BR/EDR) and never advertising
    /// on LE: it is paged, not found by an LE scan, so the replay makes up no LE advertising for it.
    public var advertisesOnLE = true

    public init(key: String, address: PeerAddress?, name: String?, advertising: AdvertisingModel, gatt: GATTDatabase,
                extractor: BehaviourExtractor, behaviours: [PeerBehaviour]) {
        self.init(key: key, address: address, presence: Presence(name: name, advertising: advertising), gatt: gatt,
                  extractor: extractor, behaviours: behaviours)
    }

    init(key: String, address: PeerAddress?, presence: Presence, gatt: GATTDatabase, extractor: BehaviourExtractor,
         behaviours: [PeerBehaviour]) {
        self.address = address
        self.presence = presence
        database = PeerDatabase.make(gatt: gatt, extractor: extractor)
        self.behaviours = behaviours
        self.key = key
    }

    /// The label reports use: `Pulse HRM (C4:7A:3B:12:9E:51)`.
    public var label: String {
        if let name, !name.isEmpty { return "\(name) (\(key))" }
        return key
    }
}

/// A peer's name and advertising, immutable, so that peers whose are the same share one: every
/// peer a capture never names (`connection N`) has the same made-up advertising, and each model held
/// a copy of it and of its bytes (issue 17). `ModelBuilder` hands out one per distinct content.
final class Presence: Sendable {
    let name: String?
    let advertising: AdvertisingModel

    init(name: String?, advertising: AdvertisingModel) {
        self.name = name
        self.advertising = advertising
    }

    /// What two peers must both have to share a `Presence`.
    struct Content: Hashable {
        var name: String?
        var advertising: AdvertisingModel
    }

    /// One `Presence` per distinct content.
    struct Interner {
        private var shared: [Content: Presence] = [:]

        mutating func presence(name: String?, advertising: AdvertisingModel) -> Presence {
            let content = Content(name: name, advertising: advertising)
            if let p = shared[content] { return p }
            let p = Presence(name: name, advertising: advertising)
            shared[content] = p
            return p
        }
    }
}

/// Builds the peripheral models and the recorded centrals of a session.
public enum ModelBuilder {
    public struct Result: Sendable {
        public var peripherals: [PeripheralModel]
        /// Per recorded connection id: the recorded central's script.
        public var centrals: [Int64: RecordedCentral]
        /// Per recorded connection id: the peripheral behaviour and the model it belongs to.
        public var behaviourOf: [Int64: (model: Int, behaviour: Int)]
    }

    /// - Parameters:
    ///   - jobs: the threads that extract the connections' behaviours; the models are the same
    ///     whatever the number.
    ///   - databaseAnswers: false when nothing will answer from the database (a faithful replay
    ///     without `--unmatched database`): the models then hold no GATT database, and their
    ///     behaviours no value history and no answers split by encryption (`BehaviourExtractor
    ///     .extract(_:databaseAnswers:)`), which only those answers and a modelled link security
    ///     read (issue 17: with every link's model built, a peer's recorded values and a
    ///     behaviour's value history were 270 bytes a link, held to the end of the run).
    public static func build(_ session: RecordedSession, jobs: Int = WorkerPool.processorCount,
                             databaseAnswers: Bool = true) -> Result {
        var models: [PeripheralModel] = []
        var index: [PeerIndexKey: Int] = [:]
        var centrals: [Int64: RecordedCentral] = [:]
        var behaviourOf: [Int64: (Int, Int)] = [:]
        var presences = Presence.Interner()
        // Peers connected over LE at least once (the others were reached on BR/EDR only).
        let leConnected = Set(session.connections.filter { $0.transport == .le }.map(PeerIndexKey.init))
        forEachExtracted(session, jobs: jobs, databaseAnswers: databaseAnswers) { c, peer, central in
            let key = RecordedSession.peerKey(c)
            let peerIndex = PeerIndexKey(c)
            let gatt = session.gatt[key] ?? GATTDatabase()
            if index[peerIndex] == nil {
                index[peerIndex] = models.count
                let name = deviceName(gatt) ?? session.advertising[key]?.localName
                var adv = session.advertising[key]
                    ?? AdvertisingModel.synthesized(name: name, services: gatt.services.filter(\.isPrimary).map(\.uuid))
                // It was connected to, so it advertised connectably at some point (directed
                // advertising, or reports the capture missed), whatever its last reports said.
                adv.connectable = true
                models.append(PeripheralModel(key: key, address: c.peer, presence: presences.presence(name: name, advertising: adv),
                                              gatt: databaseAnswers ? gatt : GATTDatabase(), extractor: BehaviourExtractor(gatt: gatt),
                                              behaviours: []))
                models[models.count - 1].advertisesOnLE = session.advertising[key] != nil || leConnected.contains(peerIndex)
            }
            let m = index[peerIndex]!
            models[m].goneAfterLastConnection = isGone(after: c, key: key, in: session)
            behaviourOf[c.id] = (m, models[m].behaviours.count)
            models[m].behaviours.append(peer)
            centrals[c.id] = central
        }
        // Every other advertiser of the capture: connectable ones can be scanned and connected to
        // (with no recorded behaviour); non-connectable ones (beacons) are reported by scans and
        // never accept a connection. Connectable ones come first so that adding the others leaves
        // the index (and so the advertising phase) of every connectable device as it was.
        let others = session.advertising.sorted { $0.key < $1.key }.filter { index[PeerIndexKey($0.key)] == nil }
        for (address, adv) in others.filter({ $0.value.connectable }) + others.filter({ !$0.value.connectable }) {
            index[PeerIndexKey(address)] = models.count
            models.append(PeripheralModel(key: address, address: PeerAddress(text: address, typeName: adv.addressType ?? "random"),
                                          presence: presences.presence(name: adv.localName, advertising: adv), gatt: GATTDatabase(),
                                          extractor: BehaviourExtractor(gatt: nil), behaviours: []))
        }
        return Result(peripherals: models, centrals: centrals, behaviourOf: behaviourOf)
    }

    /// At most this many connections are extracted in one parallel pass (the results in flight).
    static let extractionChunk = 8_192

    /// Calls `body` for every established connection of the session, in connection order, with
    /// its peer's behaviour and the recorded central's script (`BehaviourExtractor.extract`). Each
    /// connection is extracted on its own, from its peer's GATT database, so `WorkerPool`'s threads
    /// share them out (issue 12: extraction was a fifth of a dense session's replay, on one core of
    /// two), a chunk of connections at a time.
    static func forEachExtracted(_ session: RecordedSession, jobs: Int, databaseAnswers: Bool = true,
                                 _ body: (RecordedConnection, PeerBehaviour, RecordedCentral) -> Void) {
        let established = session.connections.indices.filter { session.connections[$0].isEstablished }
        var start = 0
        while start < established.count {
            let chunk = Array(established[start..<min(established.count, start + extractionChunk)])
            let extracted = WorkerPool.map(count: chunk.count, jobs: jobs) { i in
                let c = session.connections[chunk[i]]
                return BehaviourExtractor(gatt: session.gatt[RecordedSession.peerKey(c)] ?? GATTDatabase()).extract(c, databaseAnswers: databaseAnswers)
            }
            for (i, (peer, central)) in extracted.enumerated() { body(session.connections[chunk[i]], peer, central) }
            start += chunk.count
        }
    }

    /// Whether the recording shows the peer gone after connection `c` (Docs/replay.md "The
    /// simulated central host"): the link was lost (0x08), and the capture heard advertising after
    /// the loss (the central scanned; some device's report came later) but none from this peer.
    static func isGone(after c: RecordedConnection, key: String, in session: RecordedSession) -> Bool {
        guard let d = c.disconnect, d.reason.rawValue == 0x08 else { return false }
        let lost = c.origin.saturatingAdding(d.time)
        let heardLater = session.advertising.values.contains { ($0.lastReportTime ?? .min) > lost }
        return heardLater && (session.advertising[key]?.lastReportTime ?? .min) <= lost
    }

    /// Drops every recorded value of the databases but the GAP Device Name's (`deviceName`): all
    /// that building models with `databaseAnswers` false reads of them, with their declarations
    /// (issue 17: a database's values were 180 bytes a link of 61,424 while the models were built).
    static func dropUnreadValues(_ gatt: inout [String: GATTDatabase]) {
        // By index, in place: iterating `indices` would hold a second reference to the table, and
        // the first change would copy it whole.
        var i = gatt.startIndex
        while i != gatt.endIndex {
            if !gatt.values[i].values.isEmpty {
                let name = gatt.values[i].characteristics.first { $0.uuid == deviceNameUUID }
                    .flatMap { c in gatt.values[i].values[c.valueHandle].map { (c.valueHandle, $0) } }
                gatt.values[i].values = name.map { [$0.0: $0.1] } ?? [:]
            }
            i = gatt.index(after: i)
        }
    }

    static let deviceNameUUID = BluetoothUUID(uint16: 0x2A00)

    /// The GAP Device Name (0x2A00, Core v5.4 Vol 3 Part C 12.1: a UTF-8 string) value, when it
    /// was read, without the NUL padding firmware that serves a fixed-size buffer puts after the
    /// name (as the advertised Local Name drops it): "Sensor-XY\0\0\0" is named "Sensor-XY".
    static func deviceName(_ gatt: GATTDatabase) -> String? {
        guard let c = gatt.characteristics.first(where: { $0.uuid == deviceNameUUID }),
              let v = gatt.values[c.valueHandle] else { return nil }
        var bytes = v.bytes[...]
        while bytes.last == 0 { bytes.removeLast() }
        guard !bytes.isEmpty else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
