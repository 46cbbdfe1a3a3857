/// Why a live source or output failed: names the source and, when known, the byte offset in
/// its stream (DESIGN.md: errors name the file and the offset).
public struct LiveError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The source does not exist on this machine (no AF_BLUETOOTH, no such file, refused).
        case unavailable
        /// Permission to open the source is missing (CAP_NET_RAW for the monitor socket).
        case permission
        /// The bytes are neither btsnoop nor H4, or a record is impossible.
        case malformed
        /// Reading or writing failed (I/O error, disk full).
        case io
    }

    /// `monitor`, a path, `<stdin>`, `tcp:HOST:PORT`, or an output path.
    public var source: String
    /// Absolute offset in the source's byte stream, when the problem has one.
    public var offset: Int?
    public var kind: Kind
    public var message: String

    public init(source: String, offset: Int? = nil, kind: Kind, message: String) {
        self.source = source
        self.offset = offset
        self.kind = kind
        self.message = message
    }

    /// `SOURCE: byte OFFSET: message`, or `SOURCE: message`.
    public var description: String {
        if let offset { return "\(source): byte \(offset): \(message)" }
        return "\(source): \(message)"
    }
}
