/// A pcap / pcapng LINKTYPE value (tcpdump.org "Link-layer header types"; REFERENCE.md "pcap").
public struct PcapLinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// LINKTYPE_PPI: a Per-Packet Information header wraps another link type.
    public static let ppi = PcapLinkType(rawValue: 192)
    /// LINKTYPE_BLUETOOTH_HCI_H4: an H4 packet, no direction.
    public static let bluetoothHCIH4 = PcapLinkType(rawValue: 187)
    /// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR: 4-byte big-endian direction, then H4.
    public static let bluetoothHCIH4WithPHDR = PcapLinkType(rawValue: 201)
    /// LINKTYPE_BLUETOOTH_LE_LL: an air capture of LE link-layer packets.
    public static let bluetoothLELL = PcapLinkType(rawValue: 251)
    /// LINKTYPE_BLUETOOTH_LINUX_MONITOR: 2-byte adapter, 2-byte opcode (big-endian), payload.
    public static let bluetoothLinuxMonitor = PcapLinkType(rawValue: 254)
    /// LINKTYPE_BLUETOOTH_BREDR_BB: an air capture of BR/EDR baseband packets.
    public static let bluetoothBREDRBB = PcapLinkType(rawValue: 255)
    /// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR: LE link-layer air capture with an RF pseudo-header.
    public static let bluetoothLELLWithPHDR = PcapLinkType(rawValue: 256)
    /// LINKTYPE_NORDIC_BLE: the nRF Sniffer's LE link-layer air capture.
    public static let nordicBLE = PcapLinkType(rawValue: 272)

    /// The HCI link types BLECapture reads and writes.
    public static let supported: [PcapLinkType] = [.bluetoothHCIH4, .bluetoothHCIH4WithPHDR, .bluetoothLinuxMonitor]

    /// The LE link-layer (air) link types BLECapture reads (not writes): each frame, pseudo-header
    /// included, becomes an `.other` record whose `rawType` is the link type (BLEDecode decodes it).
    public static let leLinkLayer: [PcapLinkType] = [.bluetoothLELL, .bluetoothLELLWithPHDR, .nordicBLE]

    /// The layer a packet of a link type is decoded at: the host-controller interface, or the
    /// radio (air).
    public enum DecodedLayer: Sendable, Hashable {
        /// 187, 201, 254: HCI packets as a host exchanges them with its controller.
        case hci
        /// 251, 256, 272, and 192 (PPI, around 251/256): LE link-layer frames from a sniffer.
        case air
    }

    /// The layer BLECapture reads a packet of this link type at; nil for the link types it does
    /// not read (Ethernet, BR/EDR baseband, ...), whose packets in a pcapng of several
    /// interfaces are skipped (`PcapReader`).
    public var decodedLayer: DecodedLayer? {
        if Self.supported.contains(self) { return .hci }
        if Self.leLinkLayer.contains(self) || self == .ppi { return .air }
        return nil
    }

    /// Bytes from the start of a packet of this link type to the HCI payload the decoders count
    /// from (`DecoderOptions.forCapture`): the H4 type byte (187), the 4-byte direction and the
    /// type byte (201), the 4-byte adapter index and opcode (254); 0 for the others, whose whole
    /// frame is handed on.
    public var payloadStart: Int {
        switch self {
        case .bluetoothHCIH4: 1
        case .bluetoothHCIH4WithPHDR: 5
        case .bluetoothLinuxMonitor: 4
        default: 0
        }
    }

    /// The link types whose packets libpcap 1.10 alters as it reads them (`pcap_post_process`
    /// in pcap-common.c: pseudo-headers byte-swapped in a file of the other byte order, the
    /// USB mmapped length fixed up): LINUX_SLL 113, PFLOG 117, USB_LINUX 189,
    /// USB_LINUX_MMAPPED 220, NFLOG 239, LINUX_SLL2 276.
    static let postProcessedByLibpcap: Set<UInt32> = [113, 117, 189, 220, 239, 276]

    /// True for captures of radio traffic (sniffers), a different layer from HCI: PPI (192) too,
    /// which BLECapture reads only around LE link-layer packets (251/256, as Ubertooth writes
    /// them; `decodedLayer` .air), so a PPI capture's links are seen from the air, as a plain
    /// LINKTYPE 251 capture's are.
    public var isAirCapture: Bool {
        self == .bluetoothLELL || self == .bluetoothLELLWithPHDR || self == .nordicBLE || self == .bluetoothBREDRBB || self == .ppi
    }

    /// The tcpdump.org name, e.g. `LINKTYPE_NORDIC_BLE`.
    public var name: String {
        switch rawValue {
        case 1: "LINKTYPE_ETHERNET"
        case 105: "LINKTYPE_IEEE802_11"
        case 127: "LINKTYPE_IEEE802_11_RADIOTAP"
        case 187: "LINKTYPE_BLUETOOTH_HCI_H4"
        case 192: "LINKTYPE_PPI"
        case 201: "LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR"
        case 251: "LINKTYPE_BLUETOOTH_LE_LL"
        case 254: "LINKTYPE_BLUETOOTH_LINUX_MONITOR"
        case 255: "LINKTYPE_BLUETOOTH_BREDR_BB"
        case 256: "LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR"
        case 272: "LINKTYPE_NORDIC_BLE"
        default: "unnamed LINKTYPE"
        }
    }

    /// `NAME (number)`, e.g. `LINKTYPE_NORDIC_BLE (272)`.
    public var description: String { "\(name) (\(rawValue))" }
}
