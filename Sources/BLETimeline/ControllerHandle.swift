/// A connection handle under the controller that numbered it: what names one link in a capture.
///
/// Handles are per controller (Core v5.4 Vol 4 Part E 5.3.1: a controller assigns them): a btmon
/// capture (btsnoop datalink 2001, pcap LINKTYPE 254) records several controllers, and so does a
/// pcapng of H4 packets with one interface per adapter (draft-ietf-opsawg-pcapng 4.2; Wireshark
/// capturing two adapters at once); two adapters each with a link on 0x0040 at once is the usual
/// case. `controller` is the record's controller index (`packet.controller_index`,
/// `connection.controller_index`): the adapter index, or the pcapng Interface ID; 0 in every
/// single-controller format (H4, PacketLogger, pcap).
public struct ControllerHandle: Hashable, Comparable, Sendable {
    public var controller: UInt16
    public var handle: UInt16

    public init(controller: UInt16, handle: UInt16) {
        self.controller = controller
        self.handle = handle
    }

    /// Controller first, then handle.
    public static func < (a: ControllerHandle, b: ControllerHandle) -> Bool {
        (a.controller, a.handle) < (b.controller, b.handle)
    }
}
