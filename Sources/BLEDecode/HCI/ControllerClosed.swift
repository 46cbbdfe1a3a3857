import BLECore

/// Links that end with their controller, with no Disconnection Complete in the capture.
///
/// btmon (btsnoop datalink 2001, pcap LINKTYPE 254) records the host closing an adapter (Close
/// Index, opcode 9: `hciconfig hci1 down`, power off) and removing it (Delete Index, opcode 1:
/// unplugged, driver unloaded). BlueZ then drops every link of that adapter itself
/// (hci_dev_close_sync -> hci_conn_hash_flush): no HCI Disconnection Complete is sent or
/// recorded, and the index may come back (New Index) numbering its handles from the start again.
/// A successful HCI_Reset does the same on any capture (Core v5.4 Vol 4 Part E 7.3.2: the
/// Controller's Link Manager and Link Layer are reset; Android's stack sends it when it restarts).
/// The links end at that record: their handles are free, their reassemblies and channels gone,
/// and a later Connection Complete on the same handle is a new link, not a missing disconnect.
extension PacketDecoder {
    /// The notes that close controller `controller`'s links: Close Index and Delete Index.
    static func closesLinks(_ record: CaptureRecord) -> String? {
        guard record.kind == .note, record.payload.isEmpty else { return nil }
        return ControllerCloser(monitorOpcode: record.rawType)?.rawValue
    }

    /// Ends every open link of the record's controller (`note` names the record that did: Close
    /// Index, Delete Index, HCI Reset).
    mutating func closeControllerLinks(_ note: String, into d: inout PacketDraft) {
        for c in tracker.closeController() {
            d.problems += reassembler.discard(handle: c.ref.handle, controller: controller, why: note)
            if c.transport == .bredr { channels.remove(connection: c.ref.index) }
            leChannels.remove(connection: c.ref.index)
            d.events.append(.controllerClosed(c.ref, record: note))
        }
        cutContinuations = cutContinuations.filter { $0.key.controller != controller }
    }
}
