/// Byte order of a multi-byte field. HCI, L2CAP, ATT and SMP are little-endian;
/// btsnoop and pcap-with-phdr headers are big-endian.
public enum ByteOrder: Sendable {
    case little
    case big
}

/// A consuming cursor over bytes, the one parser primitive every decoder uses.
///
/// `read…` methods consume and move the reader index only on success; `peek…` methods
/// do not move it. Every failure is a `DecodeError` carrying the absolute offset
/// (`baseOffset` + position), so an error found deep in an ATT PDU still names the
/// byte in the capture file.
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    /// Current position, an index into `bytes`.
    @usableFromInline var cursor: Int
    public var index: Int { cursor }
    /// Absolute offset (usually in the capture file) of `bytes.startIndex`.
    public let baseOffset: Int
    /// The layer named in errors raised by this reader.
    public let layer: DecodeError.Layer

    public init(_ bytes: ArraySlice<UInt8>, baseOffset: Int = 0, layer: DecodeError.Layer = .capture) {
        self.bytes = bytes
        self.cursor = bytes.startIndex
        self.baseOffset = baseOffset
        self.layer = layer
    }

    public init(_ bytes: [UInt8], baseOffset: Int = 0, layer: DecodeError.Layer = .capture) {
        self.init(bytes[...], baseOffset: baseOffset, layer: layer)
    }

    /// Bytes not yet consumed.
    public var remaining: Int { bytes.endIndex - cursor }
    public var isAtEnd: Bool { cursor >= bytes.endIndex }
    /// Absolute offset of the next byte to read.
    public var absoluteOffset: Int { baseOffset + (cursor - bytes.startIndex) }

    /// Throws a truncation error unless `count` more bytes are available.
    @inlinable
    public func require(_ count: Int, _ what: @autoclosure () -> String) throws(DecodeError) {
        if count < 0 || remaining < count {
            throw DecodeError(layer: layer, offset: absoluteOffset, kind: .truncated,
                              reason: "\(what()): need \(count) byte(s), have \(remaining)")
        }
    }

    public func error(_ reason: String, kind: DecodeError.Kind = .malformed) -> DecodeError {
        DecodeError(layer: layer, offset: absoluteOffset, kind: kind, reason: reason)
    }

    // MARK: peeking

    public func peekUInt8(at distance: Int = 0) -> UInt8? {
        let i = cursor + distance
        return i < bytes.endIndex && i >= cursor ? bytes[i] : nil
    }

    // MARK: consuming reads

    @inlinable
    public mutating func readUInt8(_ what: @autoclosure () -> String = "u8") throws(DecodeError) -> UInt8 {
        try require(1, what())
        defer { cursor += 1 }
        return bytes[cursor]
    }

    @inlinable
    public mutating func readUInt16(_ order: ByteOrder, _ what: @autoclosure () -> String = "u16") throws(DecodeError) -> UInt16 {
        try require(2, what())
        let a = UInt16(bytes[cursor]), b = UInt16(bytes[cursor + 1])
        cursor += 2
        return order == .little ? a | b << 8 : a << 8 | b
    }

    @inlinable
    public mutating func readUInt24(_ order: ByteOrder, _ what: @autoclosure () -> String = "u24") throws(DecodeError) -> UInt32 {
        try require(3, what())
        let a = UInt32(bytes[cursor]), b = UInt32(bytes[cursor + 1]), c = UInt32(bytes[cursor + 2])
        cursor += 3
        return order == .little ? a | b << 8 | c << 16 : a << 16 | b << 8 | c
    }

    @inlinable
    public mutating func readUInt32(_ order: ByteOrder, _ what: @autoclosure () -> String = "u32") throws(DecodeError) -> UInt32 {
        try require(4, what())
        var v: UInt32 = 0
        if order == .little {
            for k in (0..<4).reversed() { v = v << 8 | UInt32(bytes[cursor + k]) }
        } else {
            for k in 0..<4 { v = v << 8 | UInt32(bytes[cursor + k]) }
        }
        cursor += 4
        return v
    }

    @inlinable
    public mutating func readUInt64(_ order: ByteOrder, _ what: @autoclosure () -> String = "u64") throws(DecodeError) -> UInt64 {
        try require(8, what())
        var v: UInt64 = 0
        if order == .little {
            for k in (0..<8).reversed() { v = v << 8 | UInt64(bytes[cursor + k]) }
        } else {
            for k in 0..<8 { v = v << 8 | UInt64(bytes[cursor + k]) }
        }
        cursor += 8
        return v
    }

    public mutating func readInt8(_ what: @autoclosure () -> String = "i8") throws(DecodeError) -> Int8 {
        Int8(bitPattern: try readUInt8(what()))
    }

    /// Consumes exactly `count` bytes.
    @inlinable
    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(DecodeError) -> ArraySlice<UInt8> {
        try require(count, what())
        defer { cursor += count }
        return bytes[cursor..<(cursor + count)]
    }

    /// Consumes everything left.
    public mutating func readRemaining() -> ArraySlice<UInt8> {
        defer { cursor = bytes.endIndex }
        return bytes[cursor...]
    }

    public mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "skip") throws(DecodeError) {
        try require(count, what())
        cursor += count
    }

    /// A 6-byte Bluetooth device address, transmitted least significant byte first.
    public mutating func readAddress(_ what: @autoclosure () -> String = "BD_ADDR") throws(DecodeError) -> BluetoothAddress {
        let raw = try readBytes(6, what())
        return BluetoothAddress(littleEndianBytes: raw)
    }

    /// A sub-reader over the next `count` bytes (consumed from this one), keeping absolute offsets.
    public mutating func subReader(_ count: Int, layer: DecodeError.Layer? = nil, _ what: @autoclosure () -> String = "field") throws(DecodeError) -> ByteReader {
        let start = absoluteOffset
        let slice = try readBytes(count, what())
        return ByteReader(slice, baseOffset: start, layer: layer ?? self.layer)
    }
}
