/// The local device's role on a recorded connection (timeline `connection.role`), as a code a
/// connection holds in one byte (`RecordedConnection.role`).
enum RecordedRole: UInt8, Sendable {
    /// The timeline names none.
    case none
    case central
    case peripheral
    /// Another name, held apart (`RecordedConnection.Occasional.otherRole`).
    case other

    init(_ name: String?) {
        switch name {
        case nil: self = .none
        case "central": self = .central
        case "peripheral": self = .peripheral
        default: self = .other
        }
    }

    /// The name, for the roles the code names.
    var name: String? {
        switch self {
        case .central: "central"
        case .peripheral: "peripheral"
        case .none, .other: nil
        }
    }
}
