import BLECore
import BLEDecode

/// Rebuilds the GATT databases of one link: the remote device's and the local device's, each
/// from the PDUs between that server and its client (`GATTServerSide`, Core v5.4 Vol 3 Part G
/// 2.2). Both may use the same handles; they never mix.
public struct GATTReconstructor {
    private var servers: [GATTServerSide: GATTServerReconstructor] = [:]

    public init() {}

    public mutating func add(_ p: StoredATTPDU) {
        servers[GATTServerSide(direction: p.direction, opcode: p.opcode), default: GATTServerReconstructor()].add(p)
    }

    /// The database of one side's server, as far as its client discovered and used it.
    public func database(_ side: GATTServerSide) -> GATTDatabase {
        servers[side]?.database ?? GATTDatabase()
    }

    /// Handles the client named in requests to one side's server.
    public func usedHandles(_ side: GATTServerSide) -> Set<UInt16> {
        servers[side]?.usedHandles ?? []
    }
}
