import BLECore

/// Which side of an LE connection sent a data channel PDU.
public enum LinkLayerRole: String, Sendable, Hashable {
    case central
    case peripheral

    /// The other side.
    public var peer: LinkLayerRole { self == .central ? .peripheral : .central }

    /// As the timeline spells direction: central to peripheral is `sent` ("tx"), peripheral
    /// to central `received` ("rx"), as Wireshark's nRF Sniffer dissector does.
    public var direction: Direction { self == .central ? .sent : .received }
}

/// What a sniffer's pseudo-header says about one air packet, and where the packet starts.
///
/// Three link types (tcpdump.org "Link-layer header types"):
/// - 251 `LINKTYPE_BLUETOOTH_LE_LL`: no pseudo-header; the frame is the LE packet from its
///   access address on.
/// - 256 `LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR` (Ubertooth, Sniffle): 10 bytes, little-endian:
///   RF channel u8 (0-39, Core v5.4 Vol 6 Part A 2), signal power i8 (dBm), noise power i8,
///   access address offenses u8, reference access address u32, flags u16 (0x0001 dewhitened,
///   0x0002 signal valid, 0x0004 noise valid, 0x0008 decrypted, 0x0010 reference access
///   address valid, 0x0020 offenses valid, 0x0040 channel aliased, 0x0380 PDU type (0
///   advertising or unspecified data, 1 auxiliary advertising, 2 data central to peripheral,
///   3 data peripheral to central, 4/5 connected isochronous, 6 broadcast isochronous),
///   0x0400 CRC checked, 0x0800 CRC valid, 0x1000 MIC checked, 0x2000 MIC valid, 0xC000 PHY).
/// - 272 `LINKTYPE_NORDIC_BLE` (nRF Sniffer): board id u8, then by header version (byte 3):
///   version 1 `header length u8, payload length u8, version u8, packet counter u16, packet id
///   u8`; version 2 and 3 `payload length u16, version u8, packet counter u16, packet id u8`;
///   the legacy form starts `BE EF, packet id u8, counter u16, 2 unused, payload length u8`.
///   Then the event packet: length u8 (itself included; 10), flags u8, channel index u8,
///   RSSI sample u8 (RSSI = -sample dBm), event counter u16, delta time or timestamp u32 (µs).
///   Flags of a data PDU: bit 0 CRC OK, bit 1 direction (1 = central to peripheral), bit 2
///   encrypted, bit 3 MIC OK, bits 4-6 PHY; of an advertising PDU: bit 0 CRC OK, bits 1-2 the
///   auxiliary PDU type on a secondary channel (0 AUX_ADV_IND, 1 AUX_CHAIN_IND, 2 AUX_SYNC_IND,
///   3 AUX_SCAN_RSP), bit 3 address resolved, bits 4-6 PHY. In versions before 3 the access
///   address tells advertising (0x8E89BED6) from data; version 3 says it with packet id 0x02
///   (advertising) or 0x06 (data).
///
/// A Nordic header whose payload length disagrees with the frame is refused (Wireshark does
/// not dissect such a frame either).
public struct SnifferHeader: Sendable, Hashable {
    /// How the sniffer framed the packet.
    public enum Format: Sendable, Hashable {
        /// LINKTYPE 251: no pseudo-header.
        case none
        /// LINKTYPE 256.
        case rf
        /// LINKTYPE 272 with its header version (0 for the legacy 0xBEEF form).
        case nordic(version: UInt8)
    }

    /// What kind of PDU the sniffer says follows (`unknown` when it does not say).
    public enum PDUKind: Sendable, Hashable {
        case advertising
        case auxiliaryAdvertising
        case data
        case isochronous
        case unknown
    }

    public static let rfLinkType: UInt16 = 256
    public static let plainLinkType: UInt16 = 251
    public static let nordicLinkType: UInt16 = 272

