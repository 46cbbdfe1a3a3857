import BLECore

/// Connections found from HCI events alone: a link that began before the capture and shows only
/// events on its handle (Disconnection Complete, Encryption Change, Number Of Completed Packets,
/// Read Remote Version Information Complete, LE Connection Update Complete, …), never ACL data.
///
/// Such a link gets a connection like one found from its ACL (`connectionFoundInProgress`, begun
/// before the capture, transport unknown until a clue: `TransportClues`). Not from a handle the
/// capture already showed open and closed (a late event), not from reserved or diagnostic
/// handles (above 0x0EFF, 0x0EDC), not from a CIS handle (Core v5.4 Vol 4 Part E 7.7.19 counts
/// isochronous packets too), and not from an event whose status is 0x02 Unknown Connection
/// Identifier (the controller saying there is no such link, Vol 1 Part F 1.3).
extension PacketDecoder {
    /// The connection an event on `handle` belongs to, opening one begun before the capture
    /// when the capture never showed this handle open.
    mutating func eventConnection(_ handle: UInt16, status: HCIStatusCode? = nil,
                                  into d: inout PacketDraft) -> ConnectionRef? {
        if let ref = tracker.ref(handle) { return ref }
        guard handle <= Self.maximumConnectionHandle, handle != Self.vendorDiagnosticHandle,
              status != .unknownConnectionIdentifier,
              isochronous.cis(controller: controller, handle: handle) == nil,
              let (conn, isNew) = tracker.connectionForEvent(handle: handle, at: d.base) else { return nil }
        if isNew { d.events.append(.connectionFoundInProgress(conn.ref, transport: conn.transport)) }
        return conn.ref
    }
}
