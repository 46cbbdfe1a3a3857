import BLECore
import BLEDecode
import Testing

/// Characteristic values laid out as the GATT Specification Supplement defines them.
@Suite("Characteristic values (GATT Specification Supplement)")
struct CharacteristicValueTests {
    func decode(_ uuid: UInt16, _ bytes: [UInt8]) throws -> CharacteristicValue {
        try #require(CharacteristicValueDecoder.decode(bytes, uuid: BluetoothUUID(uint16: uuid)))
    }

    func fields(_ v: CharacteristicValue) -> [String] { v.fields.map { "\($0.0): \($0.1)" } }

    @Test func heartRateUInt8WithContact() throws {
        // 06: flags — uint8 value (bit 0 = 0), sensor contact supported (bit 2) and detected (bit 1)
        // 45: 69 bpm
        let v = try decode(0x2A37, [0x06, 0x45])
        #expect(v.name == "Heart Rate Measurement")
        #expect(v.summary == "69 bpm, sensor contact detected")
        #expect(v.problem == nil)
    }

    @Test func heartRateUInt16EnergyAndRRIntervals() throws {
        // 19: flags — uint16 value (bit 0), no contact feature, Energy Expended (bit 3), RR-Interval (bit 4)
        // 2C 01: 300 bpm; 10 00: 16 kJ; 00 04: RR 1024/1024 s; 00 02: RR 512/1024 s
        let v = try decode(0x2A37, [0x19, 0x2C, 0x01, 0x10, 0x00, 0x00, 0x04, 0x00, 0x02])
        #expect(fields(v) == ["Flags: 0x19", "Heart Rate: 300 bpm", "Sensor Contact: not supported",
                              "Energy Expended: 16 kJ", "RR-Interval: 1.000 s", "RR-Interval: 0.500 s"])
        #expect(v.summary == "300 bpm, sensor contact not supported, energy expended 16 kJ, RR 1.000 s 0.500 s")
    }

    @Test func heartRateCutShortIsMalformedNotLost() throws {
        // 01: flags say a uint16 value follows, but one byte does
        let v = try decode(0x2A37, [0x01, 0x48])
        let problem = try #require(v.problem)
        #expect(problem.kind == .truncated)
        #expect(problem.offset == 1)
        #expect(v.summary.hasPrefix("malformed Heart Rate Measurement: Heart Rate Measurement Value (uint16)"))
    }

    @Test func bodySensorLocationAndBatteryLevel() throws {
        #expect(try decode(0x2A38, [0x01]).summary == "Chest")
        #expect(try decode(0x2A38, [0x07]).summary == "Reserved (0x07)")
        #expect(try decode(0x2A19, [0x64]).summary == "100 %")
        #expect(try decode(0x2A19, [0x65]).summary == "reserved value 101")
        // One byte too many: the level is shown and the extra byte kept, flagged.
        let extra = try decode(0x2A19, [0x50, 0x00])
        #expect(extra.summary == "80 % (+1 unexpected byte(s))")
        #expect(extra.problem != nil)
        #expect(fields(extra) == ["Battery Level: 80 %", "Unexpected: 00"])
    }

    @Test("Device Information strings: NUL padding stripped and counted", arguments: [
        (UInt16(0x2A24), "Model Number String"), (0x2A25, "Serial Number String"), (0x2A26, "Firmware Revision String"),
        (0x2A27, "Hardware Revision String"), (0x2A28, "Software Revision String"), (0x2A29, "Manufacturer Name String"),
    ])
    func deviceInformationStrings(_ uuid: UInt16, _ name: String) throws {
        // "2.1.0" then three NULs of padding (a fixed-size buffer on the peripheral)
        let v = try decode(uuid, Array("2.1.0".utf8) + [0, 0, 0])
        #expect(v.name == name)
        #expect(v.summary == "\"2.1.0\" (3 NUL byte(s) of padding)")
        #expect(try decode(uuid, Array("HRM-200".utf8)).summary == "\"HRM-200\"")
        // Not UTF-8: shown as hex, never replaced.
        #expect(try decode(uuid, [0xFF, 0x41]).summary == "not UTF-8: ff41")
    }

    @Test func pnpID() throws {
        // 01: Bluetooth SIG company identifier; 59 00: 0x0059 Nordic; 34 12: product 0x1234; 10 02: version 0x0210 = 2.1.0
        let v = try decode(0x2A50, [0x01, 0x59, 0x00, 0x34, 0x12, 0x10, 0x02])
        #expect(v.summary == "vendor 0x0059 Nordic Semiconductor ASA (Bluetooth SIG), product 0x1234, version 2.1.0")
        // 02: USB-IF vendor ID 0x05AC (not looked up in the SIG table)
        #expect(try decode(0x2A50, [0x02, 0xAC, 0x05, 0x01, 0x00, 0x00, 0x01]).summary
                == "vendor 0x05AC (USB Implementer's Forum), product 0x0001, version 1.0.0")
        #expect(try decode(0x2A50, [0x01, 0x59, 0x00]).problem?.kind == .truncated)
    }

    @Test func cscMeasurement() throws {
        // 03: wheel and crank data present
        // 10 27 00 00: 10000 wheel revolutions; 00 04: last wheel event 1024/1024 s
        // 2A 00: 42 crank revolutions; 00 08: last crank event 2048/1024 s
        let v = try decode(0x2A5B, [0x03, 0x10, 0x27, 0x00, 0x00, 0x00, 0x04, 0x2A, 0x00, 0x00, 0x08])
        #expect(v.summary == "wheel 10000 rev at 1.000 s, crank 42 rev at 2.000 s")
        // 02: crank only
        #expect(try decode(0x2A5B, [0x02, 0x2A, 0x00, 0x00, 0x02]).summary == "crank 42 rev at 0.500 s")
    }

    @Test func rscMeasurement() throws {
        // 07: stride length and total distance present, running
        // 00 03: 768/256 = 3 m/s; 5A: 90 steps/min; 7D 00: 125 cm; E8 03 00 00: 1000 dm
        let v = try decode(0x2A53, [0x07, 0x00, 0x03, 0x5A, 0x7D, 0x00, 0xE8, 0x03, 0x00, 0x00])
        #expect(v.summary == "running 3.000 m/s, cadence 90 /min, stride 1.25 m, total 100.0 m")
        // 00: walking, speed 0x0180 = 1.5 m/s, cadence 60
        #expect(try decode(0x2A53, [0x00, 0x80, 0x01, 0x3C]).summary == "walking 1.500 m/s, cadence 60 /min")
    }

    @Test func temperatureMeasurement() throws {
        // 06: Celsius, time stamp and temperature type present
        // 71 01 00 FF: FLOAT mantissa 369, exponent -1 = 36.9
        // E7 07 05 04 08 00 01: 2023-05-04 08:00:01; 02: Body (general)
        let v = try decode(0x2A1C, [0x06, 0x71, 0x01, 0x00, 0xFF, 0xE7, 0x07, 0x05, 0x04, 0x08, 0x00, 0x01, 0x02])
        #expect(v.summary == "36.9 °C (Body (general)) at 2023-05-04 08:00:01")
        // 01: Fahrenheit; 83 FF FF FF: mantissa -125, exponent -1
        #expect(try decode(0x2A1C, [0x01, 0x83, 0xFF, 0xFF, 0xFF]).summary == "-12.5 °F")
        // FLOAT special value NaN (mantissa 0x7FFFFF)
        #expect(try decode(0x2A1C, [0x00, 0xFF, 0xFF, 0x7F, 0x00]).summary == "NaN °C")
        // exponent +2: 3 × 100
        #expect(try decode(0x2A1C, [0x00, 0x03, 0x00, 0x00, 0x02]).summary == "300 °C")
    }

    @Test func unknownCharacteristicsAreNotGuessed() {
        #expect(CharacteristicValueDecoder.decode([0x01], uuid: BluetoothUUID(uint16: 0x2A00)) == nil)
        #expect(CharacteristicValueDecoder.decode([0x01], uuid: BluetoothUUID("7A3E0022-52C1-4B8E-9E4A-2F6C3B1D0E55")!) == nil)
    }

    @Test("every prefix of a full value is truncated, never a crash")
    func prefixes() throws {
        let full: [(UInt16, [UInt8])] = [
            (0x2A37, [0x19, 0x2C, 0x01, 0x10, 0x00]), (0x2A50, [0x01, 0x59, 0x00, 0x34, 0x12, 0x10, 0x02]),
            (0x2A5B, [0x03, 0x10, 0x27, 0x00, 0x00, 0x00, 0x04, 0x2A, 0x00, 0x00, 0x08]),
            (0x2A53, [0x07, 0x00, 0x03, 0x5A, 0x7D, 0x00, 0xE8, 0x03, 0x00, 0x00]),
            (0x2A1C, [0x06, 0x71, 0x01, 0x00, 0xFF, 0xE7, 0x07, 0x05, 0x04, 0x08, 0x00, 0x01, 0x02]),
        ]
        for (uuid, bytes) in full {
            for n in 0..<bytes.count {
                let v = try decode(uuid, Array(bytes[..<n]))
                #expect(v.problem?.kind == .truncated, "0x\(String(uuid, radix: 16)) cut at \(n)")
            }
        }
    }
}
