import BLECore

/// What the decoder knows about one LE connection in an air capture, keyed by its access
/// address: an explicit state machine for the sender of each PDU, acknowledgement (to spot
/// retransmissions), encryption and a connection update waiting for its instant.
struct LinkLayerConnection: Sendable {
    /// How the decoder learned of the connection.
    enum Origin: Sendable, Equatable {
        case connectInd
        /// Data on an access address no CONNECT_IND announced: begun before the capture.
        case foundInProgress
    }

    /// Encryption of the link (Core v5.4 Vol 6 Part B 5.1.3).
    enum Encryption: Sendable, Equatable {
        /// Known to be unencrypted (from CONNECT_IND on, until encryption starts).
        case off
        /// LL_ENC_REQ seen, encryption not started yet.
        case requested(isRefresh: Bool)
        /// LL_START_ENC_REQ seen: every non-empty PDU after it is sent encrypted.
        case on
        /// A connection found in progress: it may already be encrypted.
        case unknown
    }

    /// The last non-empty PDU one side sent that counted as new.
    struct SentPDU: Sendable {
        var sn: UInt8
        var llid: UInt8
        var payload: [UInt8]
        var frame: Int
        /// The peer answered with NESN != SN after it (acknowledged it).
        var acknowledged = false
    }

    /// A connection update that applies at a connection event counter value.
    struct PendingUpdate: Sendable {
        var instant: UInt16
        var interval: UInt16
        var latency: UInt16
        var timeout: UInt16
    }

    /// A PHY update that applies at its instant: HCI PHY values (1 LE 1M, 2 LE 2M, 3 LE Coded)
    /// seen from the central (TX central to peripheral, RX peripheral to central).
    struct PendingPHY: Sendable {
        var instant: UInt16
        var tx: UInt8
        var rx: UInt8
    }

    var ref: ConnectionRef
    /// The synthetic handle that stands for the connection in the tracker and reassembler
    /// (air captures have no HCI handles).
    var handle: UInt16 { ref.handle }
    var accessAddress: UInt32
    var origin: Origin
    var isOpen = true
    /// Connection interval in 1.25 ms units, when known.
    var interval: UInt16?
    /// The CONNECT_IND's CRCInit (nil for a connection found in progress): checks the CRC of
    /// packets whose sniffer gives no verdict (`LinkLayerCRC`).
    var crcInit: UInt32?
    var encryption: Encryption
    /// Encryption was on at some point (a later LL_ENC_REQ is a key refresh).
    var wasEncrypted = false
    /// The current encryption procedure's Encryption Change was reported.
    var encryptionReported = false
    /// The first PDU whose payload the sniffer could not read was named (`LinkLayerDecoder.ciphertextEventName`).
    var ciphertextReported = false
    var pendingUpdate: PendingUpdate?
    var pendingPHY: PendingPHY?
    /// The PHYs in use seen from the central (HCI PHY values; LE 1M until an update).
    var txPHY: UInt8 = 1
    var rxPHY: UInt8 = 1
    /// Frame of the last packet on this access address.
    var lastFrame: Int

    // Sender inference and acknowledgement state.
    var lastTimestamp: Int64?
    var lastEventCounter: UInt16?
    var lastSender: LinkLayerRole?
    var inferenceReported = false
    var lastCentral: SentPDU?
    var lastPeripheral: SentPDU?

    // The connection event counter counted from the packets' times (`countEvent`).
    /// The earliest time the first connection event can start, from the CONNECT_IND.
    var firstAnchor: Int64?
    /// Time of the first packet of the current connection event, and that event's counter.
    var eventStart: Int64?
    var countedEvent: UInt16 = 0

    init(ref: ConnectionRef, accessAddress: UInt32, origin: Origin, interval: UInt16?, frame: Int,
         firstAnchor: Int64? = nil) {
        self.ref = ref
        self.accessAddress = accessAddress
        self.origin = origin
        self.interval = interval
        self.encryption = origin == .connectInd ? .off : .unknown
        self.lastFrame = frame
        self.firstAnchor = firstAnchor
    }

