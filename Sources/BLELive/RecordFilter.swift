import BLECore
import BLEDecode

/// Which records a recording keeps (`--address`, `--le-only`); the btsnoop output and the
/// timeline then hold only those records, numbered as kept.
///
/// Decisions are made by a packet decoder of its own that sees every record (kept or not),
/// so it knows which connection handle belongs to which peer and transport.
///
/// `--address A` keeps: advertising report events with a report from A (an event that also
/// carries other devices' reports is kept whole); connection-complete events with peer A (any
/// status) and, from then on, every command, event and ACL packet the decoder ties to that
/// connection (disconnect, encryption, parameter updates, ATT, SMP, signalling); LE Create
/// Connection commands that target A; and the Command Status/Complete answering a kept
/// command. Everything else (other devices, scanning set-up, controller notes) is dropped.
///
/// `--le-only` drops SCO; ACL and connection events on BR/EDR handles; BR/EDR-only events
/// (inquiry, classic connection set-up, link keys, secure simple pairing, role and mode
/// changes, …); Link Control commands other than Disconnect and Read Remote Version
/// Information, and Link Policy commands, with their Command Status/Complete. Controller
/// set-up (OGF 0x03, 0x04, 0x05) and LE commands stay.
public struct RecordFilter: Sendable {
    public var address: BluetoothAddress?
    public var leOnly: Bool

    public init(address: BluetoothAddress? = nil, leOnly: Bool = false) {
        self.address = address
        self.leOnly = leOnly
    }

    public var isActive: Bool { address != nil || leOnly }

    /// Event codes only BR/EDR links produce (Core v5.4 Vol 4 Part E 7.7).
    static let classicEventCodes: Set<UInt8> = [
        0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x09, 0x0A, 0x0B, 0x0D, 0x12, 0x14, 0x15, 0x16, 0x17, 0x18,
        0x1B, 0x1C, 0x1D, 0x1E, 0x20, 0x21, 0x22, 0x23, 0x2C, 0x2D, 0x2E, 0x2F, 0x31, 0x32, 0x33, 0x34,
        0x35, 0x36, 0x38, 0x39, 0x3B, 0x3C, 0x3D,
    ]

    /// Link Control (OGF 0x01) except Disconnect (0x0406) and Read Remote Version Information
    /// (0x041D), which LE uses too, and Link Policy (OGF 0x02).
    static func isClassicCommand(_ opcode: UInt16) -> Bool {
        let ogf = opcode >> 10, ocf = opcode & 0x03FF
        return (ogf == 0x01 && ocf != 0x0006 && ocf != 0x001D) || ogf == 0x02
    }
}

/// Decodes every record on the way in, for the filter and the status line.
struct TrafficObserver {
    let filter: RecordFilter
    private(set) var stats = TrafficStats()
    private var decoder = PacketDecoder()
    /// Connection ordinals on BR/EDR links.
    private var classicConnections: Set<Int> = []
    /// Connection ordinals of the `--address` device.
    private var trackedConnections: Set<Int> = []
    /// Kept commands still waiting for their Command Status/Complete, by opcode.
    private var awaitingResult: [UInt16: Int] = [:]

    init(filter: RecordFilter) {
        self.filter = filter
    }

    /// Whether the recording keeps `record`; counts it in `stats` when it does.
    mutating func observe(_ record: CaptureRecord) -> Bool {
        let packet = decoder.decode(record)
        for event in packet.events {
            switch event {
            case .connectionComplete(let c) where c.transport == .bredr:
                classicConnections.insert(c.connection.index)
            case .connectionFoundInProgress(let ref, let transport) where transport == .bredr:
                classicConnections.insert(ref.index)
            case .transportLearned(let ref, let transport, _):
                if transport == .bredr { classicConnections.insert(ref.index) } else { classicConnections.remove(ref.index) }
            default:
                break
            }
        }
        let keep = (!filter.leOnly || !isClassic(record, packet)) && (filter.address.map { concerns(packet, $0) } ?? true)
        if keep { stats.count(packet) }
        return keep
    }

    private func connections(of packet: DecodedPacket) -> [Int] {
        var refs: [ConnectionRef?] = [packet.connection]
        for event in packet.events {
            switch event {
            case .connectionComplete(let c): refs.append(c.connection)
            case .connectionFoundInProgress(let ref, _): refs.append(ref)
            case .disconnectionComplete(let d): refs.append(d.connection)
            case .connectionUpdate(let u): refs.append(u.connection)
            case .command(let c): refs.append(c.connection)
            case .commandResult(let r): refs.append(r.connection)
            case .encryptionChange(let e): refs.append(e.connection)
            case .linkEvent(let l): refs.append(l.connection)
            case .att(let a): refs.append(a.connection)
            case .smp(let s): refs.append(s.connection)
            case .signaling(let s): refs.append(s.connection)
            default: break
            }
        }
        return refs.compactMap { $0?.index }
    }

    private func isClassic(_ record: CaptureRecord, _ packet: DecodedPacket) -> Bool {
        let onClassicLink = connections(of: packet).contains { classicConnections.contains($0) }
        switch record.kind {
        case .sco:
            return true
        case .acl:
            return onClassicLink
        case .command:
            guard record.payload.count >= 2 else { return false }
            let opcode = UInt16(record.payload[0]) | UInt16(record.payload[1]) << 8
            return RecordFilter.isClassicCommand(opcode) || onClassicLink
        case .event:
            guard let code = record.payload.first else { return false }
            if RecordFilter.classicEventCodes.contains(code) { return true }
            if let opcode = resultOpcode(record.payload), RecordFilter.isClassicCommand(opcode) { return true }
            return onClassicLink
        default:
            return false
        }
    }

    /// The opcode a Command Complete (0x0E) or Command Status (0x0F) event answers.
    private func resultOpcode(_ payload: [UInt8]) -> UInt16? {
        let at: Int
        switch payload.first {
        case 0x0E: at = 3
        case 0x0F: at = 4
        default: return nil
        }
        guard payload.count >= at + 2 else { return nil }
        return UInt16(payload[at]) | UInt16(payload[at + 1]) << 8
    }

    private mutating func concerns(_ packet: DecodedPacket, _ address: BluetoothAddress) -> Bool {
        var keep = false
        for event in packet.events {
            switch event {
            case .advertisingReport(let r) where r.address == address:
                keep = true
            case .connectionComplete(let c) where c.peerAddress == address:
                trackedConnections.insert(c.connection.index)
                keep = true
            case .command(let c) where c.peerAddress == address:
                keep = true
            default:
                break
            }
        }
        if connections(of: packet).contains(where: { trackedConnections.contains($0) }) { keep = true }
        for event in packet.events {
            switch event {
            case .command(let c) where keep:
                awaitingResult[c.opcode, default: 0] += 1
            case .commandResult(let r):
                if let waiting = awaitingResult[r.opcode], waiting > 0 {
                    awaitingResult[r.opcode] = waiting > 1 ? waiting - 1 : nil
                    keep = true
                }
            default:
                break
            }
        }
        return keep
    }
}
