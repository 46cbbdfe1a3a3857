import CZlib

/// gzip files for the tests: members written byte by byte from RFC 1952 around deflate stored
/// blocks (RFC 1951 3.2.4), whose bytes sit where the test can damage them, and real
/// compression through zlib's `deflate` (what `gzip -c` writes).
enum GzipFixtures {
    /// One gzip member (RFC 1952 2.3) holding `data` in stored deflate blocks of at most
    /// `blockSize` bytes:
    /// ```
    /// 1F 8B            ID1 ID2
    /// 08               CM = 8, deflate
    /// 00               FLG: no name, comment, extra field or header CRC
    /// 00 00 00 00      MTIME: none
    /// 00 FF            XFL, OS = 255 unknown
    /// blocks           per block: BFINAL (1 on the last) | BTYPE 00 (stored) in one byte,
    ///                  LEN u16 LE, NLEN u16 LE = ~LEN, then LEN bytes
    /// CRC32 u32 LE     of the uncompressed data (ISO 3309, reflected 0xEDB88320)
    /// ISIZE u32 LE     the uncompressed length mod 2^32
    /// ```
    static func storedMember(_ data: [UInt8], blockSize: Int = 65_535) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
        var start = 0
        repeat {
            let end = min(data.count, start + blockSize)
            let length = UInt16(end - start)
            out.append(end == data.count ? 0x01 : 0x00)
            out += [UInt8].le16(length) + .le16(~length)
            out += data[start..<end]
            start = end
        } while start < data.count
        return out + .le32(crc32(data)) + .le32(UInt32(truncatingIfNeeded: data.count))
    }

    /// Byte offset in `storedMember(data, blockSize:)` of block `index`'s LEN field.
    static func storedBlockLengthOffset(_ index: Int, blockSize: Int) -> Int {
        10 + index * (5 + blockSize) + 1
    }

    /// CRC-32 as gzip computes it (RFC 1952 8: reflected polynomial 0xEDB88320, inverted).
    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// `data` compressed into one gzip member by zlib (`deflateInit2`, windowBits 16 + 15).
    static func compressed(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        deflate(data, windowBits: 16 + MAX_WBITS, level: level)
    }

    /// `data` through zlib's `deflate` in one call, framed as `windowBits` says (`deflateInit2`:
    /// 16 + 15 a gzip member, RFC 1952; -15 a raw deflate stream, RFC 1951).
    static func deflate(_ data: [UInt8], windowBits: Int32, level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 64)
        var input = data
        let produced = input.withUnsafeMutableBytes { source in
            out.withUnsafeMutableBytes { target in
                stream.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(target.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<produced])
    }
}
