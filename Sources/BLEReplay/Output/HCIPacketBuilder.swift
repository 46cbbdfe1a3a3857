import BLECore

/// HCI packets the simulated controller and host exchange, as bytes without the H4 type byte
/// (the form `CaptureRecord.payload` takes).
///
/// Layouts follow Core v5.4 Vol 4 Part E 5.4 (packets), 7.1.6 (Disconnect), 7.7.5
/// (Disconnection Complete), 7.7.14/15 (Command Complete/Status), 7.7.19 (Number Of Completed
/// Packets), 7.7.65.1/2/3 (LE Connection Complete, Advertising Report, Connection Update
/// Complete), 7.8.2 (LE Read Buffer Size), 7.8.10-13 (scan and create connection).
public enum HCIPacketBuilder {
    public enum Opcode {
        public static let disconnect: UInt16 = 0x0406
        public static let reset: UInt16 = 0x0C03
        public static let leReadBufferSize: UInt16 = 0x2002
        public static let leSetScanParameters: UInt16 = 0x200B
        public static let leSetScanEnable: UInt16 = 0x200C
        public static let leCreateConnection: UInt16 = 0x200D
        public static let leCreateConnectionCancel: UInt16 = 0x200E
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// A command: opcode (2, little-endian), parameter length, parameters.
    public static func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
        le16(opcode) + [UInt8(parameters.count)] + parameters
    }