    /// The connection event counter of a data PDU at `timestamp`, for a sniffer that records
    /// none (LINKTYPE 251 and 256; nRF Sniffer gives it). The counter is 0 in the first
    /// connection event and grows by one each event, whether or not a packet is sent in it
    /// (Core v5.4 Vol 6 Part B 4.5.1); the first event starts 1.25 ms plus transmitWindowOffset
    /// after the CONNECT_IND, within transmitWindowSize (4.5.3). So: the first packet seen is
    /// in event ⌊(its time − that earliest start) / interval⌋ (events the sniffer missed count);
    /// a later packet more than `eventGap` after the previous one starts a new event,
    /// round(time since the current event's first packet / interval) events on. Nil for a
    /// connection found in progress (where its counter started is not known) or while the
    /// interval is not known: an instant cannot be placed then.
    mutating func countEvent(timestamp: Int64) -> UInt16? {
        guard origin == .connectInd, let firstAnchor, let interval, interval > 0 else { return nil }
        let intervalUs = Int64(interval) * 1_250
        guard let start = eventStart, let last = lastTimestamp else {
            let events = max(0, timestamp.saturatingSubtracting(firstAnchor)) / intervalUs
            countedEvent = UInt16(truncatingIfNeeded: events)
            eventStart = timestamp
            return countedEvent
        }
        let gap = timestamp.saturatingSubtracting(last)
        if gap > eventGap {
            let sinceStart = timestamp.saturatingSubtracting(start)
            // Rounded without adding (a gap of Int64.max must not overflow).
            let events = max(1, sinceStart / intervalUs + (sinceStart % intervalUs >= intervalUs / 2 ? 1 : 0))
            countedEvent = countedEvent &+ UInt16(truncatingIfNeeded: min(events, Int64(UInt16.max)))
            eventStart = timestamp
        }
        return countedEvent
    }

    /// Largest gap (µs) between two packets of one connection event: half the interval
    /// (3.75 ms when the interval is unknown, half the shortest interval of 7.5 ms).
    var eventGap: Int64 {
        guard let interval else { return 3_750 }
        return max(1_250, Int64(interval) * 1_250 / 2)
    }

    /// The sender of a data PDU whose sniffer did not record it (Vol 6 Part B 4.5.1), in this
    /// order: the side whose last PDU it repeats (same LLID, SN and bytes: a retransmission);
    /// for a continuation fragment, the only side with an L2CAP PDU being reassembled
    /// (`pendingL2CAP`); else by timing: the central transmits first in every connection event
    /// and the two sides alternate within it. A new event is a new event counter (nRF Sniffer)
    /// or a gap longer than `eventGap`. Sniffers that follow one channel at a time (Ubertooth)
    /// miss packets, which is why content comes before timing.
    mutating func inferSender(header: DataChannelHeader, payload: ArraySlice<UInt8>, timestamp: Int64,
                              eventCounter: UInt16?, pendingL2CAP: (central: Bool, peripheral: Bool)) -> LinkLayerRole {
        func repeats(_ last: SentPDU?) -> Bool {
            guard let last, !payload.isEmpty else { return false }
            return last.sn == header.sn && last.llid == header.llid && last.payload.elementsEqual(payload)
        }
        var byContent: LinkLayerRole?
        if repeats(lastCentral) != repeats(lastPeripheral) {
            byContent = repeats(lastCentral) ? .central : .peripheral
        } else if header.llid == DataChannelHeader.continuation, !payload.isEmpty,
                  pendingL2CAP.central != pendingL2CAP.peripheral {
            byContent = pendingL2CAP.central ? .central : .peripheral
        }
        if let byContent {
            note(sender: byContent, timestamp: timestamp, eventCounter: eventCounter)
            return byContent
        }
        let role = timedSender(timestamp: timestamp, eventCounter: eventCounter)
        note(sender: role, timestamp: timestamp, eventCounter: eventCounter)
        return role
    }

