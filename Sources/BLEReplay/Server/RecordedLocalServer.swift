import BLEAnalysis
import BLECore
import BLEDecode

/// The capture's own GATT server (the local device's, on links where it was the peripheral: LE
/// Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1) as a peripheral that a
/// `--central` script drives in the remote central's place (Docs/peripheral.md "A central
/// script against the local GATT server").
///
/// Each such connection is seen from the other side: what the local host sent is what the
/// simulated peripheral sends, what the remote central sent is what the script's host would send.
/// `BehaviourExtractor` then gives the local server's behaviour as it gives any peripheral's:
/// its recorded answers to the exact request bytes, its notifications anchored to the
/// subscription that started them, the local host's own Disconnect as the peripheral's ending,
/// a link loss as recorded. The database is the one the remote central discovered
/// (`GATTServerReconstructor` over the local server's PDUs).
public enum RecordedLocalServer {
    /// The model's key and label in reports.
    public static let key = "local GATT server"

    /// Established connections on which the local device was the peripheral.
    public static func connections(_ session: RecordedSession) -> [RecordedConnection] {
        session.connections.filter { $0.isEstablished && $0.role == "peripheral" }
    }

    /// Whether a central script drives the local server: asked for (`"server": "local"`), or by
    /// default when the capture has links with the local device as peripheral and none with it
    /// as central (there is no recorded peripheral to drive).
    public static func applies(_ session: RecordedSession, script: CentralScript) -> Bool {
        switch script.server {
        case .local: return true
        case .remote: return false
        case nil:
            let established = session.connections.filter(\.isEstablished)
            return !established.isEmpty && established.allSatisfy { $0.role == "peripheral" }
        }
    }

    /// The local GATT server as the remote centrals read it, from the requests they sent and the
    /// answers and notifications the local server gave.
    public static func database(_ session: RecordedSession) -> GATTDatabase {
        var r = GATTServerReconstructor()
        for c in connections(session) {
            for p in c.pdus where !p.data.isEmpty {
                let kind = ATTOpcode(p.data[0]).kind
                // Only the exchange between the local server and its client (GATTServerSide.local).
                let serverSide = p.fromCentral ? [.response, .notification, .indication].contains(kind)
                    : [.request, .command, .confirmation].contains(kind)
                guard serverSide else { continue }
                let bytes = p.bytes
                r.add(StoredATTPDU(packetID: p.packetID, timestamp: p.time, direction: p.fromCentral ? .sent : .received,
                                   opcode: ATTOpcode(bytes[0]), pdu: try? ATTPDU(decoding: bytes[...]), bytes: bytes))
            }
        }
        return r.database
    }

    /// The local server as a peripheral model: one behaviour per recorded connection, in order;
    /// nil when the capture has no link with the local device as peripheral.
    public static func model(_ session: RecordedSession) -> PeripheralModel? {
        let links = connections(session)
        guard !links.isEmpty else { return nil }
        let gatt = database(session)
        let extractor = BehaviourExtractor(gatt: gatt)
        let name = ModelBuilder.deviceName(gatt)
        var adv = AdvertisingModel.synthesized(name: name, services: gatt.services.filter(\.isPrimary).map(\.uuid))
        adv.connectable = true
        let behaviours = links.map { extractor.extract(seenFromTheCentral($0)).peer }
        return PeripheralModel(key: key, address: nil, name: name, advertising: adv, gatt: gatt, extractor: extractor,
                               behaviours: behaviours)
    }

    /// The connection as the remote central's host saw it: every PDU's direction turned round;
    /// the local host's Disconnect becomes the peripheral's ending, with the reason it gave (the
    /// one LL_TERMINATE_IND carries, Core v5.4 Vol 6 Part B 2.4.2.2) at the recorded Disconnection
    /// Complete, none when the capture ended before it; the remote central's own end of the link
    /// (0x13, 0x16, …) is the central's doing, which the script now decides, so the peripheral's
    /// behaviour has no ending for it; a link loss (0x08) stays. The local controller's buffer
    /// returns and security are the other side's and are left out.
    static func seenFromTheCentral(_ c: RecordedConnection) -> RecordedConnection {
        var f = c
        f.role = "central"
        f.pdus = c.pdus.map { RecordedPDU(packetID: $0.packetID, time: $0.time, fromCentral: !$0.fromCentral, data: $0.data) }
        f.completionRange = 0..<0
        f.security = []
        f.localDisconnect = nil
        if let d = c.disconnect {
            if let local = c.localDisconnect, local.time <= d.time {
                f.disconnect = (d.time, HCIStatusCode(local.reason), d.packetID)
            } else if d.reason.rawValue != 0x08 {
                f.disconnect = nil
            }
        }
        return f
    }

    /// The note a script run against the local server carries.
    static func note(_ session: RecordedSession) -> String {
        let n = connections(session).count
        return "the script plays the remote central against the capture's local GATT server (the local device was the peripheral, "
            + "LE Connection Complete role 0x01, on \(n) recorded connection(s)): it answers as the local server answered and notifies "
            + "as it notified after each subscription; the written capture is the scripted central's own HCI"
    }
}