    public var format: Format
    /// Bytes before the access address.
    public var length: Int
    /// Link-layer channel index 0-39 (37-39 primary advertising channels).
    public var channelIndex: UInt8?
    /// Received signal strength in dBm.
    public var rssi: Int8?
    public var noise: Int8?
    /// The sender of a data channel PDU, when the sniffer records it.
    public var sender: LinkLayerRole?
    public var pduKind: PDUKind = .unknown
    /// Nil when the sniffer did not check the CRC.
    public var crcValid: Bool?
    /// Nil when the sniffer did not check a MIC.
    public var micValid: Bool?
    /// The sniffer says the PDU was encrypted on air (nRF Sniffer flag).
    public var encrypted = false
    /// The sniffer decrypted the PDU: its payload is plaintext.
    public var decrypted = false
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded (as the sniffer encodes it).
    public var phy: UInt8?
    /// The connection event counter (nRF Sniffer).
    public var eventCounter: UInt16?
    /// nRF Sniffer auxiliary PDU type on a secondary advertising channel.
    public var auxiliaryType: UInt8?
    public var referenceAccessAddress: UInt32?
    public var accessAddressOffenses: UInt8?

    public init(format: Format, length: Int) {
        self.format = format
        self.length = length
    }

    /// Reads the pseudo-header of a frame of LINKTYPE `linkType`. Offsets in errors are
    /// `baseOffset` + position in `frame`.
    public init(linkType: UInt16, decoding frame: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var r = ByteReader(frame, baseOffset: baseOffset, layer: .linkLayer)
        switch linkType {
        case Self.plainLinkType:
            self.init(format: .none, length: 0)
        case Self.rfLinkType:
            self.init(format: .rf, length: 10)
            try readRF(&r)
        case Self.nordicLinkType:
            self.init(format: .nordic(version: 0), length: 0)
            try readNordic(&r, frameLength: frame.count)
        default:
            throw r.error("LINKTYPE \(linkType) is not an LE link-layer capture", kind: .unsupported)
        }
    }

    /// The 10-byte LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR header.
    private mutating func readRF(_ r: inout ByteReader) throws(DecodeError) {
        let rf = try r.readUInt8("RF Channel")
        let signal = try r.readInt8("Signal Power")
        let noisePower = try r.readInt8("Noise Power")
        let offenses = try r.readUInt8("Access Address Offenses")
        let reference = try r.readUInt32(.little, "Reference Access Address")
        let flags = try r.readUInt16(.little, "Flags")
        channelIndex = Self.channelIndex(rfChannel: rf)
        if flags & 0x0002 != 0 { rssi = signal }
        if flags & 0x0004 != 0 { noise = noisePower }
        if flags & 0x0008 != 0 { decrypted = true }
        if flags & 0x0010 != 0 { referenceAccessAddress = reference }
        if flags & 0x0020 != 0 { accessAddressOffenses = offenses }
        switch (flags >> 7) & 0x7 {
        case 1: pduKind = .auxiliaryAdvertising
        case 2: pduKind = .data; sender = .central
        case 3: pduKind = .data; sender = .peripheral
        case 4: pduKind = .isochronous; sender = .central
        case 5: pduKind = .isochronous; sender = .peripheral
        case 6: pduKind = .isochronous
        default: pduKind = .unknown
        }
        if flags & 0x0400 != 0 { crcValid = flags & 0x0800 != 0 }
        if flags & 0x1000 != 0 { micValid = flags & 0x2000 != 0 }
        phy = UInt8(truncatingIfNeeded: flags >> 14)
    }

