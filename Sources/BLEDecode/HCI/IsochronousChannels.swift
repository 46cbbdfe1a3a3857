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

    mutating func removeAll() { streams.removeAll() }
}
