import BLECore

/// Link-layer state of an air capture (LINKTYPE 251, 256, 272): the connections seen, by
/// access address. `PacketDecoder` hands it every air record (see `PacketDecoder.decodeLinkLayer`);
/// the connection tracker and the L2CAP reassembler of the HCI path are shared, with a
/// synthetic handle per air connection.
///
/// Bounded: at most `maximumConnections` access addresses are remembered; past that, closed
/// connections are forgotten first, oldest first (noise on the air can produce many
/// one-packet "connections").
public struct LinkLayerDecoder: Sendable {
    /// The link types whose records are air captures.
    public static let linkTypes: Set<UInt16> = [SnifferHeader.plainLinkType, SnifferHeader.rfLinkType,
                                                SnifferHeader.nordicLinkType]
    static let maximumConnections = 1024
    /// The link event at a connection's first PDU whose payload is ciphertext the sniffer did
    /// not decrypt (Core v5.4 Vol 6 Part E 1): from it on, what the link carries (ATT, SMP, LL
    /// Control) is not known, which the diagnosis says rather than "no ATT".
    public static let ciphertextEventName = "LL payloads encrypted"
    /// The link event of the PHY a connection begins on (CONNECT_IND: LE 1M; AUX_CONNECT_REQ: its
    /// secondary channel's PHY, Core v5.4 Vol 6 Part B 2.3, 4.5), its fields named as LE PHY
    /// Update Complete's (`tx_phy`, `rx_phy`; Vol 4 Part E 7.7.65.12).
    public static let connectionPHYEventName = "Connection PHY"

    var connections: [UInt32: LinkLayerConnection] = [:]

    /// An extended advertisement whose data goes on in AUX_CHAIN_IND PDUs (Core v5.4 Vol 6 Part
    /// B 4.4.2.8): they carry the ADI but not the advertiser's address, which this keeps.
    struct Chain: Sendable {
        var address: BluetoothAddress
        var addressType: AddressType
        var eventType: UInt16
        var isScanResponse: Bool
    }

    /// Chains in progress by ADI (DID and SID), at most `maximumChains` (the oldest dropped).
    private(set) var chains: [UInt16: Chain] = [:]
    private var chainOrder: [UInt16] = []
    static let maximumChains = 64

    /// Remembers (or, with nil, ends) the chain of `adi`.
    mutating func setChain(_ chain: Chain?, adi: UInt16) {
        if chains.removeValue(forKey: adi) != nil { chainOrder.removeAll { $0 == adi } }
        guard let chain else { return }
        chains[adi] = chain
        chainOrder.append(adi)
        if chainOrder.count > Self.maximumChains { chains[chainOrder.removeFirst()] = nil }
    }

    public init() {}

    /// True for a record that carries an air frame: kind `.other` and a LE link-layer LINKTYPE
    /// as `rawType` (BLECapture's pcap reader marks them so).
    public static func isAirRecord(_ record: CaptureRecord) -> Bool {
        record.kind == .other && linkTypes.contains(record.rawType)
    }

    /// Stores `connection`, forgetting old ones past the bound. Returns the connections
    /// forgotten while still open (their handles must be closed by the caller).
    mutating func store(_ connection: LinkLayerConnection) -> [LinkLayerConnection] {
        connections[connection.accessAddress] = connection
        guard connections.count > Self.maximumConnections else { return [] }
        var evicted: [LinkLayerConnection] = []
        let byAge = connections.values.sorted { ($0.isOpen ? 1 : 0, $0.lastFrame) < ($1.isOpen ? 1 : 0, $1.lastFrame) }
        for c in byAge.prefix(connections.count - Self.maximumConnections) where c.accessAddress != connection.accessAddress {
            connections[c.accessAddress] = nil
            if c.isOpen { evicted.append(c) }
        }
        return evicted
    }
}
