import BLECore

/// CSC Measurement (0x2A5B), GATT Specification Supplement (the characteristic of that name) (Cycling Speed and Cadence).
///
/// Layout: Flags (uint8) — bit 0 Wheel Revolution Data present, bit 1 Crank Revolution Data
/// present; then Cumulative Wheel Revolutions (uint32) and Last Wheel Event Time (uint16,
/// 1/1024 s) when bit 0; Cumulative Crank Revolutions (uint16) and Last Crank Event Time
/// (uint16, 1/1024 s) when bit 1.
struct CSCMeasurement: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A5B]
    var flags: UInt8
    var wheel: (revolutions: UInt32, eventTime: UInt16)?
    var crank: (revolutions: UInt16, eventTime: UInt16)?

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        flags = try r.readUInt8("Flags")
        if flags & 0x01 != 0 {
            wheel = (try r.readUInt32(.little, "Cumulative Wheel Revolutions"), try r.readUInt16(.little, "Last Wheel Event Time"))
        }
        if flags & 0x02 != 0 {
            crank = (try r.readUInt16(.little, "Cumulative Crank Revolutions"), try r.readUInt16(.little, "Last Crank Event Time"))
        }
    }

    var fields: [(String, String)] {
        var out = [("Flags", hex(flags))]
        if let w = wheel {
            out += [("Cumulative Wheel Revolutions", "\(w.revolutions)"), ("Last Wheel Event Time", seconds1024(UInt32(w.eventTime)))]
        }
        if let c = crank {
            out += [("Cumulative Crank Revolutions", "\(c.revolutions)"), ("Last Crank Event Time", seconds1024(UInt32(c.eventTime)))]
        }
        return out
    }

    var summary: String {
        var parts: [String] = []
        if let w = wheel { parts.append("wheel \(w.revolutions) rev at \(seconds1024(UInt32(w.eventTime)))") }
        if let c = crank { parts.append("crank \(c.revolutions) rev at \(seconds1024(UInt32(c.eventTime)))") }
        return parts.isEmpty ? "no revolution data" : parts.joined(separator: ", ")
    }
}