    /// The sender by timing alone (see `inferSender`): the central first in a new connection
    /// event, else the other side than the last packet's. A packet whose CRC failed still took
    /// its turn on air, so its time counts (its bytes do not).
    func timedSender(timestamp: Int64, eventCounter: UInt16?) -> LinkLayerRole {
        let newEvent: Bool
        if let counter = eventCounter, let last = lastEventCounter {
            newEvent = counter != last
        } else if let last = lastTimestamp {
            let gap = timestamp.saturatingSubtracting(last)   // wrapping could make a jump look small
            newEvent = gap < 0 || gap > eventGap
        } else {
            newEvent = true
        }
        return newEvent ? .central : (lastSender?.peer ?? .central)
    }

    /// Remembers when and from whom the last packet came.
    mutating func note(sender: LinkLayerRole, timestamp: Int64, eventCounter: UInt16?) {
        lastSender = sender
        lastTimestamp = timestamp
        lastEventCounter = eventCounter
    }

    /// Decides whether a data PDU repeats one already counted (Vol 6 Part B 4.5.9): a
    /// non-empty PDU with the SN, LLID and payload of the sender's last new PDU, not
    /// acknowledged since: no peer packet with NESN != that SN, and no packet of the sender's
    /// own with another SN (a sender moves on only after an acknowledgement). Requiring the same
    /// bytes and the missing acknowledgement keeps new PDUs from sniffers that log their own
    /// transmissions before the radio sets SN/NESN (Sniffle as initiator, SweynTooth): there
    /// the SN never toggles. Returns the frame of the original for a retransmission.
    mutating func retransmissionOriginal(sender: LinkLayerRole, header: DataChannelHeader,
                                         payload: ArraySlice<UInt8>, frame: Int) -> Int? {
        // The peer's NESN acknowledges (or not) the sender's last PDU; and a sender moves to
        // a new SN only once its last PDU was acknowledged.
        if sender == .central {
            if var p = lastPeripheral, header.nesn != p.sn { p.acknowledged = true; lastPeripheral = p }
            if var c = lastCentral, header.sn != c.sn { c.acknowledged = true; lastCentral = c }
        } else {
            if var c = lastCentral, header.nesn != c.sn { c.acknowledged = true; lastCentral = c }
            if var p = lastPeripheral, header.sn != p.sn { p.acknowledged = true; lastPeripheral = p }
        }
        guard !payload.isEmpty else { return nil }
        let last = sender == .central ? lastCentral : lastPeripheral
        if let last, !last.acknowledged, last.sn == header.sn, last.llid == header.llid,
           last.payload.elementsEqual(payload) {
            return last.frame
        }
        let new = SentPDU(sn: header.sn, llid: header.llid, payload: Array(payload), frame: frame)
        if sender == .central { lastCentral = new } else { lastPeripheral = new }
        return nil
    }

    /// Whether the payload of a non-empty PDU is plaintext on a link that is, or may be,
    /// encrypted, when the sniffer does not say (Core v5.4 Vol 6 Part E 1: an encrypted PDU
    /// carries a 4-octet MIC, and its bytes look random). Plaintext when an LL Control PDU has
    /// an assigned opcode and exactly its CtrData length, when an L2CAP start fragment names
    /// ATT, LE signalling or SMP with a length those channels allow and that matches the
    /// fragment (all of it, or more than it holds), or when a continuation fragment fits a
    /// plaintext L2CAP PDU still being reassembled (`pendingRemaining`).
    static func looksLikePlaintext(llid: UInt8, payload: ArraySlice<UInt8>, pendingRemaining: Int?) -> Bool {
        switch llid {
        case DataChannelHeader.control:
            guard let first = payload.first else { return false }
            let op = LLControlOpcode(first)
            return op.parameterLength.map { $0 + 1 == payload.count } ?? false
        case DataChannelHeader.start:
            guard payload.count >= 4 else { return false }
            let i = payload.startIndex
            let length = Int(payload[i]) | Int(payload[i + 1]) << 8
            let cid = UInt16(payload[i + 2]) | UInt16(payload[i + 3]) << 8
            let limit: Int
            switch cid {
            case 0x0004: limit = 517
            case 0x0005: limit = 64
            case 0x0006: limit = 65
            default: return false
            }
            return length >= 1 && length <= limit && length + 4 >= payload.count
        case DataChannelHeader.continuation:
            guard let pendingRemaining else { return false }
            return payload.count <= pendingRemaining
        default:
            return false
        }
    }
}
