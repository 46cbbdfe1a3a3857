/// A declarative central (Docs/replay.md "Central scripts").
public struct CentralScript: Sendable {
    public var name: String
    public init(parsing bytes: [UInt8], name: String) throws {
        self.name = name
    }
}
