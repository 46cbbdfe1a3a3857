/// Why a capture could not be opened, read or written: names the file and, when known,
/// the absolute byte offset of the damage (DESIGN.md: errors name the file and the offset).
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The file could not be opened or read (missing, a directory, permissions, I/O error).
        case unreadable
        /// The file has no bytes at all.
        case empty
        /// The bytes are not any capture format this library knows.
        case unknownFormat
        /// A known format or variant this library does not read (air captures, btsnoop H5...).
        case unsupported
        /// Damage inside the file: impossible lengths, bad headers, undecodable sections.
        case corrupt
        /// An output file could not be created or written (writers only).
        case unwritable
    }

    public var path: String
    /// Absolute byte offset in the file; nil when the problem has no single position.
    public var offset: Int?
    public var kind: Kind
    public var message: String

    public init(path: String, offset: Int? = nil, kind: Kind, message: String) {
        self.path = path
        self.offset = offset
        self.kind = kind
        self.message = message
    }

    /// `PATH: byte OFFSET: message`, or `PATH: message` without an offset.
    public var description: String {
        if let offset { return "\(path): byte \(offset): \(message)" }
        return "\(path): \(message)"
    }
}
