import BLECore
import CPcap
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A libpcap handle, closed with its owner; for in-memory input also the bytes `fmemopen` reads.
final class PcapHandle {
    let pcap: OpaquePointer
    let memory: UnsafeMutableRawBufferPointer?

    init(pcap: OpaquePointer, memory: UnsafeMutableRawBufferPointer?) {
        self.pcap = pcap
        self.memory = memory
    }

    deinit {
        pcap_close(pcap)
        memory?.deallocate()
    }
}

/// Streams pcap and pcapng records through libpcap (LINKTYPE 187, 201, 254; and the LE air
/// link types 251, 256, 272, whose frames are kept whole as `.other` records with the link type
/// as `rawType`).
///
/// Opened with `pcap_open_offline_with_tstamp_precision` (microseconds), read with
/// `pcap_next_ex`; each packet is copied before the next read (libpcap reuses its buffer).
/// Link types (tcpdump.org LINKTYPE list, REFERENCE.md "pcap"): 187 is an H4 packet without
/// direction (commands are taken as sent, events as received, the rest `.unknown`); 201 is a
/// 4-byte big-endian direction (0 sent, anything else received, as Wireshark reads it) then
/// H4; 254 is a 2-byte big-endian adapter index, a 2-byte big-endian monitor opcode, the body.
///
/// `fileOffset` for pcap is exact: the previous record's end (16-byte header + captured length),
/// re-read with `ftell` when libpcap may have skipped bytes (a packet longer than the snapshot).
/// For pcapng it is the start of the packet's own block, which `PcapngInterfaceWalk` finds past
/// any blocks that are no packet (statistics, name resolution, extra interfaces) before it; when
/// the walk lost its footing, it is `ftell` on libpcap's stream after the previous packet. The
/// importer counts a pcapng packet's bytes from 28 bytes past it (`DecoderOptions.forCapture`: an
/// Enhanced Packet Block's header, 4.3); a Simple Packet Block's data starts 12 bytes in (4.4),
/// which its record's `headerShortfall` (16) says, so the byte a decode problem names is the
/// packet's own. Damage is reported at
/// the first block libpcap could not read, found the same way (`PcapngInterfaceWalk.damage`).
///
/// A pcapng's interfaces (draft-ietf-opsawg-pcapng 4.2) are its controllers: for the HCI link
/// types 187 and 201 a packet's `controllerIndex` is its Enhanced Packet Block's Interface ID
/// (4.3), found by `PcapngInterfaceWalk` since libpcap does not give it; two adapters captured at
/// once each number their own connection handles. In a file of several sections (4.1), whose
/// Interface IDs each start again at 0, interfaces are counted across the file (a second
/// section's interface 0 follows the first section's last). LINKTYPE 254 keeps the adapter index
/// its records carry; the air link types keep 0.
///
/// LINKTYPE 187 has no direction in its packets: a pcapng Enhanced Packet Block's `epb_flags`
/// option (4.3.1: inbound, outbound) gives it when present, as tshark reads it; without it,
/// commands are sent and events received.
///
/// Simple Packet Blocks (4.4) carry no timestamp: their packets are timed by
/// `SimplePacketTiming` (at the timestamped packet before them, or the first one after), with a
/// note on the capture.
///
/// A pcapng's interfaces may differ in link type (4.2: Wireshark on Linux capturing
/// `bluetooth0`, 201, and `bluetooth-monitor`, 254, at once; an adapter beside an Ethernet
/// interface; `mergecap` of a 187 and a 201 capture). Each packet is read by its own interface's
/// link type, which `PcapngInterfaceWalk` reads from the Interface Description Blocks. libpcap
/// 1.10 stops at the first IDB whose LinkType or SnapLen differs from the first one's; the
/// reader then reopens, through libpcap still, a copy of the file in which every IDB says the
/// same (`PcapngInterfaceLinkTypes.unify`: a scratch file under `$TMPDIR`, or memory for input
/// read into memory), of the same size, so every offset stays the file's, and skips the packets
/// it already gave. The LinkType written is the first IDB's, unless libpcap alters packets of
/// that type as it reads them (`PcapLinkType.postProcessedByLibpcap`), then 201, which it hands
/// over as they are. Packets of an interface whose link type BLECapture does not read are
/// skipped, one note per interface, and still counted as frames, so frame numbers are
/// tshark's. `info.linkType` is the first link type it reads among the IDBs before the first
/// packet, `info.interfaceLinkTypes` all of them; a packet of another HCI link type has its
/// `headerShortfall` set so that decode offsets still name its own bytes. The controllers of
/// H4 interfaces (their Interface IDs) and of a monitor interface (its adapter indices) are
/// numbered as in a file of one link type, so interface 0 and hci0 are one controller: a note
/// says so when both appear. HCI and LE air (link-layer) interfaces in one file are refused:
/// a timeline holds one layer per capture.
public struct PcapReader: CaptureReader {
    public let info: CaptureInfo
    public let path: String
    public private(set) var warnings: [CaptureWarning] = []
    public var notes: [CaptureWarning] { (timing.note.map { [$0] } ?? []) + tally.notes }
    public private(set) var bytesRead = 0
    /// The link type packets are read as when their interface does not say otherwise: the
    /// file's; in a pcapng, the first among the interfaces before the first packet that
    /// BLECapture reads (see the type's note).
    public let linkType: PcapLinkType

