import BLECapture
import BLECore
import BLETimeline

/// How a sniffer's capture shows the end of a connection that holds no disconnection, as the
/// analysis stored it: read from the `finding` and `connection` rows, never inferred again.
///
/// An air capture (`PcapLinkType.isAirCapture`) holds no Disconnection Complete: a link seen to
/// end with a plaintext LL_TERMINATE_IND has its reason in `connection.disconnect_reason`
/// (BLEDecode takes it as one). For the others `diagnose` says, from the findings
/// `FindingsEngine.lostFromViewFindings` made:
/// - `connection-timeout-on-air`: the peripheral fell silent and the central stopped after the
///   supervision timeout: 0x08 Connection Timeout, or 0x3E Connection Failed to be Established
///   when the peripheral never answered (Core v5.4 Vol 6 Part B 4.5.2), inferred, at the link's
///   last packet (what `report` counts, `CaptureFactsLoader.loadInferredAirEndings`);
/// - `terminate-encrypted-on-air`: most likely an encrypted LL_TERMINATE_IND, its reason not in
///   the capture;
/// - otherwise, when the capture goes on past the link's last packet: the capture does not show
///   how it ended (`connection-lost-from-view` when it went on past the supervision timeout).
public struct AirEnding: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `connection-timeout-on-air`: the disconnect the central's controller reported, inferred.
        case inferredDisconnect(reason: HCIStatusCode)
        /// `terminate-encrypted-on-air`: the LL Control PDU (`packetID`) most likely an
        /// LL_TERMINATE_IND, from `sender` (`the central`, `the peripheral`, `one side`).
        case encryptedTermination(packetID: Int, sender: String)
        /// The capture does not show how the link ended; `finding` is `connection-lost-from-view`
        /// when the analysis made one (the capture went on past the supervision timeout).
        case notShown(finding: String?)
        /// On any capture, HCI too: a later Connection Complete (`packetID`) gave the link's handle
        /// to a new link while the capture still showed it open, so it had ended by then, its
        /// Disconnection Complete not in the capture (Core v5.4 Vol 4 Part E 7.7.65.1: a handle
        /// names one link while it exists; the timeline's `LinkEventName.handleReused`).
        case handleReused(packetID: Int)
    }

    public var connectionID: Int64
    public var kind: Kind
    /// The link's last packet (frame number), and its timestamp (Unix µs): where the ending is
    /// placed (inferred) or where the capture stops showing the link.
    public var lastPacketID: Int
    public var lastSeen: Int64
    /// How much longer the capture went on after `lastSeen`.
    public var captureWentOn: Int64

    public init(connectionID: Int64, kind: Kind, lastPacketID: Int, lastSeen: Int64, captureWentOn: Int64) {
        self.connectionID = connectionID
        self.kind = kind
        self.lastPacketID = lastPacketID
        self.lastSeen = lastSeen
        self.captureWentOn = captureWentOn
    }

    /// The finding codes that place an air link's end (`FindingsEngine.lostFromViewFindings`).
    public static let timeoutOnAirCode = "connection-timeout-on-air"
    public static let encryptedTerminationCode = "terminate-encrypted-on-air"
    public static let lostFromViewCode = "connection-lost-from-view"

    /// The reason a `connection-timeout-on-air` finding infers, from its title (which names it:
    /// `FindingsEngine.timeoutSeenOnAir`): 0x3E when the peripheral never answered, else 0x08.
    public static func inferredReason(findingTitle title: String) -> HCIStatusCode {
        HCIStatusCode(title.contains("0x3E") ? 0x3E : 0x08)
    }

    /// The sender a `terminate-encrypted-on-air` finding names in its title.
    public static func terminationSender(findingTitle title: String) -> String {
        title.contains("from the central") ? "the central" : title.contains("from the peripheral") ? "the peripheral" : "one side"
    }

    /// The links of a capture whose handle a later Connection Complete gave to a new link, with no
    /// Disconnection Complete of their own (`Kind.handleReused`), by connection id: the link's
    /// last packet is where the capture stops showing it.
    public static func handleReuses(_ db: SQLiteDatabase, captureID: Int64) throws -> [Int64: AirEnding] {
        let cid = SQLiteValue.integer(captureID)
        let captureEnd = try db.scalarInt("SELECT last_ts_us FROM capture WHERE id = ?1", [cid]) ?? 0
        var out: [Int64: AirEnding] = [:]
        for r in try db.rows("""
            SELECT c.id, c.last_packet_id, (SELECT ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.last_packet_id"))),
                   l.packet_id
            FROM link_event l JOIN connection c ON c.id = l.connection_id
            WHERE l.capture_id = ?1 AND l.name = ?2 AND c.disconnect_reason IS NULL ORDER BY c.id
            """, [cid, .text(LinkEventName.handleReused)]) {
            guard let id = r[0].int64, let last = r[1].int, let seen = r[2].int64, let by = r[3].int else { continue }
            out[id] = AirEnding(connectionID: id, kind: .handleReused(packetID: by), lastPacketID: last, lastSeen: seen,
                                captureWentOn: max(0, captureEnd - seen))
        }
        return out
    }

    /// The air endings of a capture's connections, by connection id: empty for an HCI capture.
    /// Only links with no disconnection and no controller closing, whose last packet comes before
    /// the capture's last (as `diagnose` reads them: `ConnectionDiagnosis.lostFromView`).
    public static func load(_ db: SQLiteDatabase, captureID: Int64) throws -> [Int64: AirEnding] {
        let cid = SQLiteValue.integer(captureID)
        guard let capture = try db.rows("SELECT link_type, last_ts_us FROM capture WHERE id = ?1", [cid]).first,
              let linkType = capture[0].int64, PcapLinkType(rawValue: UInt32(truncatingIfNeeded: linkType)).isAirCapture,
              let captureEnd = capture[1].int64 else { return [:] }
        var out: [Int64: AirEnding] = [:]
        for r in try db.rows("""
            SELECT c.id, c.last_packet_id, (SELECT ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.last_packet_id")))
            FROM connection c WHERE c.capture_id = ?1 AND c.disconnect_reason IS NULL AND c.disconnect_packet_id IS NULL ORDER BY c.id
            """, [cid]) {
            guard let id = r[0].int64, let last = r[1].int, let seen = r[2].int64, captureEnd > seen else { continue }
            out[id] = AirEnding(connectionID: id, kind: .notShown(finding: nil), lastPacketID: last, lastSeen: seen,
                                captureWentOn: captureEnd - seen)
        }
        guard !out.isEmpty else { return out }
        for r in try db.rows("""
            SELECT connection_id, code, title, evidence_packet_ids FROM finding
            WHERE capture_id = ?1 AND connection_id IS NOT NULL AND code IN (?2, ?3, ?4) ORDER BY connection_id
            """, [cid, .text(timeoutOnAirCode), .text(encryptedTerminationCode), .text(lostFromViewCode)]) {
            guard let id = r[0].int64, var ending = out[id] else { continue }
            let title = r[2].string ?? ""
            switch r[1].string {
            case timeoutOnAirCode:
                ending.kind = .inferredDisconnect(reason: inferredReason(findingTitle: title))
            case encryptedTerminationCode:
                let evidence = (r[3].string ?? "").split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                ending.kind = .encryptedTermination(packetID: evidence.first ?? ending.lastPacketID,
                                                    sender: terminationSender(findingTitle: title))
            default:
                if case .notShown = ending.kind { ending.kind = .notShown(finding: lostFromViewCode) }
            }
            out[id] = ending
        }
        return out
    }
}
