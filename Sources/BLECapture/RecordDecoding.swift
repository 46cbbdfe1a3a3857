import BLECore

/// Filling a record's kind, direction, type and payload from the packet encodings the
/// formats share: H4 (type byte + HCI packet) and Linux monitor (opcode + body); the readers
/// here and BLELive's stream decoders all go through these, so a packet means one thing.
extension CaptureRecord {
    /// An H4 packet: the type byte becomes `kind` and `rawType`, the rest the payload.
    /// An empty packet stays `.other` with no payload.
    package mutating func setH4Packet(_ packet: UnsafeRawBufferPointer) {
        guard let base = packet.baseAddress, packet.count > 0 else { return }
        let type = H4PacketType(rawValue: packet[0])
        kind = type.kind
        rawType = UInt16(type.rawValue)
        payload = copyBytes(base + 1, count: packet.count - 1)
    }

    /// A Linux monitor packet: kind and direction from the opcode; System Note and User Logging
    /// bodies become their text (see `MonitorText`), every other body is kept as it is.
    package mutating func setMonitorPacket(opcode: MonitorOpcode, index: UInt16, body: UnsafeRawBufferPointer) {
        controllerIndex = index
        rawType = opcode.rawValue
        (kind, direction) = opcode.classification
        switch opcode {
        case .systemNote:
            payload = MonitorText.systemNote(body)
        case .userLogging:
            payload = MonitorText.userLogging(body) ?? Array(body)
        default:
            payload = body.baseAddress.map { copyBytes($0, count: body.count) } ?? []
        }
    }

    /// A btsnoop record's packet in a file of `datalink`, `flags` from its header: H4 takes the
    /// type byte as kind and `rawType`; H1 takes command/event/ACL from flags bit 1 and the H4
    /// type as `rawType`; monitor takes opcode and controller index from the flags. Direction
    /// is flags bit 0 (received) for H4 and H1, the opcode's for monitor.
    package mutating func setBtsnoopPacket(flags: UInt32, datalink: BtsnoopDatalink, body: UnsafeRawBufferPointer) {
        switch datalink {
        case .h4:
            direction = flags & 1 != 0 ? .received : .sent
            setH4Packet(body)
        case .h1:
            let received = flags & 1 != 0
            direction = received ? .received : .sent
            let type: H4PacketType = flags & 2 == 0 ? .acl : (received ? .event : .command)
            kind = type.kind
            rawType = UInt16(type.rawValue)
            payload = body.baseAddress.map { copyBytes($0, count: body.count) } ?? []
        default:
            setMonitorPacket(opcode: MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: flags)),
                             index: UInt16(truncatingIfNeeded: flags >> 16), body: body)
        }
    }

    /// A pcap record's packet of an HCI link type: 187 (the H4 packet; commands sent, events
    /// received, the rest unknown), 201 (a 4-byte big-endian direction, 0 sent, then the H4
    /// packet) or, for any other, 254 (2-byte big-endian controller index and monitor opcode,
    /// then the body). `wireLength` is the record header's original length; `interface` the
    /// pcapng interface, the controller of 187 and 201 (tcpdump.org LINKTYPE_BLUETOOTH_HCI_H4,
    /// LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR, LINKTYPE_BLUETOOTH_LINUX_MONITOR).
    package mutating func setPcapHCIPacket(_ packet: UnsafeRawBufferPointer, wireLength: Int, linkType: PcapLinkType,
                                           interface: UInt32?) {
        switch linkType {
        case .bluetoothHCIH4:
            setH4Packet(packet)
            if kind == .command { direction = .sent }
            if kind == .event { direction = .received }
            originalLength = max(wireLength, packet.count)
            controllerIndex = UInt16(clamping: interface ?? 0)
        case .bluetoothHCIH4WithPHDR:
            if let flag = packet.bigEndianUInt32(at: 0) {
                direction = flag == 0 ? .sent : .received
                setH4Packet(UnsafeRawBufferPointer(rebasing: packet[4...]))
            } else {
                payload = Array(packet)
            }
            originalLength = max(wireLength - 4, packet.count - 4, payload.count)
            controllerIndex = UInt16(clamping: interface ?? 0)
        default:
            if packet.count >= 4 {
                let index = UInt16(packet[0]) << 8 | UInt16(packet[1])
                let opcode = MonitorOpcode(rawValue: UInt16(packet[2]) << 8 | UInt16(packet[3]))
                setMonitorPacket(opcode: opcode, index: index, body: UnsafeRawBufferPointer(rebasing: packet[4...]))
            } else {
                payload = Array(packet)
            }
            originalLength = max(wireLength - 4, packet.count - 4, 0)
        }
    }
}
