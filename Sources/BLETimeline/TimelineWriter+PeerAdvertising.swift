import BLECore
import BLEDecode

/// The fleet report's scratch timelines keep only the advertising reports of connection peers
/// (`TimelineWriter.advertisingOfPeersOnly`, set with `referencedPacketRowsOnly` for a capture
/// that is alone in its timeline, never by `import`).
///
/// What `report` reads of advertising is the `devices` row of each connection's peer
/// (`CaptureFactsLoader.loadDevices`), which `DeviceIdentity.rebuild` makes from that address's
/// own reports. The reports are held while the capture is written and, at `finish`, those whose
/// address a `connection` row names are stored, in capture order, as `import` stores them: the
/// peers' `device` rows are what a full import makes, and no other device's are made. Held
/// reports are bounded (`holdLimit` bytes): past it every report is written, as by `import`.
struct PeerAdvertisingReports {
    /// One `adv_report` row, as the writer binds it.
    struct Row {
        var frame: Int
        var timestamp: Int64
        var address: BluetoothAddress
        var addressType: AddressType
        var eventType: UInt16
        var isExtended: Bool
        var isScanResponse: Bool
        var rssi: Int8?
        var name: String?
        var txPower: Int8?
        var data: [UInt8]

        init(_ r: AdvertisingReport, frame: Int, timestamp: Int64) {
            self.frame = frame
            self.timestamp = timestamp
            address = r.address
            addressType = r.addressType
            eventType = r.eventType
            isExtended = r.isExtended
            isScanResponse = r.isScanResponse
            rssi = r.rssi
            name = r.parsed.localName
            txPower = r.txPower ?? r.parsed.txPowerLevel
            data = r.data
        }

        /// What holding the row costs, roughly: its bytes and the row itself.
        var heldBytes: Int { data.count + (name?.utf8.count ?? 0) + 96 }
    }

    /// Bytes of reports held at most (a few MiB: what a small capture's reports take).
    static let holdLimit = 8 << 20

    /// Reports not written yet, in capture order.
    var held: [Row] = []
    var heldBytes = 0
    /// The limit was passed: reports are written as they come.
    var overflowed = false
}

extension TimelineWriter {
    /// Writes one advertising report, or holds it (`PeerAdvertisingReports`).
    func advertisingReport(_ report: AdvertisingReport, frame: Int, ts: Int64) throws(SQLiteError) {
        let row = PeerAdvertisingReports.Row(report, frame: frame, timestamp: ts)
        guard advertisingOfPeersOnly, !peerAdvertising.overflowed else {
            try insertAdvertisingRow(row)
            return
        }
        peerAdvertising.held.append(row)
        peerAdvertising.heldBytes += row.heldBytes
        if peerAdvertising.heldBytes > advertisingHoldLimit {
            // Past the limit: memory stays bounded, and the rows are what `import` writes.
            for held in peerAdvertising.held { try insertAdvertisingRow(held) }
            peerAdvertising = PeerAdvertisingReports()
            peerAdvertising.overflowed = true
        }
    }

    /// Writes the held reports of the addresses a connection row names, in capture order.
    func writePeerAdvertisingReports() throws(SQLiteError) {
        defer { peerAdvertising = PeerAdvertisingReports() }
        guard !peerAdvertising.held.isEmpty else { return }
        let peers = Set(try db.rows("SELECT DISTINCT peer_address FROM connection WHERE peer_address IS NOT NULL")
            .compactMap { $0[0].string })
        var isPeer: [BluetoothAddress: Bool] = [:]
        for row in peerAdvertising.held {
            let keep: Bool
            if let known = isPeer[row.address] {
                keep = known
            } else {
                keep = peers.contains(row.address.description)
                isPeer[row.address] = keep
            }
            if keep { try insertAdvertisingRow(row) }
        }
    }

    func insertAdvertisingRow(_ r: PeerAdvertisingReports.Row) throws(SQLiteError) {
        let s = insertAdv
        s.bindInt(captureID, at: 1)
        s.bindInt(r.frame, at: 2)
        s.bindInt(r.timestamp, at: 3)
        s.bindText(r.address.description, at: 4)
        s.bindText(r.addressType.name, at: 5)
        s.bindInt(Int(r.eventType), at: 6)
        s.bindInt(r.isExtended ? 1 : 0, at: 7)
        s.bindInt(r.isScanResponse ? 1 : 0, at: 8)
        s.bindInt(r.rssi.map { Int($0) }, at: 9)
        s.bindText(r.name, at: 10)
        s.bindInt(r.txPower.map { Int($0) }, at: 11)
        s.bindBlob(r.data, at: 12)
        try s.run()
    }
}
