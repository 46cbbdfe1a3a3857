import BLECore

/// What Find Information (Core v5.4 Vol 3 Part F 3.4.3.1/3.4.3.2: handle -> attribute type) and
/// the reads of characteristic declarations tell of a database, whatever procedure found them:
/// a client may walk every handle with Find Information and read each declaration (Read,
/// Read Blob) instead of running Discover All Characteristics (Read By Type 0x2803,
/// Vol 3 Part G 4.6.1).
extension GATTDatabase {
    /// «Primary Service», «Secondary Service», «Include», «Characteristic» (Vol 3 Part G 3.1, 3.2, 3.3.1).
    static let declarationTypes: Set<UInt16> = [0x2800, 0x2801, 0x2802, 0x2803]
    static let characteristicDeclaration = BluetoothUUID(uint16: 0x2803)

    /// Characteristic declarations (type 0x2803) Find Information listed whose value was never
    /// known (never read, or the read failed): their properties, value handle and UUID are
    /// unknown. In handle order.
    public var unreadDeclarations: [UInt16] {
        guard !attributeTypes.isEmpty else { return [] }
        let decoded = Set(characteristics.map(\.declarationHandle))
        return attributeTypes.compactMap { h, t in t == Self.characteristicDeclaration && !decoded.contains(h) ? h : nil }.sorted()
    }

    /// The attribute right after an unread declaration, as Find Information typed it: the
    /// Characteristic Value declaration, which is the first attribute after the characteristic
    /// declaration and whose type is the characteristic UUID (Vol 3 Part G 3.3.2). Nil when
    /// Find Information did not list it or listed a declaration there.
    public func valueAttribute(afterUnread declaration: UInt16) -> (handle: UInt16, type: BluetoothUUID)? {
        guard declaration < 0xFFFF, let t = attributeTypes[declaration + 1],
              !(t.uint16.map(Self.declarationTypes.contains) ?? false) else { return nil }
        return (declaration + 1, t)
    }

    /// The characteristic declaration (decoded or unread) a descriptor at `handle` belongs to: the
    /// last one before it in its service (Vol 3 Part G 3.3.3). Nil when none.
    public func declaration(owning handle: UInt16) -> UInt16? {
        let floor = service(containing: handle)?.startHandle ?? 0
        let known = characteristics.filter { $0.valueHandle < handle && floor <= $0.declarationHandle }.map(\.declarationHandle).max()
        let unread = unreadDeclarations.filter { floor <= $0 && $0 < handle }.max()
        switch (known, unread) {
        case let (k?, u?): return max(k, u)
        case let (k, u): return k ?? u
        }
    }

    /// The UUID of the characteristic a descriptor at `handle` belongs to: a decoded one's, or, after
    /// a declaration never read, the type Find Information gave the value attribute that follows
    /// that declaration (the characteristic UUID, Vol 3 Part G 3.3.2). Nil when neither is known.
    public func characteristicUUID(owning handle: UInt16) -> BluetoothUUID? {
        guard let d = declaration(owning: handle) else { return nil }
        return characteristics.first { $0.declarationHandle == d }?.uuid ?? valueAttribute(afterUnread: d)?.type
    }

    /// The value handle of the characteristic a descriptor at `handle` belongs to, as
    /// `characteristicUUID(owning:)` finds it.
    public func valueHandle(owning handle: UInt16) -> UInt16? {
        guard let d = declaration(owning: handle) else { return nil }
        return characteristics.first { $0.declarationHandle == d }?.valueHandle ?? valueAttribute(afterUnread: d)?.handle
    }

    /// Decodes every characteristic declaration Find Information listed whose value a read
    /// returned (a Read Response, or Read Blob Responses put together), as Discover All
    /// Characteristics would have (Vol 3 Part G 3.3.1). A declaration already known is kept.
    mutating func decodeReadDeclarations() {
        for (h, t) in attributeTypes where t == Self.characteristicDeclaration {
            guard !characteristics.contains(where: { $0.declarationHandle == h }), let v = values[h], v.source == "read",
                  let c = Characteristic(declarationHandle: h, value: v.bytes) else { continue }
            characteristics.append(c)
        }
        characteristics.sort { $0.declarationHandle < $1.declarationHandle }
    }

    /// The descriptors among the attributes Find Information listed: every one but the
    /// declarations (services, includes, characteristics: Vol 3 Part G 3.1-3.3.1), the
    /// characteristic values (of decoded characteristics, and the attribute right after an unread
    /// declaration, Vol 3 Part G 3.3.2). What is left after a characteristic's value, up to the
    /// next declaration, is its descriptors (3.3.3). In handle order.
    func findInformationDescriptors() -> [Descriptor] {
        let unreadValues = Set(unreadDeclarations.compactMap { valueAttribute(afterUnread: $0)?.handle })
        return attributeTypes.compactMap { h, t -> Descriptor? in
            if let v = t.uint16, Self.declarationTypes.contains(v) { return nil }
            if characteristic(valueHandle: h) != nil || unreadValues.contains(h) { return nil }
            return Descriptor(uuid: t, handle: h)
        }.sorted { $0.handle < $1.handle }
    }
}

extension GATTDatabase.Characteristic {
    /// A characteristic declaration's value decoded (Core v5.4 Vol 3 Part G 3.3.1): Characteristic
    /// Properties (1), Characteristic Value Handle (2, little-endian), Characteristic UUID (2 or
    /// 16, little-endian). Nil for any other length.
    public init?(declarationHandle: UInt16, value: [UInt8]) {
        guard value.count == 5 || value.count == 19, let uuid = BluetoothUUID(littleEndian: value[3...]) else { return nil }
        self.init(uuid: uuid, declarationHandle: declarationHandle, valueHandle: UInt16(value[1]) | UInt16(value[2]) << 8,
                  properties: value[0])
    }
}
