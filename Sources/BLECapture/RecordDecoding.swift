import BLECore

/// Filling a record's kind, direction, type and payload from the packet encodings the
/// formats share: H4 (type byte + HCI packet) and Linux monitor (opcode + body).
extension CaptureRecord {
    /// An H4 packet: the type byte becomes `kind` and `rawType`, the rest the payload.
    /// An empty packet stays `.other` with no payload.
    mutating func setH4Packet(_ packet: UnsafeRawBufferPointer) {
        guard let base = packet.baseAddress, packet.count > 0 else { return }
        let type = H4PacketType(rawValue: packet[0])
        kind = type.kind
        rawType = UInt16(type.rawValue)
        payload = copyBytes(base + 1, count: packet.count - 1)
    }

    /// A Linux monitor packet: kind and direction from the opcode; System Note and User Logging
    /// bodies become their text (see `MonitorText`), every other body is kept as it is.
    mutating func setMonitorPacket(opcode: MonitorOpcode, index: UInt16, body: UnsafeRawBufferPointer) {
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
}