    /// An event: code, parameter length, parameters.
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [code, UInt8(parameters.count)] + parameters
    }

    public static func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8]) -> [UInt8] {
        event(0x0E, [1] + le16(opcode) + returnParameters)
    }

    public static func commandStatus(_ opcode: UInt16, status: UInt8 = 0) -> [UInt8] {
        event(0x0F, [status, 1] + le16(opcode))
    }

    public static func disconnect(handle: UInt16, reason: UInt8) -> [UInt8] {
        command(Opcode.disconnect, le16(handle) + [reason])
    }

    public static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        event(0x05, [0] + le16(handle) + [reason])
    }

    public static func numberOfCompletedPackets(handle: UInt16, count: Int) -> [UInt8] {
        event(0x13, [1] + le16(handle) + le16(UInt16(clamping: count)))
    }

    /// LE Read Buffer Size [v1] return: status, LE ACL data packet length, total packets.
    public static func leReadBufferSizeComplete(packetLength: Int, packets: Int) -> [UInt8] {
        commandComplete(Opcode.leReadBufferSize, [0] + le16(UInt16(clamping: packetLength)) + [UInt8(clamping: packets)])
    }

    /// Connection parameters in HCI units: interval 1.25 ms, supervision timeout 10 ms.
    static func parameterBytes(_ p: ConnectionParameters) -> [UInt8] {
        le16(UInt16(clamping: p.interval / 1250)) + le16(UInt16(clamping: p.latency))
            + le16(UInt16(clamping: p.supervisionTimeout / 10_000))
    }

    public static func leSetScanParameters(active: Bool) -> [UInt8] {
        // type, interval 0x0060 (60 ms), window 0x0030 (30 ms), own address random, accept all.
        command(Opcode.leSetScanParameters, [active ? 1 : 0, 0x60, 0x00, 0x30, 0x00, 0x01, 0x00])
    }

    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> [UInt8] {
        command(Opcode.leSetScanEnable, [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    public static func leCreateConnection(peer: PeerAddress, parameters p: ConnectionParameters) -> [UInt8] {
        var b: [UInt8] = [0x60, 0x00, 0x60, 0x00, 0x00, peer.type]
        b += peer.littleEndianBytes
        b += [0x01]   // own address type: random
        let interval = le16(UInt16(clamping: p.interval / 1250))
        b += interval + interval + le16(UInt16(clamping: p.latency)) + le16(UInt16(clamping: p.supervisionTimeout / 10_000))
        b += [0, 0, 0, 0]
        return command(Opcode.leCreateConnection, b)
    }

    public static func leConnectionComplete(status: UInt8, handle: UInt16, centralRole: Bool, peer: PeerAddress,
                                            parameters: ConnectionParameters) -> [UInt8] {
        var b: [UInt8] = [0x01, status] + le16(handle) + [centralRole ? 0 : 1, peer.type] + peer.littleEndianBytes
        b += parameterBytes(parameters)
        b += [0x00]   // central clock accuracy
        return event(0x3E, b)
    }

    /// Connection Complete (Core v5.4 Vol 4 Part E 7.7.3) of a BR/EDR ACL link: status, handle,
    /// BD_ADDR, Link_Type 0x01 (ACL), Encryption_Enabled 0x00.
    public static func connectionComplete(status: UInt8, handle: UInt16, peer: PeerAddress) -> [UInt8] {
        event(0x03, [status] + le16(handle) + peer.littleEndianBytes + [0x01, 0x00])
    }

    public static func leConnectionUpdateComplete(handle: UInt16, parameters: ConnectionParameters) -> [UInt8] {
        event(0x3E, [0x03, 0x00] + le16(handle) + parameterBytes(parameters))
    }

    /// LE Connection Update Complete (Core v5.4 Vol 4 Part E 7.7.65.3) with its fields as given:
    /// Subevent 0x03, Status, Connection_Handle, Connection_Interval (1.25 ms),
    /// Peripheral_Latency, Supervision_Timeout (10 ms); a failed update's as the recording has them.
    public static func leConnectionUpdateComplete(status: UInt8, handle: UInt16, interval: UInt16, latency: UInt16,
                                                  supervisionTimeout: UInt16) -> [UInt8] {
        event(0x3E, [0x03, status] + le16(handle) + le16(interval) + le16(latency) + le16(supervisionTimeout))
    }

    /// LE PHY Update Complete (Core v5.4 Vol 4 Part E 7.7.65.12): Subevent 0x0C, Status,
    /// Connection_Handle, TX_PHY, RX_PHY.
    public static func lePHYUpdateComplete(status: UInt8, handle: UInt16, tx: UInt8, rx: UInt8) -> [UInt8] {
        event(0x3E, [0x0C, status] + le16(handle) + [tx, rx])
    }

    /// LE Data Length Change (Core v5.4 Vol 4 Part E 7.7.65.7): Subevent 0x07, Connection_Handle,
    /// Max_TX_Octets, Max_TX_Time, Max_RX_Octets, Max_RX_Time.
    public static func leDataLengthChange(handle: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16,
                                          maxRxTime: UInt16) -> [UInt8] {
        event(0x3E, [0x07] + le16(handle) + le16(maxTxOctets) + le16(maxTxTime) + le16(maxRxOctets) + le16(maxRxTime))
    }

    /// One LE Advertising Report (legacy): event type 0 ADV_IND, 4 SCAN_RSP.
    public static func leAdvertisingReport(eventType: UInt8, peer: PeerAddress, data: [UInt8], rssi: Int8) -> [UInt8] {
        let d = Array(data.prefix(31))
        return event(0x3E, [0x02, 0x01, eventType, peer.type] + peer.littleEndianBytes + [UInt8(d.count)] + d
                     + [UInt8(bitPattern: rssi)])
    }

    /// How many ACL packets `aclFragments` makes of a payload of `payloadCount` bytes: its L2CAP
    /// frame (4-byte basic header, Core v5.4 Vol 3 Part A 3.1) in pieces of `fragmentSize`.
    public static func aclFragmentCount(payloadCount: Int, fragmentSize: Int) -> Int {
        let frame = payloadCount + 4
        let size = max(1, fragmentSize)
        return (frame + size - 1) / size
    }

    /// Bytes an ATT PDU's L2CAP framing adds before `aclFragments` cuts it: none on the fixed
    /// channel or a BR/EDR basic-mode channel, the 2-byte SDU length of an Enhanced ATT
    /// bearer's first K-frame (Core v5.4 Vol 3 Part A 3.4.3).
    public static func attFramingOverhead(bearer: UInt16?, transport: LinkTransport) -> Int {
        bearer != nil && transport == .le ? 2 : 0
    }

    /// ACL fragments carrying one ATT PDU on its bearer: a basic frame on the fixed channel
    /// 0x0004 (LE) or on the BR/EDR ATT channel (PSM 0x001F, Vol 3 Part G 5.1: basic mode), one
    /// K-frame with the SDU length on an Enhanced ATT bearer (Vol 3 Part A 3.4.3; the SDU is not
    /// segmented by MPS). The bearer's CID names the channel, as the timeline does (the
    /// requester's Source CID, for both directions); the L2CAP signalling that opened it is not
    /// part of a replay's trace.
    public static func attFragments(handle: UInt16, pdu: [UInt8], bearer: UInt16?, transport: LinkTransport,
                                    fragmentSize: Int, fromHost: Bool) -> [[UInt8]] {
        guard let bearer else { return aclFragments(handle: handle, payload: pdu, fragmentSize: fragmentSize, fromHost: fromHost) }
        let payload = attFramingOverhead(bearer: bearer, transport: transport) > 0 ? le16(UInt16(clamping: pdu.count)) + pdu : pdu
        return aclFragments(handle: handle, channel: bearer, payload: payload, fragmentSize: fragmentSize,
                            fromHost: fromHost, flushableFirst: transport == .bredr)
    }

    /// ACL fragments carrying one L2CAP basic frame on `channel` (ATT is 0x0004), each at most
    /// `fragmentSize` data bytes. Host to controller first fragments use packet boundary 0b00,
    /// controller to host 0b10; continuations 0b01 (Core v5.4 Vol 4 Part E 5.4.2).
    /// `flushableFirst`: a BR/EDR host's first fragments are automatically flushable (0b10).
    public static func aclFragments(handle: UInt16, channel: UInt16 = 0x0004, payload: [UInt8], fragmentSize: Int,
                                    fromHost: Bool, flushableFirst: Bool = false) -> [[UInt8]] {
        let frame = le16(UInt16(clamping: payload.count)) + le16(channel) + payload
        let size = max(1, fragmentSize)
        var out: [[UInt8]] = []
        var offset = 0
        while offset < frame.count {
            let end = min(frame.count, offset + size)
            let boundary: UInt16 = offset == 0 ? (fromHost && !flushableFirst ? 0b00 : 0b10) : 0b01
            let header = le16((handle & 0x0FFF) | boundary << 12) + le16(UInt16(end - offset))
            out.append(header + frame[offset..<end])
            offset = end
        }
        return out
    }
}
