/// A btmon btsnoop file (datalink 2001: the record flags are `index << 16 | opcode`, BlueZ
/// src/shared/btsnoop.h) built record by record, 10 ms apart, for the shapes only btmon writes:
/// several controllers, New/Close/Delete Index notes. Opcodes: 3 event, 4 ACL from the host,
/// 5 ACL to the host, 9 Close Index, 1 Delete Index.
public struct MonitorCapture {
    public private(set) var bytes = Array("btsnoop".utf8) + [0] + MonitorCapture.be32(1) + MonitorCapture.be32(2001)
    private var ms: Int64 = 0

    public init() {}

    public mutating func record(_ index: UInt32, _ opcode: UInt32, _ body: [UInt8]) {
        ms += 10
        let ts = UInt64(0x00DC_DDB3_0F2F_8000 + 1_777_881_600_000_000 + ms * 1000)
        bytes += Self.be32(UInt32(body.count)) + Self.be32(UInt32(body.count)) + Self.be32(index << 16 | opcode) + Self.be32(0)
            + withUnsafeBytes(of: ts.bigEndian) { Array($0) } + body
    }

    /// LE Connection Complete (Vol 4 Part E 7.7.65.1) on handle 0x0040: central, random peer,
    /// interval 30 ms, timeout 4 s.
    public static func connectionComplete(_ peer: [UInt8]) -> [UInt8] {
        [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01] + peer.reversed() + [0x18, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00]
    }

    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
}