    /// The nRF Sniffer header, any version.
    private mutating func readNordic(_ r: inout ByteReader, frameLength: Int) throws(DecodeError) {
        let start = r.absoluteOffset
        let first = try r.readUInt8("Board")
        let second = r.peekUInt8()
        var version: UInt8
        var declaredTotal: Int
        let legacy = first == 0xBE && second == 0xEF
        if legacy {
            // Legacy: BE EF | id | counter u16 | unused u16 | payload length u8.
            try r.skip(1, "legacy marker")
            try r.skip(1 + 2 + 2, "Packet ID, Packet counter, unused")
            version = 0
            declaredTotal = 8 + Int(try r.readUInt8("Length of payload"))
        } else if r.peekUInt8(at: 2) == 1 {
            // Version 1: header length u8 | payload length u8 | version | counter u16 | id.
            let headerLength = Int(try r.readUInt8("Length of header"))
            let payloadLength = Int(try r.readUInt8("Length of payload"))
            version = try r.readUInt8("Protocol version")
            try r.skip(3, "Packet counter, Packet ID")
            declaredTotal = 1 + headerLength + payloadLength
        } else {
            // Version 2 and later: payload length u16 | version | counter u16 | id.
            let payloadLength = Int(try r.readUInt16(.little, "Length of payload"))
            version = try r.readUInt8("Protocol version")
            try r.skip(2, "Packet counter")
            let packetID = try r.readUInt8("Packet ID")
            if version >= 3 {
                pduKind = packetID == 0x06 ? .data : packetID == 0x02 ? .advertising : .unknown
            }
            declaredTotal = 7 + payloadLength
        }
        format = .nordic(version: version)
        if declaredTotal != frameLength {
            throw DecodeError(layer: .linkLayer, offset: start, kind: declaredTotal > frameLength ? .truncated : .malformed,
                              reason: "nRF Sniffer header: lengths add up to \(declaredTotal) bytes, frame has \(frameLength)")
        }
        let packetHeaderStart = r.index - r.bytes.startIndex
        var packetHeaderLength = 9
        if !legacy {
            packetHeaderLength = Int(try r.readUInt8("Length of packet"))
            if packetHeaderLength < 10 {
                throw DecodeError(layer: .linkLayer, offset: r.absoluteOffset - 1, kind: .malformed,
                                  reason: "nRF Sniffer Length of packet \(packetHeaderLength): the event header needs 10")
            }
        }
        let flags = try r.readUInt8("Flags")
        let channel = try r.readUInt8("Channel Index")
        let sample = try r.readUInt8("RSSI")
        eventCounter = try r.readUInt16(.little, "Event counter")
        try r.skip(4, version >= 3 ? "Timestamp" : "Delta time")
        length = packetHeaderStart + packetHeaderLength
        if r.bytes.count < length {
            throw DecodeError(layer: .linkLayer, offset: r.absoluteOffset, kind: .truncated,
                              reason: "nRF Sniffer event header of \(packetHeaderLength) bytes is cut short")
        }
        channelIndex = channel
        rssi = Int8(clamping: -Int(sample))
        crcValid = flags & 0x01 != 0
        phy = (flags >> 4) & 0x07
        if version < 3 {
            let i = r.bytes.startIndex + length
            if r.bytes.count >= length + 4 {
                let aa = UInt32(r.bytes[i]) | UInt32(r.bytes[i + 1]) << 8 | UInt32(r.bytes[i + 2]) << 16
                    | UInt32(r.bytes[i + 3]) << 24
                pduKind = aa == LinkLayerPacket.advertisingAccessAddress ? .advertising : .data
            }
        }
        switch pduKind {
        case .data:
            sender = flags & 0x02 != 0 ? .central : .peripheral
            encrypted = flags & 0x04 != 0
            if encrypted {
                micValid = flags & 0x08 != 0
                decrypted = micValid == true
            }
        case .advertising, .auxiliaryAdvertising:
            if channel < 37 { auxiliaryType = (flags >> 1) & 0x03 }
        case .isochronous, .unknown:
            break
        }
    }

    /// Link-layer channel index of RF channel `rf` (Core v5.4 Vol 6 Part A 2, Part B 1.4.1):
    /// RF 0, 12 and 39 are advertising channels 37, 38, 39; the others data channels 0-36.
    public static func channelIndex(rfChannel rf: UInt8) -> UInt8? {
        switch rf {
        case 0: 37
        case 12: 38
        case 39: 39
        case 1...11: rf - 1
        case 13...38: rf - 2
        default: nil
        }
    }

    /// `nRF Sniffer`, `LE LL RF`, `LE LL`: how summaries name the capture format.
    public var formatName: String {
        switch format {
        case .none: "LE LL"
        case .rf: "LE LL RF"
        case .nordic: "nRF Sniffer"
        }
    }
}
