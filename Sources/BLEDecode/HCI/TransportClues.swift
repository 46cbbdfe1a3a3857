import BLECore

/// What a packet tells about the transport of the connection it names, for a link the capture
/// never saw connect (ACL on an unknown handle): until one of these clues, its transport is
/// unknown (the tracker treats it as LE, the usual case in the captures this tool reads).
///
/// Only clues that exist on one transport alone count (Core v5.4 Vol 4 Part E 7.1-7.8, 7.7;
/// Vol 3 Part A 2.1): commands and events the LE controller does not have, and the fixed L2CAP
/// channels of each transport. Commands and events both transports use (Disconnect, Read Remote
/// Version Information, Encryption Change, Encryption Key Refresh Complete, Read RSSI, Read
/// Transmit Power Level, Authenticated Payload Timeout) tell nothing. Role Change (7.7.18) and
/// the Link Key events (7.7.23, 7.7.24) name a BD_ADDR, not a handle, so they cannot be tied to
/// a link whose peer is unknown.
enum TransportClues {
    /// BR/EDR-only commands whose first parameter is the Connection_Handle.
    static let bredrOnlyCommands: Set<UInt16> = [
        0x040F,   // Change Connection Packet Type (7.1.14)
        0x0411,   // Authentication Requested (7.1.15)
        0x0413,   // Set Connection Encryption (7.1.16)
        0x0415,   // Change Connection Link Key (7.1.17)
        0x041B,   // Read Remote Supported Features (7.1.21; LE has its own, 7.8.21)
        0x041C,   // Read Remote Extended Features (7.1.22)
        0x041F,   // Read Clock Offset (7.1.24)
        0x0420,   // Read LMP Handle (7.1.25)
        0x0801,   // Hold Mode (7.2.1)
        0x0803,   // Sniff Mode (7.2.2)
        0x0804,   // Exit Sniff Mode (7.2.3)
        0x0807,   // QoS Setup (7.2.6)
        0x0809,   // Role Discovery (7.2.7)
        0x080C,   // Read Link Policy Settings (7.2.9)
        0x080D,   // Write Link Policy Settings (7.2.10)
        0x0810,   // Flow Specification (7.2.13)
        0x0811,   // Sniff Subrating (7.2.14)
        0x0C27,   // Read Automatic Flush Timeout (7.3.29)
        0x0C28,   // Write Automatic Flush Timeout (7.3.30)
        0x0C36,   // Read Link Supervision Timeout (7.3.41)
        0x0C37,   // Write Link Supervision Timeout (7.3.42)
        0x1401,   // Read Failed Contact Counter (7.5.1)
        0x1402,   // Reset Failed Contact Counter (7.5.2)
        0x1403,   // Read Link Quality (7.5.3)
        0x1406,   // Read AFH Channel Map (7.5.5)
        0x1407,   // Read Clock (7.5.6)
        0x1408,   // Read Encryption Key Size (7.5.7)
    ]

    /// BR/EDR-only events that name a Connection_Handle.
    static let bredrOnlyEvents: Set<UInt8> = [
        0x06,   // Authentication Complete (7.7.6)
        0x09,   // Change Connection Link Key Complete (7.7.9)
        0x0B,   // Read Remote Supported Features Complete (7.7.11)
        0x0D,   // QoS Setup Complete (7.7.13)
        0x14,   // Mode Change (7.7.20)
        0x1B,   // Max Slots Change (7.7.27)
        0x1C,   // Read Clock Offset Complete (7.7.28)
        0x1D,   // Connection Packet Type Changed (7.7.29)
        0x1E,   // QoS Violation (7.7.30)
        0x21,   // Flow Specification Complete (7.7.32)
        0x23,   // Read Remote Extended Features Complete (7.7.34)
        0x2E,   // Sniff Subrating (7.7.37)
        0x38,   // Link Supervision Timeout Changed (7.7.46)
    ]

    /// The transport a complete L2CAP frame's channel proves: the LE fixed channels ATT 0x0004,
    /// LE signalling 0x0005 and SMP 0x0006 exist only on LE-U; signalling 0x0001, connectionless
    /// 0x0002, AMP 0x0003, BR/EDR SMP 0x0007 and dynamic CIDs above 0x007F only on ACL-U.
    /// Dynamic CIDs 0x0040-0x007F exist on both (LE credit-based channels, RFCOMM): no clue.
    static func transport(ofChannel cid: UInt16) -> Transport? {
        if (0x0004...0x0006).contains(cid) { return .le }
        if PacketDecoder.cidImpliesBREDR(cid) { return .bredr }
        return nil
    }
}

extension PacketDecoder {
    /// A clue to the transport of the link on `handle`: a link found in progress takes it (once
    /// for LE; a BR/EDR-only clue overrides an LE guess, since those exist on BR/EDR alone), and
    /// the timeline learns it with the clue that decided (`.transportLearned`).
    mutating func learnTransport(_ transport: Transport, handle: UInt16, clue: String, into d: inout PacketDraft) {
        if let ref = tracker.learnTransport(transport, handle: handle) {
            d.events.append(.transportLearned(ref, transport: transport, clue: clue))
        }
    }
}
