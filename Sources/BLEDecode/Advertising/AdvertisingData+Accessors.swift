import BLECore

// Typed views of AD structures (Core Specification Supplement Part A, section per accessor).

extension AdvertisingData {
    /// Flags (CSS Part A 1.3): the first data octet of the first Flags structure.
    public var flags: ADFlags? { firstData(of: .flags)?.first.map(ADFlags.init(rawValue:)) }

    /// Incomplete List of 16-bit Service Class UUIDs (CSS Part A 1.1).
    public var incompleteServiceUUIDs16: [BluetoothUUID] { uuids(.incompleteServiceUUIDs16, size: 2) }
    /// Incomplete List of 32-bit Service Class UUIDs.
    public var incompleteServiceUUIDs32: [BluetoothUUID] { uuids(.incompleteServiceUUIDs32, size: 4) }
    /// Incomplete List of 128-bit Service Class UUIDs.
    public var incompleteServiceUUIDs128: [BluetoothUUID] { uuids(.incompleteServiceUUIDs128, size: 16) }
    /// Complete List of 16-bit Service Class UUIDs.
    public var completeServiceUUIDs16: [BluetoothUUID] { uuids(.completeServiceUUIDs16, size: 2) }
    /// Complete List of 32-bit Service Class UUIDs.
    public var completeServiceUUIDs32: [BluetoothUUID] { uuids(.completeServiceUUIDs32, size: 4) }
    /// Complete List of 128-bit Service Class UUIDs.
    public var completeServiceUUIDs128: [BluetoothUUID] { uuids(.completeServiceUUIDs128, size: 16) }

    /// Every advertised service UUID, complete and incomplete lists of all sizes, in the order
    /// they appear, without duplicates (what CoreBluetooth gives as `kCBAdvDataServiceUUIDs`).
    public var serviceUUIDs: [BluetoothUUID] {
        unique(structures.flatMap { s -> [BluetoothUUID] in
            switch s.type.rawValue {
            case 0x02, 0x03: Self.uuidList(s.data, size: 2)
            case 0x04, 0x05: Self.uuidList(s.data, size: 4)
            case 0x06, 0x07: Self.uuidList(s.data, size: 16)
            default: []
            }
        })
    }

    /// True when the data carries at least one service UUID list and every one of them is a
    /// "complete" list (types 0x03, 0x05, 0x07): the device claims to have named all its services.
    public var serviceUUIDsComplete: Bool {
        let lists = structures.filter { (0x02...0x07).contains($0.type.rawValue) }
        return !lists.isEmpty && lists.allSatisfy { $0.type.rawValue & 1 == 1 }
    }

