import BLECore

/// The streaming packet decoder: one `CaptureRecord` in, one `DecodedPacket` out.
///
/// Decodes HCI commands and events (Core v5.4 Vol 4 Part E 5.4, 7), reassembles ACL into
/// L2CAP PDUs (Vol 4 Part E 5.4.2, Vol 3 Part A 3), decodes LE signalling (Vol 3 Part A 4)
/// and hands ATT and SMP PDUs to their decoders; a connection tracker gives every packet the
/// connection it belongs to. It never throws and never traps: damage goes into
/// `DecodedPacket.problems` with its layer and absolute offset, and the packet still comes
/// back with a summary. State is bounded (see `ACLReassembler`, `ConnectionTracker`).
public struct PacketDecoder: Sendable {
    public let options: DecoderOptions
    var tracker = ConnectionTracker()
    var reassembler = ACLReassembler()
    var channels = BREDRChannelMap()
    /// LE credit-based channels (LE CoC, Enhanced ATT) and their SDUs in progress.
    var leChannels = LECreditChannelMap()
    /// Connected isochronous streams and the ACL connections they belong to.
    var isochronous = IsochronousChannels()
    /// Commands that named a connection, by controller and opcode (`commandKey`), until their
    /// Command Status/Complete.
    var pendingCommands: [UInt32: ConnectionRef] = [:]
    /// Controller index of the record being decoded (btmon captures carry several controllers,
    /// each with its own connection handles; Core v5.4 Vol 4 Part E 5.4.2 numbers handles per
    /// controller).
    var controller: UInt16 = 0
    /// Peers of BR/EDR Create Connection commands not yet completed (to tell the role).
    var pendingBREDRCreates: Set<BluetoothAddress> = []
    /// The local role a BR/EDR ACL being set up with a peer starts in, from Connection Request
    /// (7.7.4) or Role Change (7.7.18) before its Connection Complete. Bounded.
    var bredrRoles: [BluetoothAddress: UInt8] = [:]

    mutating func noteBREDRRole(_ peer: BluetoothAddress, _ role: UInt8) {
        if bredrRoles.count > 64 { bredrRoles.removeAll() }
        bredrRoles[peer] = role
    }
    /// The host sent LE Create Connection Cancel and no LE connection complete followed yet.
    var leCreateCancelPending = false
    /// The host sent one of Android's LE vendor commands (`HCIVendorCommand.isAndroid`): its
    /// controller's vendor events are read as AOSP reads them (`AndroidVendorEvent`).
    var androidVendorHost = false
    var lastDrops: UInt32 = 0
    /// Air captures (LINKTYPE 251/256/272): connections by access address.
    var linkLayer = LinkLayerDecoder()
    /// Extended advertisements split over several reports, joined per advertising set.
    var advertisingFragments = ExtendedAdvertisingFragments()
    /// Pairing Public Keys per connection, for the debug-key rule of `SMPKeyMaterial`.
    var pairingKeys = PairingKeyWatch()
    /// Bytes still to come in continuation fragments of an L2CAP PDU whose start fragment the
    /// capture writer cut (`PacketDecoder+SnoopCut`), per handle and direction.
    var cutContinuations: [ACLReassembler.Key: Int] = [:]
    /// Summary lines formatted lately, handed out again (`SummaryCache`).
    var summaries = SummaryCache()

    public init(options: DecoderOptions = .init()) {
        self.options = options
    }

    /// Connections seen so far: Connection Complete events of any status plus connections
    /// found in progress (the last `ConnectionRef.index` handed out).
    public var connectionsSeen: Int { tracker.count }

