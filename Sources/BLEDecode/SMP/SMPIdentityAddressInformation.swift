import BLECore

/// Identity Address Information: the device's public or static random identity address
/// (Core v5.4 Vol 3 Part H 3.6.5). Not key material.
///
/// Wire layout: `09 | AddrType (1: 0x00 public, 0x01 static random) | BD_ADDR (6, LE)`.
public struct SMPIdentityAddressInformation: SMPPDUBody {
    public static let code = SMPCode.identityAddressInformation
    public var addressType: AddressType
    public var address: BluetoothAddress

    public init(addressType: AddressType, address: BluetoothAddress) {
        self.addressType = addressType
        self.address = address
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        addressType = AddressType(rawValue: try r.readUInt8("AddrType"))
        address = try r.readAddress("BD_ADDR")
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(addressType.rawValue)
        bytes += address.littleEndianArray
    }

    public func fields(keepKeys: Bool) -> [(String, String)] {
        [("Address Type", "\(hex(addressType.rawValue)) \(addressType.name)"), ("BD_ADDR", address.description)]
    }

    /// `Identity Address Information: F8:4F:72:37:B8:FF (random)`.
    public func summary(keepKeys: Bool) -> String { "\(Self.code.name): \(address) (\(addressType.name))" }
}
