import CZlib

/// Zip files for the tests, written byte by byte from PKWARE APPNOTE.TXT, so that every
/// header, data and descriptor offset is known and the file can be cut anywhere.
///
/// Per member (4.3.7 local file header, all little-endian):
/// ```
/// 50 4B 03 04          signature
/// 14 00                version needed 2.0 (2D 00, 4.5, with ZIP64)
/// flags u16            bit 3 (0x0008) when the sizes follow the data in a data descriptor
/// method u16           0 stored, 8 deflated
/// 00 00 21 58          time, date
/// crc u32, csize u32, usize u32   zero with bit 3; FF FF FF FF FF FF FF FF with ZIP64
/// name length u16, extra length u16, name, extra (ZIP64: 01 00 10 00 + usize u64 + csize u64)
/// data
/// [50 4B 07 08] crc u32, csize, usize   4.3.9 data descriptor: u32 sizes, u64 with ZIP64
/// ```
/// then the central directory (4.3.12, 46 bytes + name per member) and the end record (4.3.16).
enum ZipFixtures {
    /// How a member's sizes are given.
    enum Sizes: String, CaseIterable, Sendable {
        /// In the local header (what a writer that can seek back writes).
        case inHeader
        /// Bit 3, a data descriptor with its `PK\7\8` signature (Python's zipfile, Android's ZipWriter).
        case signedDescriptor
        /// Bit 3, a data descriptor without the signature (APPNOTE's original form).
        case unsignedDescriptor
        /// Bit 3, a ZIP64 extra field in the local header and 8-byte sizes in the signed descriptor.
        case zip64Descriptor
    }

    /// Where each part of a member sits in the zip.
    struct Layout {
        var headerOffset: Int
        var dataOffset: Int
        var compressedLength: Int
        /// Bytes of the data descriptor after the data (0 without one).
        var descriptorLength: Int
        var dataEnd: Int { dataOffset + compressedLength }
        var end: Int { dataEnd + descriptorLength }
    }

    struct Zip {
        var bytes: [UInt8]
        var layouts: [Layout]
        var centralDirectoryOffset: Int
    }

    /// A zip of `members` (name, uncompressed bytes), each stored (`method` 0) or deflated (8).
    static func zip(_ members: [(name: String, data: [UInt8])], method: UInt16, sizes: Sizes) -> Zip {
        var out: [UInt8] = []
        var layouts: [Layout] = []
        var central: [UInt8] = []
        let descriptor = sizes != .inHeader
        for member in members {
            let name = Array(member.name.utf8)
            let body = method == 8 ? deflateRaw(member.data) : member.data
            let crc = GzipFixtures.crc32(member.data)
            let flags: UInt16 = descriptor ? 0x0008 : 0
            let headerOffset = out.count
            out += [0x50, 0x4B, 0x03, 0x04] + .le16(sizes == .zip64Descriptor ? 45 : 20) + .le16(flags) + .le16(method)
            out += [0x00, 0x00, 0x21, 0x58]
            switch sizes {
            case .inHeader: out += .le32(crc) + .le32(UInt32(body.count)) + .le32(UInt32(member.data.count))
            case .signedDescriptor, .unsignedDescriptor: out += [UInt8](repeating: 0, count: 12)
            case .zip64Descriptor: out += [0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8)
            }
            let extra: [UInt8] = sizes == .zip64Descriptor ? [0x01, 0x00, 0x10, 0x00] + [UInt8](repeating: 0, count: 16) : []
            out += .le16(UInt16(name.count)) + .le16(UInt16(extra.count)) + name + extra
            let dataOffset = out.count
            out += body
            let before = out.count
            switch sizes {
            case .inHeader: break
            case .signedDescriptor: out += [0x50, 0x4B, 0x07, 0x08] + .le32(crc) + .le32(UInt32(body.count)) + .le32(UInt32(member.data.count))
            case .unsignedDescriptor: out += .le32(crc) + .le32(UInt32(body.count)) + .le32(UInt32(member.data.count))
            case .zip64Descriptor: out += [0x50, 0x4B, 0x07, 0x08] + .le32(crc) + le64(body.count) + le64(member.data.count)
            }
            layouts.append(Layout(headerOffset: headerOffset, dataOffset: dataOffset, compressedLength: body.count,
                                  descriptorLength: out.count - before))
            // 4.3.12: made by, needed, flags, method, time, date, crc, sizes, name/extra/comment
            // lengths, disk, internal and external attributes, local header offset, name.
            let fields: [[UInt8]] = [
                [0x50, 0x4B, 0x01, 0x02], .le16(0x031E), .le16(20), .le16(flags), .le16(method), [0x00, 0x00, 0x21, 0x58],
                .le32(crc), .le32(UInt32(body.count)), .le32(UInt32(member.data.count)), .le16(UInt16(name.count)),
                .le16(0), .le16(0), .le16(0), .le16(0), .le32(0o100644 << 16), .le32(UInt32(headerOffset)), name,
            ]
            central += fields.joined()
        }
        let centralOffset = out.count
        out += central
        let end: [[UInt8]] = [
            [0x50, 0x4B, 0x05, 0x06], .le16(0), .le16(0), .le16(UInt16(members.count)), .le16(UInt16(members.count)),
            .le32(UInt32(central.count)), .le32(UInt32(centralOffset)), .le16(0),
        ]
        out += end.joined()
        return Zip(bytes: out, layouts: layouts, centralDirectoryOffset: centralOffset)
    }

    static func le64(_ value: Int) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(value) >> (8 * $0)) }
    }

    /// `data` as a raw deflate stream (RFC 1951, `deflateInit2` with -15 window bits).
    static func deflateRaw(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        GzipFixtures.deflate(data, windowBits: -MAX_WBITS, level: level)
    }

    /// What zlib inflates from the first bytes of a raw deflate stream: all it can before they
    /// run out or before damage, and whether it found damage (`Z_DATA_ERROR`).
    static func inflateRawPrefix(_ compressed: [UInt8]) -> (bytes: [UInt8], failed: Bool) {
        var stream = z_stream()
        precondition(inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = compressed
        var failed = false
        input.withUnsafeMutableBytes { source in
            stream.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBytes { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = UInt32(target.count)
                    let status = inflate(&stream, Z_SYNC_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                out += chunk[0..<produced]
                if status == Z_DATA_ERROR { failed = true }
                if status != Z_OK || produced == 0 { break }
            }
        }
        return (out, failed)
    }
}