    /// Decodes one record; never throws, never crashes: damage goes into `problems` and the
    /// packet still comes back.
    public mutating func decode(_ record: CaptureRecord) -> DecodedPacket {
        var d = PacketDraft(direction: record.direction,
                            base: options.payloadBase(of: record), frame: record.frameNumber,
                            summaries: options.summaries)
        if record.controllerIndex != controller {
            controller = record.controllerIndex
            tracker.controller = controller
        }
        if record.cumulativeDrops != lastDrops {
            if record.cumulativeDrops > lastDrops {
                d.events.append(.dropped(count: Int(record.cumulativeDrops - lastDrops)))
            }
            lastDrops = record.cumulativeDrops
        }
        if [.command, .event, .sco, .iso].contains(record.kind), let cut = Self.writerCut(record) {
            d.cutNote = options.recordCutter.note(kept: cut.kept, original: cut.original)
        }
        switch record.kind {
        case .command:
            decodeCommand(record.payload, into: &d)
            d.secrets += HCIKeyMaterial.commandSecrets(record.payload, frame: record.frameNumber)
        case .event:
            decodeEvent(record.payload, into: &d)
            d.secrets += HCIKeyMaterial.eventSecrets(record.payload, frame: record.frameNumber)
        case .acl:
            if let cut = Self.writerCut(record) {
                decodeCutACL(record.payload, kept: cut.kept, original: cut.original, into: &d)
            } else {
                decodeACL(record.payload, into: &d)
            }
        case .sco:
            decodeSCO(record.payload, into: &d)
        case .iso:
            decodeISO(record.payload, into: &d)
        case .note:
            d.layer = .note
            d.summary.set(Self.monitorNote(record) ?? Self.packetLoggerSyslog(record) ?? Fmt.noteText(record.payload))
            if options.monitorRecords, let note = Self.closesLinks(record) {
                closeControllerLinks(note, into: &d)
            }
        case .other where LinkLayerDecoder.isAirRecord(record):
            return decodeLinkLayer(record)
        case .other:
            d.layer = .other
            if options.monitorRecords, let control = Self.monitorControl(record) {
                d.summary.set(control)
            } else {
                d.summary.set("Other record (type " + Fmt.h4(record.rawType) + ", \(record.payload.count) bytes)")
            }
        }
        if let note = d.cutNote { d.summary += note }
        return d.packet
    }

    /// At end of capture: connections still open and partial ACL reassemblies, as problems
    /// (kind `.truncated`). Clears that state.
    public mutating func finish() -> [DecodeError] {
        var out: [DecodeError] = []
        finish { out += $0 }
        return out
    }

    /// `finish()`, the problems handed to `emit` at most `chunk` at a time, in the same order: a
    /// capture that ends with tens of thousands of links open or PDUs pending (issue 17) is
    /// reported without holding every sentence at once.
    public mutating func finish<E: Error>(chunk: Int = 1024, _ emit: ([DecodeError]) throws(E) -> Void) throws(E) {
        var chunks = ProblemChunks(size: chunk)
        try reassembler.discardAll(why: "end of capture", into: &chunks, emit)
        for c in tracker.closeAll() {
            let how = c.origin == .event ? "" : ", begun before the capture"
            try chunks.append(DecodeError(layer: .hci, offset: c.openedAt, kind: .truncated,
                                          reason: "connection #\(c.ref.index) (handle \(Fmt.h4(c.ref.handle)), \(c.transport.rawValue)\(how)) still open at end of capture"), emit)
        }
        try chunks.flush(emit)
        pendingCommands.removeAll()
        pendingBREDRCreates.removeAll()
        bredrRoles.removeAll()
        leCreateCancelPending = false
        channels.removeAll()
        leChannels.removeAll()
        cutContinuations.removeAll()
        isochronous.removeAll()
        linkLayer = LinkLayerDecoder()
    }

    /// Key of `pendingCommands`: a command is answered by its own controller.
    @inline(__always)
    func commandKey(_ opcode: UInt16) -> UInt32 { UInt32(controller) << 16 | UInt32(opcode) }

    // MARK: SCO and ISO

    /// SCO data: handle (12 bits) + packet status flag (2 bits) u16, length u8, data
    /// (Core v5.4 Vol 4 Part E 5.4.3).
    mutating func decodeSCO(_ payload: [UInt8], into d: inout PacketDraft) {
        d.layer = .hci
        guard payload.count >= 3 else {
            if d.cutNote != nil { return d.summary.set(d.prefix + "SCO") }
            d.fail(layer: .hci, at: 0, kind: .truncated, "SCO header: need 3 bytes, have \(payload.count)")
            d.summary.set(d.prefix + "SCO (malformed: header cut short)")
            return
        }
        let handle = (UInt16(payload[0]) | UInt16(payload[1]) << 8) & 0x0FFF
        let length = Int(payload[2])
        d.summary.set(d.prefix + "SCO handle " + Fmt.h4(handle) + ", \(length) bytes")
        d.checkDataLength(declared: length, available: payload.count - 3, dataStart: 3, what: "SCO data")
    }

