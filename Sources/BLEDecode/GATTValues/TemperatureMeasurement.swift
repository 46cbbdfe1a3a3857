import BLECore

/// Temperature Measurement (0x2A1C), GATT Specification Supplement (the characteristic of that name) (Health Thermometer).
///
/// Layout: Flags (uint8) — bit 0 units (0 Celsius, 1 Fahrenheit), bit 1 Time Stamp present,
/// bit 2 Temperature Type present; Temperature Measurement Value (medfloat32, IEEE 11073-20601
/// FLOAT); Time Stamp (date_time: year uint16, month, day, hours, minutes, seconds uint8) when
/// bit 1; Temperature Type (uint8, the Temperature Type characteristic) when bit 2.
struct TemperatureMeasurement: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A1C]
    var flags: UInt8
    var value: MedFloat32
    var timestamp: (year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8)?
    var temperatureType: UInt8?

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        flags = try r.readUInt8("Flags")
        value = MedFloat32(rawValue: try r.readUInt32(.little, "Temperature Measurement Value"))
        if flags & 0x02 != 0 {
            timestamp = (try r.readUInt16(.little, "Year"), try r.readUInt8("Month"), try r.readUInt8("Day"),
                         try r.readUInt8("Hours"), try r.readUInt8("Minutes"), try r.readUInt8("Seconds"))
        }
        temperatureType = flags & 0x04 != 0 ? try r.readUInt8("Temperature Type") : nil
    }

    var unit: String { flags & 0x01 != 0 ? "°F" : "°C" }

    /// GATT Specification Supplement, Temperature Type.
    var typeName: String? {
        temperatureType.map { t in
            switch t {
            case 1: "Armpit"
            case 2: "Body (general)"
            case 3: "Ear (usually earlobe)"
            case 4: "Finger"
            case 5: "Gastro-intestinal Tract"
            case 6: "Mouth"
            case 7: "Rectum"
            case 8: "Toe"
            case 9: "Tympanum (ear drum)"
            default: "Reserved (\(hex(t)))"
            }
        }
    }

    var timestampText: String? {
        timestamp.map { t in
            func two(_ v: UInt8) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let year = t.year == 0 ? "unknown year" : String(t.year)
            return "\(year)-\(two(t.month))-\(two(t.day)) \(two(t.hours)):\(two(t.minutes)):\(two(t.seconds))"
        }
    }

    var fields: [(String, String)] {
        var out = [("Flags", hex(flags)), ("Temperature", "\(value.text) \(unit)")]
        if let t = timestampText { out.append(("Time Stamp", t)) }
        if let t = typeName { out.append(("Temperature Type", "\(hex(temperatureType ?? 0)) \(t)")) }
        return out
    }

    var summary: String {
        var s = "\(value.text) \(unit)"
        if let t = typeName { s += " (\(t))" }
        if let t = timestampText { s += " at \(t)" }
        return s
    }
}

/// IEEE 11073-20601 32-bit FLOAT (the Supplement's medfloat32): an 8-bit signed exponent over
/// a 24-bit signed mantissa, value = mantissa × 10^exponent, with reserved mantissas for NaN,
/// NRes and ±infinity.
struct MedFloat32: Sendable, Equatable {
    var rawValue: UInt32

    var exponent: Int { Int(Int8(bitPattern: UInt8(truncatingIfNeeded: rawValue >> 24))) }
    var mantissa: Int32 { Int32(bitPattern: rawValue << 8) >> 8 }

    /// Decimal text, exact: the mantissa's digits with the point moved by the exponent.
    var text: String {
        switch rawValue & 0x00FF_FFFF {
        case 0x7F_FFFF: return "NaN"
        case 0x80_0000: return "NRes"
        case 0x7F_FFFE: return "+INFINITY"
        case 0x80_0002: return "-INFINITY"
        case 0x80_0001: return "reserved"
        default: break
        }
        let m = Int64(mantissa)
        if exponent >= 0 {
            if exponent > 18 { return "\(m)e\(exponent)" }
            var s = String(m.magnitude)
            if m != 0 { s += String(repeating: "0", count: exponent) }
            return (m < 0 ? "-" : "") + s
        }
        let places = -exponent
        if places > 18 { return "\(m)e\(exponent)" }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        return fixed(m, scale: scale, digits: places)
    }
}
