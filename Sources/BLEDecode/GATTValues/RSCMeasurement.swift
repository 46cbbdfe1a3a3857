import BLECore

/// RSC Measurement (0x2A53), GATT Specification Supplement (the characteristic of that name) (Running Speed and Cadence).
///
/// Layout: Flags (uint8) — bit 0 Instantaneous Stride Length present, bit 1 Total Distance
/// present, bit 2 walking (0) or running (1); Instantaneous Speed (uint16, 1/256 m/s);
/// Instantaneous Cadence (uint8, steps per minute); Instantaneous Stride Length (uint16,
/// 1/100 m) when bit 0; Total Distance (uint32, 1/10 m) when bit 1.
struct RSCMeasurement: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A53]
    var flags: UInt8
    var speed: UInt16
    var cadence: UInt8
    var strideLength: UInt16?
    var totalDistance: UInt32?

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        flags = try r.readUInt8("Flags")
        speed = try r.readUInt16(.little, "Instantaneous Speed")
        cadence = try r.readUInt8("Instantaneous Cadence")
        strideLength = flags & 0x01 != 0 ? try r.readUInt16(.little, "Instantaneous Stride Length") : nil
        totalDistance = flags & 0x02 != 0 ? try r.readUInt32(.little, "Total Distance") : nil
    }

    var running: Bool { flags & 0x04 != 0 }
    /// 1/256 m/s to the thousandth.
    var speedText: String { fixed(Int64((UInt32(speed) * 1000 + 128) / 256), scale: 1000, digits: 3) + " m/s" }

    var fields: [(String, String)] {
        var out = [("Flags", hex(flags)), ("Instantaneous Speed", speedText), ("Instantaneous Cadence", "\(cadence) /min"),
                   ("Status", running ? "running" : "walking")]
        if let s = strideLength { out.append(("Instantaneous Stride Length", fixed(Int64(s), scale: 100, digits: 2) + " m")) }
        if let d = totalDistance { out.append(("Total Distance", fixed(Int64(d), scale: 10, digits: 1) + " m")) }
        return out
    }

    var summary: String {
        var s = "\(running ? "running" : "walking") \(speedText), cadence \(cadence) /min"
        if let l = strideLength { s += ", stride \(fixed(Int64(l), scale: 100, digits: 2)) m" }
        if let d = totalDistance { s += ", total \(fixed(Int64(d), scale: 10, digits: 1)) m" }
        return s
    }
}
