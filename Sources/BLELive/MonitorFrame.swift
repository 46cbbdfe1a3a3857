import BLECore
import BLECapture

/// One frame of the Linux Bluetooth monitor channel (what btmon reads from its socket).
///
/// Layout (kernel `include/net/bluetooth/hci_mon.h` `struct hci_mon_hdr`, the same as the
/// header libpcap's `pcap-bt-monitor-linux.c` reads): opcode u16, controller index u16,
/// payload length u16, all little-endian, then `length` bytes of payload. The opcodes are the
/// btsnoop 2001 ones (REFERENCE.md; `MonitorOpcode`). One frame per datagram.
public struct MonitorFrame: Sendable, Hashable {
    public static let headerLength = 6

    public var opcode: MonitorOpcode
    public var controllerIndex: UInt16
    public var payload: [UInt8]

    public init(opcode: MonitorOpcode, controllerIndex: UInt16, payload: [UInt8]) {
        self.opcode = opcode
        self.controllerIndex = controllerIndex
        self.payload = payload
    }

    /// Why bytes are not a monitor frame.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses one datagram; the declared length must match the bytes received.
    public init(decoding bytes: ArraySlice<UInt8>) throws(FormatError) {
        guard bytes.count >= Self.headerLength else {
            throw FormatError(message: "\(bytes.count)-byte frame is shorter than the 6-byte monitor header")
        }
        let b = bytes.startIndex
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[b + at]) | UInt16(bytes[b + at + 1]) << 8 }
        let length = Int(u16(4))
        let carried = bytes.count - Self.headerLength
        guard length == carried else {
            throw FormatError(message: "monitor header declares \(length) payload bytes, the frame carries \(carried)")
        }
        opcode = MonitorOpcode(rawValue: u16(0))
        controllerIndex = u16(2)
        payload = Array(bytes.dropFirst(Self.headerLength))
    }

    /// The frame's bytes: header (little-endian) and payload.
    public var bytes: [UInt8] {
        let length = UInt16(truncatingIfNeeded: payload.count)
        return [UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(truncatingIfNeeded: opcode.rawValue >> 8),
                UInt8(truncatingIfNeeded: controllerIndex), UInt8(truncatingIfNeeded: controllerIndex >> 8),
                UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8)] + payload
    }

    /// The capture record, as the btsnoop 2001 reader makes it of the same opcode and payload.
    public func record(timestamp: Int64, frameNumber: Int, streamOffset: Int) -> CaptureRecord {
        var record = CaptureRecord(frameNumber: frameNumber, timestamp: timestamp, direction: .unknown, kind: .other,
                                   payload: [], fileOffset: streamOffset, originalLength: payload.count)
        payload.withUnsafeBytes { record.setMonitorPacket(opcode: opcode, index: controllerIndex, body: $0) }
        return record
    }

    /// The frame as a btsnoop 2001 record: flags `index << 16 | opcode`, the payload as body.
    func packet(timestamp: Int64) -> BtsnoopPacket {
        BtsnoopPacket(flags: UInt32(controllerIndex) << 16 | UInt32(opcode.rawValue), originalLength: UInt32(payload.count),
                      cumulativeDrops: 0, timestamp: timestamp, body: payload)
    }

    /// The frame that carries `record` (what the kernel would have sent), or nil for a record
    /// with no monitor form or a body longer than a frame's u16 length; used by tests and tools
    /// that feed a monitor reader.
    public init?(record: CaptureRecord) {
        guard let monitor = RecordEncoding.monitorPacket(record), monitor.body.count <= Int(UInt16.max) else { return nil }
        opcode = monitor.opcode
        controllerIndex = record.controllerIndex
        payload = monitor.body
    }
}
