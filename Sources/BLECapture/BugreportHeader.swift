#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

/// Reads the phone's identity out of a bugreport's main text, streaming it line by line.
///
/// The dumpstate header (AOSP `dumpstate.cpp` `PrintHeader`) opens the text with
/// `Build fingerprint: '…'` ("format is important for other tools"), and the SYSTEM PROPERTIES
/// section (`------ SYSTEM PROPERTIES (getprop) ------`) lists `[ro.product.model]: [Pixel 7]`,
/// one property a line. Read: `ro.build.fingerprint`, `ro.product.manufacturer`,
/// `ro.product.model` and `ro.build.version.release`, with the `ro.product.vendor.*` names of
/// Android 10's partitioned properties where the plain ones are missing. The scan stops once
/// all four are known (and the btsnooz section's BEGIN line, when asked to look for it).
enum BugreportHeader {
    struct Scan {
        var phone = PhoneIdentity()
        /// The text has a `--- BEGIN:BTSNOOP_LOG_SUMMARY` line.
        var hasBtsnooz = false
    }

    /// Lines longer than this are not property lines: skipped without being kept.
    static let maxLine = 4096
    static let fingerprintPrefix = Array("Build fingerprint: '".utf8)

    /// Sets the field a property names when it is still unknown: the plain names into
    /// `primary`, the Android 10 partition names into `secondary`.
    static func assign(_ key: String, _ value: String, primary: inout PhoneIdentity, secondary: inout PhoneIdentity) {
        func set(_ field: inout String?) { if field == nil { field = value } }
        switch key {
        case "ro.build.fingerprint": set(&primary.buildFingerprint)
        case "ro.product.manufacturer": set(&primary.manufacturer)
        case "ro.product.model": set(&primary.model)
        case "ro.build.version.release": set(&primary.androidVersion)
        case "ro.vendor.build.fingerprint": set(&secondary.buildFingerprint)
        case "ro.product.vendor.manufacturer": set(&secondary.manufacturer)
        case "ro.product.vendor.model": set(&secondary.model)
        default: break
        }
    }

    /// Reads the main text for the phone's identity and the btsnooz section's marker, stopping once
    /// it has them. With `upToDamage`, an error of the source ends the scan with what was read before it.
    static func scan(_ source: any ByteSource, needsBtsnooz: Bool, upToDamage: Bool = false) throws(CaptureError) -> Scan {
        var primary = PhoneIdentity(), secondary = PhoneIdentity(), header: String?
        var found = Scan()
        var line: [UInt8] = []
        line.reserveCapacity(maxLine)
        var overlong = false
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        func done() -> Bool {
            primary.buildFingerprint != nil && primary.manufacturer != nil && primary.model != nil
                && primary.androidVersion != nil && (!needsBtsnooz || found.hasBtsnooz)
        }
        func take(_ line: [UInt8]) {
            if line.starts(with: fingerprintPrefix) {
                let value = line.dropFirst(fingerprintPrefix.count).prefix { $0 != UInt8(ascii: "'") }
                if header == nil, !value.isEmpty { header = String(decoding: value, as: UTF8.self) }
            } else if line.first == UInt8(ascii: "["), let (key, value) = property(line) {
                assign(key, value, primary: &primary, secondary: &secondary)
            } else if !found.hasBtsnooz, line.starts(with: BtsnoozReader.beginMarker) {
                found.hasBtsnooz = true
            }
        }
        reading: while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(CaptureError) -> Int in try source.read(into: buffer) }
            }
            let n: Int
            switch read {
            case .success(let count): n = count
            case .failure(let error):
                if upToDamage { break reading }
                throw error
            }
            if n <= 0 { break }
            var start = 0
            while start < n {
                let end = chunk.withUnsafeBytes { bytes -> Int in
                    guard let p = memchr(bytes.baseAddress! + start, 0x0A, n - start) else { return n }
                    return bytes.baseAddress!.distance(to: UnsafeRawPointer(p))
                }
                if !overlong {
                    if line.count + (end - start) > maxLine { overlong = true; line.removeAll(keepingCapacity: true) }
                    else { line.append(contentsOf: chunk[start..<end]) }
                }
                if end == n { break }
                if !overlong {
                    if line.last == 0x0D { line.removeLast() }
                    take(line)
                    if done() { break reading }
                }
                line.removeAll(keepingCapacity: true)
                overlong = false
                start = end + 1
            }
        }
        if !overlong, !line.isEmpty { take(line) }
        var phone = primary
        phone.buildFingerprint = phone.buildFingerprint ?? header ?? secondary.buildFingerprint
        phone.manufacturer = phone.manufacturer ?? secondary.manufacturer
        phone.model = phone.model ?? secondary.model
        phone.androidVersion = phone.androidVersion ?? phone.buildFingerprint.flatMap(PhoneIdentity.androidVersion(fingerprint:))
        found.phone = phone
        return found
    }

    /// `[key]: [value]` -> (key, value); nil for anything else or an empty value.
    static func property(_ line: [UInt8]) -> (String, String)? {
        guard let close = line.firstIndex(of: UInt8(ascii: "]")), line.count >= close + 5,
              line[close + 1] == UInt8(ascii: ":"), line[close + 2] == UInt8(ascii: " "), line[close + 3] == UInt8(ascii: "["),
              line.last == UInt8(ascii: "]") else { return nil }
        let key = String(decoding: line[1..<close], as: UTF8.self)
        let value = String(decoding: line[(close + 4)..<(line.count - 1)], as: UTF8.self)
        return value.isEmpty ? nil : (key, value)
    }
}