    /// Service Solicitation UUIDs of all sizes (CSS Part A 1.10), in order, without duplicates.
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        unique(structures.flatMap { s -> [BluetoothUUID] in
            switch s.type.rawValue {
            case 0x14: Self.uuidList(s.data, size: 2)
            case 0x1F: Self.uuidList(s.data, size: 4)
            case 0x15: Self.uuidList(s.data, size: 16)
            default: []
            }
        })
    }

    /// The local name (CSS Part A 1.2): the complete name when there is one, else the
    /// shortened one. UTF-8 decoded lossily; trailing NUL padding dropped.
    public var localName: String? {
        guard let raw = firstData(of: .completeLocalName) ?? firstData(of: .shortenedLocalName) else { return nil }
        var bytes = raw[...]
        while bytes.last == 0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when `localName` is a Shortened Local Name (no complete name is present).
    public var isShortenedName: Bool {
        firstData(of: .completeLocalName) == nil && firstData(of: .shortenedLocalName) != nil
    }

    /// Tx Power Level in dBm (CSS Part A 1.5).
    public var txPowerLevel: Int8? { firstData(of: .txPowerLevel)?.first.map { Int8(bitPattern: $0) } }

    /// Appearance (CSS Part A 1.12): category in bits 6-15, subcategory in bits 0-5.
    public var appearance: UInt16? { firstData(of: .appearance).flatMap { Self.uint(from: $0, count: 2) }.map(UInt16.init) }

    /// Manufacturer Specific Data (CSS Part A 1.4): company identifier (little-endian) and the
    /// rest, for every such structure.
    public var manufacturerData: [(companyID: UInt16, data: [UInt8])] {
        data(of: .manufacturerSpecificData).compactMap { d in
            guard d.count >= 2 else { return nil }
            return (companyID: UInt16(d[0]) | UInt16(d[1]) << 8, data: Array(d[2...]))
        }
    }

    /// Service Data with 16-, 32- and 128-bit UUIDs (CSS Part A 1.11; types 0x16, 0x20, 0x21).
    public var serviceData: [(uuid: BluetoothUUID, data: [UInt8])] {
        structures.compactMap { s in
            let size: Int
            switch s.type.rawValue {
            case 0x16: size = 2
            case 0x20: size = 4
            case 0x21: size = 16
            default: return nil
            }
            guard s.data.count >= size, let uuid = BluetoothUUID(littleEndian: s.data.prefix(size)) else { return nil }
            return (uuid: uuid, data: Array(s.data.dropFirst(size)))
        }
    }

    /// Advertising Interval in units of 0.625 ms (CSS Part A 1.15): type 0x1A with 2, 3 or 4
    /// octets, else Advertising Interval - long (0x2F, 3 or 4 octets). Little-endian.
    public var advertisingInterval: UInt32? {
        if let d = firstData(of: .advertisingInterval), d.count >= 2 { return Self.uint(from: d, count: min(d.count, 4)) }
        if let d = firstData(of: .advertisingIntervalLong), d.count >= 3 { return Self.uint(from: d, count: min(d.count, 4)) }
        return nil
    }

    /// `advertisingInterval` in milliseconds.
    public var advertisingIntervalMilliseconds: Double? { advertisingInterval.map { Double($0) * 0.625 } }

    /// Peripheral Connection Interval Range in units of 1.25 ms (CSS Part A 1.9); 0xFFFF in
    /// either bound means "no specific value".
    public var peripheralConnectionIntervalRange: (min: UInt16, max: UInt16)? {
        guard let d = firstData(of: .peripheralConnectionIntervalRange), d.count >= 4 else { return nil }
        return (min: UInt16(d[0]) | UInt16(d[1]) << 8, max: UInt16(d[2]) | UInt16(d[3]) << 8)
    }

    /// Public Target Addresses (CSS Part A 1.13), each 6 octets little-endian on the wire.
    public var publicTargetAddresses: [BluetoothAddress] { addresses(.publicTargetAddress) }
    /// Random Target Addresses (CSS Part A 1.14).
    public var randomTargetAddresses: [BluetoothAddress] { addresses(.randomTargetAddress) }

    /// LE Role (CSS Part A 1.17).
    public var leRole: ADLERole? { firstData(of: .leRole)?.first.map(ADLERole.init(rawValue:)) }

    /// URI (CSS Part A 1.18): the scheme code point (the first UTF-8 character, Assigned
    /// Numbers "URI Schemes") expanded for the empty scheme (U+0001), `http:` (U+0016) and
    /// `https:` (U+0017); other schemes are shown as `[scheme 0xNNNN]` before the rest.
    public var uri: String? {
        guard let d = firstData(of: .uri), !d.isEmpty else { return nil }
        let text = String(decoding: d, as: UTF8.self)
        guard let first = text.unicodeScalars.first else { return nil }
        let rest = String(text.unicodeScalars.dropFirst())
        switch first.value {
        case 0x01: return rest
        case 0x16: return "http:" + rest
        case 0x17: return "https:" + rest
        default: return "[scheme \(hex(first.value, width: 4))]" + rest
        }
    }

    /// Class of Device (CSS Part A 1.6): 24 bits, little-endian.
    public var classOfDevice: UInt32? {
        guard let d = firstData(of: .classOfDevice), d.count >= 3 else { return nil }
        return Self.uint(from: d, count: 3)
    }

    // MARK: helpers

    func uuids(_ type: ADType, size: Int) -> [BluetoothUUID] {
        data(of: type).flatMap { Self.uuidList($0, size: size) }
    }

    /// Whole UUIDs of `size` octets; a leftover tail is ignored (and named in `problem`).
    static func uuidList(_ data: [UInt8], size: Int) -> [BluetoothUUID] {
        stride(from: 0, to: data.count - size + 1, by: size).compactMap {
            BluetoothUUID(littleEndian: data[$0..<($0 + size)])
        }
    }

    func addresses(_ type: ADType) -> [BluetoothAddress] {
        data(of: type).flatMap { d in
            stride(from: 0, to: d.count - 5, by: 6).map { BluetoothAddress(littleEndianBytes: d[$0..<($0 + 6)]) }
        }
    }

    /// A little-endian unsigned integer from the first `count` (1-4) bytes.
    static func uint(from d: [UInt8], count: Int) -> UInt32? {
        guard count >= 1, count <= 4, d.count >= count else { return nil }
        var v: UInt32 = 0
        for i in (0..<count).reversed() { v = v << 8 | UInt32(d[i]) }
        return v
    }

    func unique(_ list: [BluetoothUUID]) -> [BluetoothUUID] {
        var seen = Set<BluetoothUUID>()
        return list.filter { seen.insert($0).inserted }
    }
}
