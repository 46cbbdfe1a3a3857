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
}