    /// What libpcap reads packets from: `source`, or once libpcap refused interfaces that
    /// differ in link type or snapshot length, the unified copy (see the type's note).
    private var handle: PcapHandle
    /// The file as given: what the interface walk, damage reports and peeks read.
    private let source: PcapHandle
    /// `init(path:)`: the file's path, which the unified copy copies.
    private let sourcePath: String?
    /// The copy libpcap reads once it refused the file (see the type's note), kept while it reads.
    private var unifiedCopy: PcapngUnifiedCopy?
    /// Skipped interfaces and shared controllers of a pcapng of several link types.
    private var tally = PcapngInterfaceTally()
    /// Whether the walk's interfaces so far include a Linux monitor and an H4 interface.
    private var mixesMonitorAndH4 = false
    private var interfacesSeen = 0
    /// Offset of the next record (see the type's note on offsets).
    private var nextOffset = 0
    private let snapshotLength: Int
    private var frameNumber = 0
    private var state = ReaderState.reading
    /// pcapng only: the interface of each packet block (see the type's note).
    private var interfaceWalk: PcapngInterfaceWalk?
    /// pcapng only: the time of Simple Packet Blocks' packets.
    private var timing = SimplePacketTiming()

    /// Opens a pcap or pcapng file.
    public init(path: String) throws(CaptureError) {
        var errorText = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let pcap = pcap_open_offline_with_tstamp_precision(
            path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorText)
        else {
            throw Self.openError(path: path, libpcapText: Self.text(errorText))
        }
        try self.init(handle: PcapHandle(pcap: pcap, memory: nil), path: path, sourcePath: path)
    }

    /// Reads a pcap or pcapng file held in memory (through `fmemopen`).
    public init(bytes: [UInt8], path: String = "<memory>") throws(CaptureError) {
        guard !bytes.isEmpty else { throw CaptureError(path: path, offset: 0, kind: .empty, message: "file is empty") }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        guard let base = memory.baseAddress, let file = fmemopen(base, bytes.count, "rb") else {
            memory.deallocate()
            throw CaptureError(path: path, kind: .unreadable, message: "fmemopen failed: \(Errno.current)")
        }
        var errorText = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let pcap = pcap_fopen_offline_with_tstamp_precision(
            file, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errorText)
        else {
            fclose(file)
            memory.deallocate()
            throw Self.openError(path: path, libpcapText: Self.text(errorText))
        }
        try self.init(handle: PcapHandle(pcap: pcap, memory: memory), path: path, sourcePath: nil)
    }