    /// ISO data: handle (12 bits), PB (2 bits), TS (1 bit) u16; data load length (14 bits)
    /// u16; data (Core v5.4 Vol 4 Part E 5.4.5).
    mutating func decodeISO(_ payload: [UInt8], into d: inout PacketDraft) {
        d.layer = .hci
        guard payload.count >= 4 else {
            if d.cutNote != nil { return d.summary.set(d.prefix + "ISO") }
            d.fail(layer: .hci, at: 0, kind: .truncated, "ISO header: need 4 bytes, have \(payload.count)")
            d.summary.set(d.prefix + "ISO (malformed: header cut short)")
            return
        }
        let handle = (UInt16(payload[0]) | UInt16(payload[1]) << 8) & 0x0FFF
        let length = Int((UInt16(payload[2]) | UInt16(payload[3]) << 8) & 0x3FFF)
        d.summary.set(d.prefix + "ISO handle " + Fmt.h4(handle) + ", \(length) bytes")
        if let cis = isochronous.cis(controller: controller, handle: handle) {
            d.summary += " (CIS)"
            d.connection = cis.acl
        } else if isochronous.isBIS(controller: controller, handle: handle) {
            d.summary += " (BIS)"
        }
        d.checkDataLength(declared: length, available: payload.count - 4, dataStart: 4, what: "ISO data")
    }
}

/// What one record is being decoded into.
struct PacketDraft {
    var summary: SummaryLine
    var layer: PacketLayer = .hci
    var connection: ConnectionRef?
    var events: [DecodedEvent] = []
    var problems: [DecodeError] = []
    /// Key material found in this record (or, for a reassembled PDU, in the earlier records
    /// that carried its fragments).
    var secrets: [SecretRange] = []
    let direction: Direction
    /// Absolute offset of the record's payload byte 0.
    let base: Int
    /// The record's frame number.
    let frame: Int
    /// Set when the capture cut this (non-ACL) record short (`RecordCutter`): what ran out is
    /// the cut, not damage, so a field or length the bytes no longer reach is no problem; the
    /// note ends the summary.
    var cutNote: String?

    /// A decode failure: running out of bytes in a cut record is the cut (the summary's note says
    /// so), anything else is damage, recorded, with `(malformed: …)` as the summary's detail.
    mutating func failure(_ error: DecodeError) -> String {
        if error.kind == .truncated, cutNote != nil { return "" }
        problems.append(error)
        return " (malformed: " + error.reason + ")"
    }

    init(direction: Direction, base: Int, frame: Int, summaries: Bool) {
        summary = SummaryLine(isKept: summaries)
        prefix = Fmt.prefix(direction)
        self.direction = direction
        self.base = base
        self.frame = frame
    }

    /// This record, as the source of an ACL/LL fragment.
    var source: FragmentSource { FragmentSource(frame: frame, recordBase: base) }

    var packet: DecodedPacket {
        var p = DecodedPacket(summary: summary.text, layer: layer, connection: connection, events: events, problems: problems)
        p.secretRanges = secrets
        return p
    }

    /// `"Sent "`/`"Rcvd "`/`""` by the record's direction (stored: a summary part reads it while
    /// the summary is being written).
    let prefix: String

    /// Records a problem at payload position `position`.
    mutating func fail(layer: DecodeError.Layer, at position: Int, kind: DecodeError.Kind, _ reason: String) {
        problems.append(DecodeError(layer: layer, offset: base &+ position, kind: kind, reason: reason))
    }

    /// Compares a length field with the bytes present and records the disagreement.
    /// Returns the number of bytes to use: the smaller of the two.
    @discardableResult
    mutating func checkDataLength(declared: Int, available: Int, dataStart: Int, what: String,
                                  layer: DecodeError.Layer = .hci) -> Int {
        if declared > available {
            // A record the capture cut keeps fewer bytes than its length field counts.
            if cutNote != nil { return available }
            fail(layer: layer, at: dataStart + available, kind: .truncated,
                 "\(what): length field says \(declared) bytes, packet has \(available)")
            return available
        }
        if declared < available {
            fail(layer: layer, at: dataStart + declared, kind: .malformed,
                 "\(what): \(available - declared) byte(s) beyond the length field (\(declared))")
        }
        return declared
    }
}
