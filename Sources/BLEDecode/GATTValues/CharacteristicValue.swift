import BLECore

/// A characteristic value decoded by the layout the GATT Specification Supplement gives it.
///
/// `fields` are in wire order, as `timeline -v` prints them; `summary` is one line for `gatt`'s
/// value column and the diagnosis's evidence. A value too short for its layout (or with bytes
/// the layout leaves no room for) is kept: `problem` says what is wrong and `fields` hold what
/// could be read before it.
public struct CharacteristicValue: Sendable {
    public var characteristic: BluetoothUUID
    /// The characteristic's name in the Assigned Numbers (`Heart Rate Measurement`).
    public var name: String
    public var fields: [(String, String)]
    public var summary: String
    public var problem: DecodeError?

    public init(characteristic: BluetoothUUID, name: String, fields: [(String, String)], summary: String, problem: DecodeError? = nil) {
        self.characteristic = characteristic
        self.name = name
        self.fields = fields
        self.summary = summary
        self.problem = problem
    }
}

/// One characteristic's value layout (GATT Specification Supplement, under the characteristic's name).
protocol CharacteristicValueLayout: Sendable {
    /// The 16-bit UUIDs this layout decodes.
    static var uuids: [UInt16] { get }
    /// Decodes the whole value; bytes left over are an error (a value is one structure).
    init(decoding reader: inout ByteReader, uuid: UInt16) throws(DecodeError)
    var fields: [(String, String)] { get }
    var summary: String { get }
}

extension DecodeError.Layer {
    /// A characteristic value's own layout, inside an ATT PDU.
    public static let characteristicValue = DecodeError.Layer(rawValue: "characteristic-value")
}

/// Decodes characteristic values whose layout the GATT Specification Supplement defines.
public enum CharacteristicValueDecoder {
    static let layouts: [any CharacteristicValueLayout.Type] = [
        HeartRateMeasurement.self, BodySensorLocation.self, BatteryLevel.self,
        DeviceInformationString.self, PnPID.self, CSCMeasurement.self, RSCMeasurement.self,
        TemperatureMeasurement.self,
    ]

    /// The layout for `uuid`, nil when this tool knows none.
    static func layout(for uuid: BluetoothUUID) -> (any CharacteristicValueLayout.Type, UInt16)? {
        guard let short = uuid.uint16 else { return nil }
        return layouts.first { $0.uuids.contains(short) }.map { ($0, short) }
    }

    /// Whether `uuid` has a layout here.
    public static func knows(_ uuid: BluetoothUUID) -> Bool { layout(for: uuid) != nil }

    /// The value decoded, or nil when `uuid` has no layout here.
    public static func decode(_ value: [UInt8], uuid: BluetoothUUID) -> CharacteristicValue? {
        guard let (layout, short) = layout(for: uuid) else { return nil }
        let name = AssignedNumbers.uuidName(uuid) ?? uuid.uuidString
        var reader = ByteReader(value[...], layer: .characteristicValue)
        do {
            let decoded = try layout.init(decoding: &reader, uuid: short)
            guard reader.isAtEnd else {
                let left = reader.remaining
                let e = reader.error("\(left) byte(s) after the \(name) fields")
                return CharacteristicValue(characteristic: uuid, name: name, fields: decoded.fields + [("Unexpected", hexString(reader.readRemaining()))],
                                           summary: decoded.summary + " (+\(left) unexpected byte(s))", problem: e)
            }
            return CharacteristicValue(characteristic: uuid, name: name, fields: decoded.fields, summary: decoded.summary)
        } catch {
            return CharacteristicValue(characteristic: uuid, name: name, fields: [("Malformed", error.reason)],
                                       summary: "malformed \(name): \(error.reason)", problem: error)
        }
    }
}

/// Fixed-point text without Foundation: `fixed(1234, scale: 100)` is `12.34`.
func fixed(_ value: Int64, scale: Int64, digits: Int) -> String {
    let sign = value < 0 ? "-" : ""
    let m = value.magnitude
    let s = UInt64(scale)
    let whole = m / s, frac = m % s
    var f = String(frac)
    f = String(repeating: "0", count: max(0, digits - f.count)) + f
    return digits == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(f)"
}

/// Seconds in units of 1/1024 s, as the Supplement's event times and RR-intervals count them, to the millisecond.
func seconds1024(_ v: UInt32) -> String {
    let ms = (UInt64(v) * 1000 + 512) / 1024
    return fixed(Int64(ms), scale: 1000, digits: 3) + " s"
}
