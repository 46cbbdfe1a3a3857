import BLECore

/// Find By Type Value Response: the handle ranges that matched (Core v5.4 Vol 3 Part F 3.4.3.4).
///
/// Wire layout: `07 | Handles Information List`, each entry
/// `Found Attribute Handle (2, LE) | Group End Handle (2, LE)`; at least one entry.
public struct ATTFindByTypeValueResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.findByTypeValueResponse

    /// One match: the attribute found and the end of its group.
    public struct HandlesInformation: Sendable, Hashable {
        public var foundAttributeHandle: UInt16
        public var groupEndHandle: UInt16
        public init(foundAttributeHandle: UInt16, groupEndHandle: UInt16) {
            self.foundAttributeHandle = foundAttributeHandle
            self.groupEndHandle = groupEndHandle
        }
    }

    public var handlesInformation: [HandlesInformation]

    public init(handlesInformation: [HandlesInformation]) { self.handlesInformation = handlesInformation }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        var list: [HandlesInformation] = []
        // At least one entry: the first read reports what is missing.
        repeat {
            let found = try r.readUInt16(.little, "Found Attribute Handle (entries are 4 bytes)")
            let end = try r.readUInt16(.little, "Group End Handle (entries are 4 bytes)")
            list.append(HandlesInformation(foundAttributeHandle: found, groupEndHandle: end))
        } while !r.isAtEnd
        handlesInformation = list
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        for entry in handlesInformation {
            bytes.append(le16: entry.foundAttributeHandle)
            bytes.append(le16: entry.groupEndHandle)
        }
    }

    public var fields: [(String, String)] {
        handlesInformation.map {
            ("Handles Information", "\(handleString($0.foundAttributeHandle))..\(handleString($0.groupEndHandle))")
        }
    }

    /// `Find By Type Value Response` (as Wireshark: the ranges are in `fields`).
    public var summary: String { Self.opcode.name }
}