    private init(handle: PcapHandle, path: String, sourcePath: String?) throws(CaptureError) {
        self.handle = handle
        source = handle
        self.path = path
        self.sourcePath = sourcePath
        let fileLinkType = PcapLinkType(rawValue: UInt32(truncatingIfNeeded: pcap_datalink(handle.pcap)))
        let magic = Self.peek(handle, at: 0, count: 4)
        let format: CaptureFormat = magic == [0x0A, 0x0D, 0x0D, 0x0A] ? .pcapng : .pcap
        var described: [PcapLinkType] = []
        if format == .pcapng {
            described = PcapngInterfaceLinkTypes.described(size: Self.size(handle) ?? 0) { Self.peek(handle, at: $0, count: $1) }
        }
        linkType = described.first { $0.decodedLayer != nil } ?? fileLinkType
        var distinct: [PcapLinkType] = []
        for type in described where !distinct.contains(type) { distinct.append(type) }
        var info = CaptureInfo(format: format, linkType: linkType.rawValue, formatDescription: distinct.count > 1
                               ? "\(format.rawValue), interfaces of " + distinct.map(\.description).joined(separator: ", ")
                               : "\(format.rawValue), \(linkType)")
        if distinct.count > 1 { info.interfaceLinkTypes = described.map(\.rawValue) }
        self.info = info
        snapshotLength = Int(pcap_snapshot(handle.pcap))
        nextOffset = Self.position(handle) ?? 0
        bytesRead = nextOffset
        if format == .pcapng {
            // libpcap has read the Section Header and the first Interface Description Block.
            var walk = PcapngInterfaceWalk()
            _ = walk.advance(to: nextOffset) { Self.peek(handle, at: $0, count: $1) }
            interfaceWalk = walk
        }
        guard linkType.decodedLayer != nil else {
            throw CaptureError(path: path, kind: .unsupported, message: unsupportedMessage())
        }
        if let other = described.first(where: { $0.decodedLayer != nil && $0.decodedLayer != linkType.decodedLayer }) {
            throw CaptureError(path: path, kind: .unsupported, message: layersMixedMessage(other))
        }
    }

    /// Why a pcapng with HCI and LE air interfaces is refused (`other` the first of the layer
    /// that is not `linkType`'s).
    private func layersMixedMessage(_ other: PcapLinkType) -> String {
        let (hci, air) = linkType.decodedLayer == .hci ? (linkType, other) : (other, linkType)
        return "a pcapng with both Bluetooth HCI interfaces (\(hci)) and LE link-layer (air) interfaces (\(air)): "
            + "a timeline holds one layer per capture; split it by interface "
            + "(tshark -r FILE -Y 'frame.interface_id == N' -w part.pcapng) and import the parts"
    }

    /// A libpcap open failure: truncation and bad headers are damage, the rest unknown bytes.
    private static func openError(path: String, libpcapText: String) -> CaptureError {
        let lower = libpcapText.lowercased()
        if lower.contains("unknown file format") || lower.contains("bad dump file format") {
            return CaptureError(path: path, offset: 0, kind: .unknownFormat, message: "libpcap: \(libpcapText)")
        }
        if lower.contains("no such file") || lower.contains("permission denied") || lower.contains("is a directory") {
            return CaptureError(path: path, kind: .unreadable, message: "libpcap: \(libpcapText)")
        }
        return CaptureError(path: path, offset: 0, kind: .corrupt, message: "libpcap: \(libpcapText)")
    }

    /// Why this link type is refused: air captures say so, naming the link type.
    private func unsupportedMessage() -> String {
        let hint = "blereplay reads HCI captures (btsnoop, pcap 187/201/254, PacketLogger) and LE air captures (pcap 251/256/272, or PPI 192 around 251/256)"
        var described = linkType.description
        var inner = linkType
        if linkType == .ppi, let wrapped = firstPPIWrappedLinkType() {
            inner = wrapped
            described += " wrapping \(wrapped)"
        }
        if inner == .bluetoothBREDRBB {
            return "a Bluetooth BR/EDR baseband (air) capture from a sniffer, \(described); \(hint)"
        }
        if inner.isAirCapture {
            return "a Bluetooth LE link-layer (air) capture from a sniffer, \(described); \(hint)"
        }
        return "\(info.format.rawValue) with \(described) is not a Bluetooth HCI capture; \(hint)"
    }

