/// Why bytes could not be decoded, where, and at which layer.
///
/// One error type for every stage (STYLE.md habit 5): the absolute offset lets a user open
/// the capture in a hex editor at the damage.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The protocol layer that rejected the bytes.
    public struct Layer: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let capture = Layer(rawValue: "capture")
        public static let hci = Layer(rawValue: "hci")
        public static let acl = Layer(rawValue: "acl")
        public static let l2cap = Layer(rawValue: "l2cap")
        public static let att = Layer(rawValue: "att")
        public static let smp = Layer(rawValue: "smp")
        public static let signaling = Layer(rawValue: "l2cap-signaling")
        public static let advertising = Layer(rawValue: "advertising")
        public var description: String { rawValue }
    }

    public enum Kind: String, Sendable {
        /// Fewer bytes than the structure needs.
        case truncated
        /// Bytes present but not a valid structure.
        case malformed
        /// A valid structure of a kind this tool does not handle.
        case unsupported
    }

    public var layer: Layer
    /// Absolute byte offset (in the capture file when known).
    public var offset: Int
    public var kind: Kind
    public var reason: String
    /// The record the problem is about when it is an earlier one than the record being decoded:
    /// an L2CAP PDU begun there and discarded incomplete when a later record showed it could not
    /// complete (a new start fragment, the link's end). Nil: the record being decoded. The later
    /// record is not malformed for it (tshark marks nothing there).
    public var frame: Int?

    public init(layer: Layer, offset: Int, kind: Kind, reason: String, frame: Int? = nil) {
        self.layer = layer
        self.offset = offset
        self.kind = kind
        self.reason = reason
        self.frame = frame
    }

    public var description: String { "\(layer) \(kind.rawValue) at byte \(offset): \(reason)" }
}
