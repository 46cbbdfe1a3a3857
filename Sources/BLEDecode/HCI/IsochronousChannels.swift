import BLECore

/// Connected isochronous streams (CIS) by handle, per controller (Core v5.4 Vol 4 Part E
/// 7.7.65.25-26, 7.8.99): a CIS has its own connection handle, distinct from the ACL
/// connection it was set up on. Learnt from LE CIS Request (ACL and CIS handles), LE Create CIS
/// (pairs of CIS and ACL handles) and LE CIS Established (status 0x00 opens the CIS); a
/// Disconnection Complete on a CIS handle ends the CIS, not an LE connection. Bounded: at most
/// `capacity` handles.
struct IsochronousChannels: Sendable {
    struct CIS: Sendable {
        /// The ACL connection the CIS belongs to, when the capture showed it.
        var acl: ConnectionRef?
        var established: Bool
    }

    static let capacity = 0x0F00
    private(set) var streams: [UInt32: CIS] = [:]
    /// The BIS handles of each BIG (Core v5.4 Vol 4 Part E 7.7.65.27 LE Create BIG Complete,
    /// 7.7.65.29 LE BIG Sync Established), by controller and BIG_Handle: a BIS is no ACL link
    /// and has no Disconnection Complete; LE Terminate BIG Complete (7.7.65.28) and LE BIG Sync
    /// Lost (7.7.65.30) end them all.
    private var bigs: [UInt32: [UInt16]] = [:]
    private var broadcastStreams: Set<UInt32> = []

    private static func key(_ controller: UInt16, _ handle: UInt16) -> UInt32 {
        UInt32(controller) << 16 | UInt32(handle)
    }

    func cis(controller: UInt16, handle: UInt16) -> CIS? {
        streams.isEmpty ? nil : streams[Self.key(controller, handle)]
    }

    /// A CIS being set up on `acl` (CIS Request, Create CIS).
    mutating func proposed(controller: UInt16, handle: UInt16, acl: ConnectionRef?) {
        if streams.count >= Self.capacity { streams.removeAll() }
        let k = Self.key(controller, handle)
        streams[k] = CIS(acl: acl ?? streams[k]?.acl, established: streams[k]?.established ?? false)
    }

    /// LE CIS Established: status 0x00 opens it, another status ends the attempt.
    mutating func established(controller: UInt16, handle: UInt16, success: Bool) -> CIS? {
        let k = Self.key(controller, handle)
        guard success else { return streams.removeValue(forKey: k) }
        if streams.count >= Self.capacity { streams.removeAll() }
        var c = streams[k] ?? CIS(acl: nil, established: true)
        c.established = true
        streams[k] = c
        return c
    }

    /// Disconnection Complete on `handle`: the CIS it ended, if it was one.
    mutating func disconnected(controller: UInt16, handle: UInt16) -> CIS? {
        streams.isEmpty ? nil : streams.removeValue(forKey: Self.key(controller, handle))
    }

    func isBIS(controller: UInt16, handle: UInt16) -> Bool {
        !broadcastStreams.isEmpty && broadcastStreams.contains(Self.key(controller, handle))
    }

    /// A BIG created or synchronised to, with its BIS handles.
    mutating func bigOpened(controller: UInt16, big: UInt8, handles: [UInt16]) {
        bigEnded(controller: controller, big: big)
        if broadcastStreams.count + handles.count > Self.capacity { bigs.removeAll(); broadcastStreams.removeAll() }
        bigs[Self.key(controller, UInt16(big))] = handles
        for h in handles { broadcastStreams.insert(Self.key(controller, h)) }
    }

    /// A BIG terminated or lost: its BIS handles are free.
    mutating func bigEnded(controller: UInt16, big: UInt8) {
        guard let handles = bigs.removeValue(forKey: Self.key(controller, UInt16(big))) else { return }
        for h in handles { broadcastStreams.remove(Self.key(controller, h)) }
    }

    mutating func removeAll() {
        streams.removeAll()
        bigs.removeAll()
        broadcastStreams.removeAll()
    }
}