    /// Why a PPI frame is refused: no valid header, or a link type other than LE link layer inside.
    private func ppiRefusal(_ header: PPIHeader?) -> String {
        guard let header else {
            return "\(linkType) frame without a valid PPI header (version 0, length 8 or more within the frame)"
        }
        let kind = header.linkType == .bluetoothBREDRBB ? "a Bluetooth BR/EDR baseband (air) capture"
            : "\(info.format.rawValue) with \(linkType) wrapping \(header.linkType)"
        return "\(kind); blereplay reads PPI around LE link-layer packets (251/256), HCI captures "
            + "(btsnoop, pcap 187/201/254, PacketLogger) and LE air captures (pcap 251/256/272, or PPI 192 around 251/256)"
    }

    /// The link type inside the first packet's PPI header (u8 version, u8 flags, u16 length,
    /// u32 DLT, little-endian; "Per-Packet Information Header Specification" 1.0.10).
    private func firstPPIWrappedLinkType() -> PcapLinkType? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        guard pcap_next_ex(handle.pcap, &header, &data) == 1, let header, let data,
              header.pointee.caplen >= 8 else { return nil }
        return PcapLinkType(rawValue: UnsafeRawPointer(data).uint32(at: 4, bigEndian: false))
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        while true {
            if let held = timing.nextReady() { return held }
            let packet: (record: CaptureRecord?, hasTimestamp: Bool, blockOffset: Int)?
            do {
                packet = try readPacket()
            } catch {
                // Packets held for a timestamp are delivered before the error (which `state` repeats).
                timing.finish()
                if let held = timing.nextReady() { return held }
                throw error
            }
            guard let packet else {
                timing.finish()
                return timing.nextReady()
            }
            // A packet of an interface whose link type is not read: counted, not given.
            guard let read = packet.record else { continue }
            if let record = timing.take(read, hasTimestamp: packet.hasTimestamp, blockOffset: packet.blockOffset) {
                return record
            }
        }
    }

    /// The next packet libpcap reads (nil for a packet of an interface whose link type is not
    /// read), whether its block carries a timestamp (only a pcapng Simple Packet Block does not)
    /// and where its block (pcap: its record) starts; nil at the end.
    private mutating func readPacket() throws(CaptureError) -> (record: CaptureRecord?, hasTimestamp: Bool, blockOffset: Int)? {
        guard case .reading = state else {
            _ = try state.stoppedResult()
            return nil
        }
        let offset = nextOffset
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let status = pcap_next_ex(handle.pcap, &header, &data)
        if status == 1, info.format == .pcap, let header, Int(header.pointee.caplen) < snapshotLength {
            nextOffset = offset + 16 + Int(header.pointee.caplen)
        } else {
            nextOffset = Self.position(handle) ?? nextOffset
        }
        bytesRead = nextOffset
        switch status {
        case 1:
            break
        case PCAP_ERROR_BREAK:
            state = .finished
            return nil
        default:
            if try reopenUnified(after: offset) { return try readPacket() }
            try readFailed(at: offset)
            return nil
        }
        guard let header else {
            state = .finished
            return nil
        }
        let block = interfaceWalk?.advance(to: nextOffset) { [source] in Self.peek(source, at: $0, count: $1) }
        let captured = Int(header.pointee.caplen)
        let packet = UnsafeRawBufferPointer(start: captured > 0 ? data.map(UnsafeRawPointer.init) : nil,
                                            count: data == nil ? 0 : captured)
        let wireLength = Int(header.pointee.len)
        let seconds = Int64(header.pointee.ts.tv_sec)
        let micros = Int64(header.pointee.ts.tv_usec)
        frameNumber += 1
        // pcapng: the packet's own block, past any that are no packet (see the type's note).
        let recordOffset = block?.start ?? offset
        let packetType = try packetLinkType(of: block, offset: recordOffset)
        guard let layer = packetType.decodedLayer else {
            tally.skip(interface: block?.interface ?? 0, linkType: packetType, offset: recordOffset)
            return (nil, block?.hasTimestamp ?? true, recordOffset)
        }
        guard layer == linkType.decodedLayer else {
            let error = CaptureError(path: path, offset: recordOffset, kind: .unsupported, message:
                "record \(frameNumber): pcapng interface \(block?.interface ?? 0) is \(packetType); " + layersMixedMessage(packetType))
            state = .failed(error)
            throw error
        }
        // pcapng carries 64-bit tick counts: more seconds than µs in an Int64 saturate (an absurd
        // timestamp the import warns about) rather than wrap into a plausible-looking one.
        var record = CaptureRecord(frameNumber: frameNumber,
                                   timestamp: seconds.saturatingMultiplied(by: 1_000_000).saturatingAdding(micros),
                                   direction: .unknown, kind: .other, payload: [], fileOffset: recordOffset)
        // A Simple Packet Block's data starts 16 bytes sooner than the Enhanced Packet Block's
        // that decoders count from.
        if let block { record.headerShortfall = PcapngInterfaceWalk.enhancedPacketDataOffset - (block.dataStart - block.start) }
        // Decoders count from where `linkType`'s payload starts; this packet's may start elsewhere.
        record.headerShortfall += linkType.payloadStart - packetType.payloadStart
        switch packetType {
        case .bluetoothLELL, .bluetoothLELLWithPHDR, .nordicBLE:
            record.payload = Array(packet)
            record.rawType = UInt16(truncatingIfNeeded: packetType.rawValue)
            record.direction = AirFrameDirection.direction(linkType: packetType, frame: packet)
            record.originalLength = max(wireLength, packet.count)
        case .ppi:
            // The PPI header is unwrapped here: the record is the LE packet it carries, under the
            // wrapped link type (251/256), as if the file had that link type.
            guard let ppi = PPIHeader(packet), PPIHeader.wrappable.contains(ppi.linkType) else {
                let error = CaptureError(path: path, offset: offset, kind: .unsupported,
                                         message: "record \(frameNumber): " + ppiRefusal(PPIHeader(packet)))
                state = .failed(error)
                throw error
            }
            let inner = UnsafeRawBufferPointer(rebasing: packet[ppi.length...])
            record.payload = Array(inner)
            record.rawType = UInt16(truncatingIfNeeded: ppi.linkType.rawValue)
            record.direction = AirFrameDirection.direction(linkType: ppi.linkType, frame: inner)
            record.originalLength = max(wireLength - ppi.length, inner.count)
            // Decoders count a payload's offsets from the record start plus the pcap record
            // header: the wrapped packet starts pph_len bytes further on.
            record.fileOffset = recordOffset &+ ppi.length
        default:
            // 187, 201 and 254 (`decodedLayer` is nil for any other).
            record.setPcapHCIPacket(packet, wireLength: wireLength, linkType: packetType, interface: block?.interface)
            if let direction = block?.direction { record.direction = direction }
            if mixesMonitorAndH4 { tally.saw(record, linkType: packetType) }
        }
        return (record, block?.hasTimestamp ?? true, block?.start ?? offset)
    }

    /// The link type of the packet in `block` (at `offset`): its interface's (pcapng), else the
    /// file's. A pcapng of several link types whose blocks the walk lost track of cannot say
    /// which a packet has: that stops the read (damage, as libpcap skipping bytes is).
    private mutating func packetLinkType(of block: PcapngInterfaceWalk.PacketBlock?, offset: Int) throws(CaptureError) -> PcapLinkType {
        guard let walk = interfaceWalk else { return linkType }
        if walk.linkTypes.count != interfacesSeen {
            interfacesSeen = walk.linkTypes.count
            mixesMonitorAndH4 = walk.linkTypes.contains(.bluetoothLinuxMonitor)
                && walk.linkTypes.contains { $0 == .bluetoothHCIH4 || $0 == .bluetoothHCIH4WithPHDR }
        }
        if let block, let type = walk.linkType(ofInterface: block.interface) { return type }
        if info.interfaceLinkTypes.isEmpty, walk.linkTypes.allSatisfy({ $0 == linkType }) { return linkType }
        let error = CaptureError(path: path, offset: offset, kind: .corrupt, message: "record \(frameNumber): the pcapng's "
            + "interfaces differ in link type, and the blocks before this packet could not be followed to its interface")
        state = .failed(error)
        throw error
    }

    /// When libpcap stopped at an Interface Description Block whose LinkType or SnapLen differs
    /// from the first one's, reopens the unified copy (see the type's note) past the packets
    /// already read, `previousEnd` being where the last one's block ended, and returns true.
    /// False for any other failure, or once the copy is read.
    private mutating func reopenUnified(after previousEnd: Int) throws(CaptureError) -> Bool {
        let text = String(cString: pcap_geterr(handle.pcap))
        guard handle === source, info.format == .pcapng,
              text.contains("different from the type of the first interface")
                || text.contains("different from the snapshot length of the first interface") else { return false }
        // The first IDB's LinkType as the file has it (libpcap's `pcap_datalink` is its DLT).
        let first = interfaceWalk?.linkTypes.first ?? PcapLinkType(rawValue: UInt32(truncatingIfNeeded: pcap_datalink(source.pcap)))
        let uniform = PcapLinkType.postProcessedByLibpcap.contains(first.rawValue) ? .bluetoothHCIH4WithPHDR : first

        /// The error that ends the read: `error`'s kind, at the record that could not be read.
        func stop(_ error: CaptureError, _ why: String) -> CaptureError {
            let stopped = CaptureError(path: path, offset: previousEnd, kind: error.kind, message: "record \(frameNumber + 1): "
                + "the pcapng's interfaces differ in link type or snapshot length (libpcap: \(text)), and " + why)
            state = .failed(stopped)
            return stopped
        }
        let copy: PcapngUnifiedCopy
        do {
            copy = try PcapngUnifiedCopy(of: source, path: sourcePath, name: path, linkType: uniform)
        } catch {
            throw stop(error, "its copy with one link type could not be made or opened: " + error.message)
        }
        // The packets already given, read again and passed over.
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var passed = 0
        while passed < frameNumber {
            guard pcap_next_ex(copy.handle.pcap, &header, &data) == 1 else {
                let why = String(cString: pcap_geterr(copy.handle.pcap))
                throw stop(CaptureError(path: path, kind: .unreadable, message: why),
                           "its copy with one link type could not be read again (libpcap: \(why))")
            }
            passed += 1
        }
        handle = copy.handle
        unifiedCopy = copy
        nextOffset = previousEnd
        return true
    }

    /// `pcap_next_ex` failed after the packet that ended at `previousEnd`: a short read at the
    /// end of the file is truncation (a warning), anything else damage; either is reported at
    /// the record, or the pcapng block, where it starts.
    private mutating func readFailed(at previousEnd: Int) throws(CaptureError) {
        let text = String(cString: pcap_geterr(handle.pcap))
        // pcapng: blocks libpcap read whole (statistics, name resolution) may come first.
        let offset = interfaceWalk?.damage(size: Self.size(source) ?? previousEnd) { [source] in
            Self.peek(source, at: $0, count: $1)
        } ?? previousEnd
        if let message = otherByteOrderSection(at: offset) {
            let error = CaptureError(path: path, offset: offset, kind: .unsupported,
                                     message: "record \(frameNumber + 1): " + message + " (libpcap: \(text))")
            state = .failed(error)
            throw error
        }
        guard text.contains("truncated") else {
            let error = CaptureError(path: path, offset: offset, kind: .corrupt,
                                     message: "record \(frameNumber + 1): libpcap: \(text)")
            state = .failed(error)
            throw error
        }
        let size = Self.size(source) ?? offset
        let have = max(0, size - offset)
        var need = have + 1
        var header = true
        let swapped = pcap_is_swapped(handle.pcap) != 0
        let bigEndian = (1.bigEndian == 1) != swapped
        let fields = Self.peek(source, at: offset, count: 16)
        fields.withUnsafeBytes { bytes in
            if info.format == .pcapng {
                need = 8
                if let length = bytes.uint32(at: 4, bigEndian: bigEndian) {
                    need = Int(length)
                    header = false
                }
            } else {
                need = 16
                if bytes.count >= 16, let captured = bytes.uint32(at: 8, bigEndian: bigEndian) {
                    need = 16 + Int(captured)
                    header = false
                }
            }
        }
        warnings.append(CaptureWarning(offset: offset, message: truncationMessage(
            recordOffset: offset, have: have, need: max(need, have + 1), header: header)))
        bytesRead = size
        state = .finished
    }

    /// Why libpcap stopped at `offset` when a Section Header Block in the other byte order starts
    /// there: pcapng lets each section have its own byte order (draft-ietf-opsawg-pcapng 4.1:
    /// the SHB's Block Type reads the same either way, its Byte-Order Magic 0x1A2B3C4D tells),
    /// as when two captures from different machines are joined with `cat`; libpcap 1.10 reads the
    /// new section's block lengths in the first section's order and fails on a block size.
    /// Nil when no such section starts there.
    private func otherByteOrderSection(at offset: Int) -> String? {
        guard info.format == .pcapng else { return nil }
        let header = Self.peek(source, at: offset, count: 12)
        guard header.count == 12, Array(header[0..<4]) == [0x0A, 0x0D, 0x0D, 0x0A] else { return nil }
        let sectionBigEndian = Array(header[8..<12]) == [0x1A, 0x2B, 0x3C, 0x4D]
        guard sectionBigEndian || Array(header[8..<12]) == [0x4D, 0x3C, 0x2B, 0x1A] else { return nil }
        let fileBigEndian = (1.bigEndian == 1) != (pcap_is_swapped(handle.pcap) != 0)
        guard sectionBigEndian != fileBigEndian else { return nil }
        let order = { (big: Bool) in big ? "big-endian" : "little-endian" }
        return "a second pcapng section starts at byte \(offset) in the other byte order (\(order(sectionBigEndian)) "
            + "after \(order(fileBigEndian))), as when two captures are joined; libpcap cannot read a file whose "
            + "sections differ in byte order, so the records before it are kept and the rest is not read; "
            + "split the file there (or re-save it with Wireshark) to read the second capture"
    }

    /// The text in a NUL-terminated C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `ftell` on libpcap's stream.
    private static func position(_ handle: PcapHandle) -> Int? {
        guard let file = pcap_file(handle.pcap) else { return nil }
        let position = ftell(file)
        return position >= 0 ? position : nil
    }

    /// Size of the input: the in-memory bytes, or `fstat` on libpcap's descriptor.
    private static func size(_ handle: PcapHandle) -> Int? {
        if let memory = handle.memory { return memory.count }
        guard let file = pcap_file(handle.pcap) else { return nil }
        return Syscall.status(fileno(file))?.size
    }

    /// Up to `count` bytes at `offset` without moving libpcap's position (`pread`, or the memory copy).
    private static func peek(_ handle: PcapHandle, at offset: Int, count: Int) -> [UInt8] {
        if let memory = handle.memory {
            guard offset >= 0, offset < memory.count else { return [] }
            return Array(memory[offset..<min(memory.count, offset + count)])
        }
        guard let file = pcap_file(handle.pcap) else { return [] }
        return (try? Syscall.preadBytes(fileno(file), offset: offset, count: count)) ?? []
    }
}
