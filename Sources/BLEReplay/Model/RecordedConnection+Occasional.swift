import BLEAnalysis
import BLECore

/// What many recorded connections lack, held apart from the connection (issue 17): SMP packets,
/// parameter updates, security events, a stored label, the LE Create Connection's and LE
/// Connection Complete's moments, the MTUs exchanged, the local host's Disconnect and a role
/// the timeline names otherwise than `central` or `peripheral`. A session
/// holds every connection through the whole replay; with these inline a connection was 280
/// bytes, and a capture of links inferred from their traffic (no Connection Complete, no MTU
/// exchange, no pairing) has none of them, so it holds a nil reference instead.
///
/// The box is copied on write, as an array's storage is: a connection copied shares it until
/// one of them changes it, and a connection that holds it alone changes it in place (a loader
/// appending parameter updates one at a time does not copy them each time).
extension RecordedConnection {
    struct Occasional {
        var smpPackets = 0
        var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters, packetID: Int)] = []
        /// Controller events written as recorded (`RecordedLinkEvent`).
        var linkEvents: [RecordedLinkEvent] = []
        var security: [RecordedSecurityEvent] = []
        var storedLabel: String?
        var createOffset: VirtualTime?
        var completePacketID: Int?
        var clientRxMTU: Int?
        var serverRxMTU: Int?
        var localDisconnect: (time: Int64, reason: UInt8, packetID: Int)?
        /// The link ended with its controller (`ControllerClosing`).
        var controllerClosing: ControllerClosing?
        /// A role other than `central` and `peripheral` (`RecordedRole.other`).
        var otherRole: String?
        /// On a sniffer's capture, how the air shows the link's end when it holds no
        /// disconnection (`AirEnding`).
        var airEnding: AirEnding?

        /// Nothing in it: the connection holds no box.
        var isEmpty: Bool {
            smpPackets == 0 && parameterUpdates.isEmpty && linkEvents.isEmpty && security.isEmpty && storedLabel == nil && createOffset == nil
                && completePacketID == nil && clientRxMTU == nil && serverRxMTU == nil && localDisconnect == nil && otherRole == nil
                && controllerClosing == nil && airEnding == nil
        }
    }

    /// Mutable only through `updateOccasional`, which copies it first unless this connection is
    /// its only holder: shared between threads, it is only read.
    final class OccasionalBox: @unchecked Sendable {
        var fields: Occasional
        init(_ fields: Occasional) { self.fields = fields }
    }

    /// Changes what is held apart, in place when this connection holds the box alone; no box is
    /// made while it stays empty.
    mutating func updateOccasional(_ change: (inout Occasional) -> Void) {
        if occasional == nil {
            var fields = Occasional()
            change(&fields)
            if !fields.isEmpty { occasional = OccasionalBox(fields) }
        } else if isKnownUniquelyReferenced(&occasional!) {
            change(&occasional!.fields)
        } else {
            var fields = occasional!.fields
            change(&fields)
            occasional = OccasionalBox(fields)
        }
    }
}
