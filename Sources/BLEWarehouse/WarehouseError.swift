/// Why the warehouse could not do what was asked.
public struct WarehouseError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// No connection to the server (down, wrong host or port, refused, authentication):
        /// exit 69. Nothing was stored that was not committed; running again is safe.
        case unreachable
        /// The warehouse's schema was written by a newer blereplay.
        case newerSchema
        /// The URL is neither a libpq connection string nor a URI.
        case badURL
        /// A statement failed.
        case query
    }

    public var kind: Kind
    /// Never holds the URL's password (`WarehouseURL.redact`).
    public var message: String
    public var description: String { message }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
