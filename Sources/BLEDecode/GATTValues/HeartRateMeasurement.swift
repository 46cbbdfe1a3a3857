import BLECore

/// Heart Rate Measurement (0x2A37), GATT Specification Supplement (the characteristic of that name).
///
/// Layout: Flags (uint8) — bit 0 value format (0 uint8, 1 uint16), bits 1–2 sensor contact
/// status (bit 2 supported, bit 1 detected), bit 3 Energy Expended present, bit 4 RR-Interval
/// present; Heart Rate Measurement Value (uint8 or uint16, beats per minute); Energy Expended
/// (uint16, kJ) when flagged; RR-Interval (uint16, 1/1024 s) repeated to the end when flagged.
struct HeartRateMeasurement: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A37]

    var flags: UInt8
    var heartRate: UInt16
    var energyExpended: UInt16?
    var rrIntervals: [UInt16]

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        flags = try r.readUInt8("Flags")
        heartRate = flags & 0x01 != 0 ? try r.readUInt16(.little, "Heart Rate Measurement Value (uint16)")
                                      : UInt16(try r.readUInt8("Heart Rate Measurement Value (uint8)"))
        energyExpended = flags & 0x08 != 0 ? try r.readUInt16(.little, "Energy Expended") : nil
        rrIntervals = []
        if flags & 0x10 != 0 {
            while !r.isAtEnd { rrIntervals.append(try r.readUInt16(.little, "RR-Interval")) }
        }
    }

    /// Bits 1–2 (GATT Specification Supplement).
    var sensorContact: String {
        switch (flags >> 1) & 0x03 {
        case 0b11: "detected"
        case 0b10: "not detected"
        default: "not supported"
        }
    }

    var fields: [(String, String)] {
        var out = [("Flags", hex(flags)), ("Heart Rate", "\(heartRate) bpm"), ("Sensor Contact", sensorContact)]
        if let e = energyExpended { out.append(("Energy Expended", "\(e) kJ")) }
        out += rrIntervals.map { ("RR-Interval", seconds1024(UInt32($0))) }
        return out
    }

    var summary: String {
        var s = "\(heartRate) bpm, sensor contact \(sensorContact)"
        if let e = energyExpended { s += ", energy expended \(e) kJ" }
        if !rrIntervals.isEmpty { s += ", RR " + rrIntervals.map { seconds1024(UInt32($0)) }.joined(separator: " ") }
        return s
    }
}
