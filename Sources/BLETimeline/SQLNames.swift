import BLECore
import BLEDecode

// The timeline's text codes as `StaticString`s, so the per-packet insert binds them without a
// copy (`SQLiteStatement.bindStatic`). The spellings are the enums' raw values: the view contract.

extension Direction {
    var sqlName: StaticString {
        switch self {
        case .sent: "tx"
        case .received: "rx"
        case .unknown: "?"
        }
    }
}

extension PacketKind {
    var sqlName: StaticString {
        switch self {
        case .command: "cmd"
        case .event: "evt"
        case .acl: "acl"
        case .sco: "sco"
        case .iso: "iso"
        case .note: "note"
        case .other: "other"
        }
    }
}

extension PacketLayer {
    var sqlName: StaticString {
        switch self {
        case .hci: "hci"
        case .acl: "acl"
        case .l2cap: "l2cap"
        case .att: "att"
        case .smp: "smp"
        case .signaling: "signaling"
        case .bredr: "bredr"
        case .note: "note"
        case .other: "other"
        case .linkLayer: "ll"
        }
    }
}
