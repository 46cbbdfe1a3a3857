/// The btsnoop file header's datalink type (REFERENCE.md "btsnoop"; FTE "BT Snoop File Format").
public struct BtsnoopDatalink: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Unencapsulated HCI (H1): no type byte; flags say command/event vs data.
    public static let h1 = BtsnoopDatalink(rawValue: 1001)
    /// HCI UART (H4): each packet starts with its H4 type byte.
    public static let h4 = BtsnoopDatalink(rawValue: 1002)
    public static let bcsp = BtsnoopDatalink(rawValue: 1003)
    /// HCI Serial (H5, three-wire UART).
    public static let h5 = BtsnoopDatalink(rawValue: 1004)
    /// Linux monitor (`btmon -w`): flags = controller index << 16 | opcode.
    public static let monitor = BtsnoopDatalink(rawValue: 2001)
    public static let simulator = BtsnoopDatalink(rawValue: 2002)

    /// The datalinks BLECapture reads and writes.
    public static let supported: [BtsnoopDatalink] = [.h1, .h4, .monitor]

    public var description: String {
        switch rawValue {
        case 1001: "unencapsulated HCI (H1)"
        case 1002: "HCI UART (H4)"
        case 1003: "HCI BCSP"
        case 1004: "HCI Serial (H5)"
        case 2001: "Linux monitor"
        case 2002: "simulator"
        default: "unknown"
        }
    }
}
