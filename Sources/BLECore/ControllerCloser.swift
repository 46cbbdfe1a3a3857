/// What ends every link of a controller with no Disconnection Complete, as the decoder names it
/// (`ControllerClosed` in BLEDecode), the timeline's link event says it and replay writes it
/// back: btmon's Close Index and Delete Index notes (monitor opcodes 9 and 1, BlueZ's
/// hci_dev_close_sync drops the links itself) and a successful HCI Reset (Core v5.4 Vol 4 Part E
/// 7.3.2).
public enum ControllerCloser: String, Sendable, CaseIterable {
    case closeIndex = "Close Index"
    case deleteIndex = "Delete Index"
    case hciReset = "HCI Reset"

    /// The btmon monitor note that closes a controller, by its opcode.
    public init?(monitorOpcode: UInt16) {
        switch monitorOpcode {
        case 9: self = .closeIndex
        case 1: self = .deleteIndex
        default: return nil
        }
    }

    /// The note's monitor opcode; nil for an HCI Reset, which any HCI capture carries as a
    /// command and its Command Complete.
    public var monitorOpcode: UInt16? {
        switch self {
        case .closeIndex: 9
        case .deleteIndex: 1
        case .hciReset: nil
        }
    }
}
