import BLEAnalysis
import BLECore
import BLEDecode

/// Maps the recorded local server's attribute handles to the app's (Docs/peripheral.md
/// "Handles"). A recorded central names attributes by handle; an app's CBPeripheralManager lays
/// its database out by the order of `add(_:)` after the system's services, which need not be the
/// recorded phone's layout (a real iPhone publishes services of its own; the app adds its
/// services in another order, or one more). Each attribute is known by what it is, not where:
/// (service UUID, the how-many-th service of that UUID), then (characteristic UUID, the
/// how-many-th in its service), then the declaration, the value, or (descriptor UUID, the
/// how-many-th of the characteristic's descriptors) — Core v5.4 Vol 3 Part G 3.1-3.3.
public struct LocalHandleMap: Sendable {
    /// What an attribute is, independent of its handle.
    public struct Identity: Hashable, Sendable, CustomStringConvertible {
        public var service: BluetoothUUID
        public var serviceInstance: Int
        /// Nil for the service declaration.
        public var characteristic: BluetoothUUID?
        public var characteristicInstance: Int = 0
        public enum Part: Hashable, Sendable { case service, declaration, value, descriptor(BluetoothUUID, Int) }
        public var part: Part

        /// `characteristic 2A38 (Body Sensor Location) in service 180D`, with the instance when not the first.
        public var description: String {
            func named(_ u: BluetoothUUID, _ n: Int) -> String {
                let name = AssignedNumbers.uuidName(u).map { " (\($0))" } ?? ""
                return u.uuidString + name + (n > 0 ? " #\(n + 1)" : "")
            }
            let s = "service " + named(service, serviceInstance)
            guard let c = characteristic else { return s }
            let ch = "characteristic " + named(c, characteristicInstance)
            switch part {
            case .declaration: return "the declaration of \(ch) in \(s)"
            case .descriptor(let d, let n): return "descriptor \(named(d, n)) of \(ch) in \(s)"
            default: return "\(ch) in \(s)"
            }
        }
    }

    /// Recorded handle -> the app's, for every recorded attribute the app's database also has.
    public private(set) var toApp: [UInt16: UInt16] = [:]
    public private(set) var toRecorded: [UInt16: UInt16] = [:]
    /// Recorded attributes the app's database lacks.
    public private(set) var missing: [UInt16: Identity] = [:]
    /// True when every recorded attribute the app has is where it was recorded.
    public private(set) var isIdentity = true
    /// Some recorded attribute moved or is missing: the app's layout is not the recorded one, so
    /// the system's discovery answers (from the app's layout) differ from the recorded ones by
    /// construction. Attributes the app adds beyond the recorded ones do not count: the recorded
    /// central never saw them, unless its discovery shows them (then that answer differs).
    public var isRelaidOut: Bool { !isIdentity || !missing.isEmpty }
    /// The app's handles in order (where a discovery range that starts past a recorded attribute goes).
    private var appHandles: [UInt16] = []
    private var recordedHandles: [UInt16] = []

    public init(recorded: GATTDatabase, app: GATTDatabase) {
        let r = Self.identities(recorded), a = Self.identities(app)
        var byIdentity: [Identity: UInt16] = [:]
        for (h, id) in a { byIdentity[id] = h }
        for (h, id) in r {
            if let ah = byIdentity[id] {
                toApp[h] = ah
                toRecorded[ah] = h
                if ah != h { isIdentity = false }
            } else {
                missing[h] = id
            }
        }
        appHandles = a.keys.sorted()
        recordedHandles = r.keys.sorted()
    }

    /// Every attribute handle of a database with its identity.
    static func identities(_ db: GATTDatabase) -> [UInt16: Identity] {
        var out: [UInt16: Identity] = [:]
        var serviceCounts: [BluetoothUUID: Int] = [:]
        for s in db.services.sorted(by: { $0.startHandle < $1.startHandle }) {
            let sn = serviceCounts[s.uuid, default: 0]
            serviceCounts[s.uuid] = sn + 1
            out[s.startHandle] = Identity(service: s.uuid, serviceInstance: sn, characteristic: nil, part: .service)
            var charCounts: [BluetoothUUID: Int] = [:]
            let chars = db.characteristics.filter { $0.declarationHandle > s.startHandle && $0.declarationHandle <= s.endHandle }
                .sorted { $0.declarationHandle < $1.declarationHandle }
            for (i, c) in chars.enumerated() {
                let cn = charCounts[c.uuid, default: 0]
                charCounts[c.uuid] = cn + 1
                let base = Identity(service: s.uuid, serviceInstance: sn, characteristic: c.uuid, characteristicInstance: cn, part: .declaration)
                out[c.declarationHandle] = base
                var value = base
                value.part = .value
                out[c.valueHandle] = value
                let end = i + 1 < chars.count ? chars[i + 1].declarationHandle : s.endHandle &+ 1
                var descCounts: [BluetoothUUID: Int] = [:]
                for d in db.descriptors.sorted(by: { $0.handle < $1.handle }) where d.handle > c.valueHandle && d.handle < end {
                    let dn = descCounts[d.uuid, default: 0]
                    descCounts[d.uuid] = dn + 1
                    var id = base
                    id.part = .descriptor(d.uuid, dn)
                    out[d.handle] = id
                }
            }
        }
        return out
    }

    // MARK: Rewriting PDUs

    /// Opcodes whose bytes 1-2 name one attribute (Core v5.4 Vol 3 Part F 3.4): Read, Read Blob,
    /// Write Request and Command, Signed Write, Prepare Write Request and Response, Handle Value
    /// Notification and Indication.
    static let handleAt1: Set<UInt8> = [0x0A, 0x0C, 0x12, 0x52, 0xD2, 0x16, 0x17, 0x1B, 0x1D]
    /// Discovery requests with a handle range at bytes 1-4: Find Information, Find By Type Value,
    /// Read By Type, Read By Group Type.
    static let rangeAt1: Set<UInt8> = [0x04, 0x06, 0x08, 0x10]
    /// Discovery responses: their handles are the app's layout, answered by the system.
    public static let discoveryResponses: Set<UInt8> = [0x05, 0x07, 0x09, 0x11]

    static func handle(_ pdu: [UInt8], at i: Int) -> UInt16 { UInt16(pdu[i]) | UInt16(pdu[i + 1]) << 8 }
    static func put(_ h: UInt16, into pdu: inout [UInt8], at i: Int) {
        pdu[i] = UInt8(h & 0xFF)
        pdu[i + 1] = UInt8(h >> 8)
    }

    /// The attribute a request of the recorded central names that the app's database lacks.
    public func missingAttribute(in request: [UInt8]) -> Identity? {
        guard isRelaidOut, request.count >= 3, Self.handleAt1.contains(request[0]) else { return nil }
        return missing[Self.handle(request, at: 1)]
    }

    /// A recorded central's PDU with the app's handles. A handle the app lacks becomes 0x0000,
    /// which no server has (Vol 3 Part F 3.2.2: the server answers Invalid Handle); a range's
    /// ends move to the app's attributes for the recorded ones they fall on or next to.
    public func towardApp(_ pdu: [UInt8]) -> [UInt8] {
        guard isRelaidOut, let op = pdu.first else { return pdu }
        var out = pdu
        if Self.handleAt1.contains(op), pdu.count >= 3 {
            let h = Self.handle(pdu, at: 1)
            // A handle no recorded discovery showed (used from a cache) stays as it is.
            if missing[h] != nil || toApp[h] != nil { Self.put(toApp[h] ?? 0, into: &out, at: 1) }
        } else if !isIdentity, Self.rangeAt1.contains(op), pdu.count >= 5 {
            let start = Self.handle(pdu, at: 1), end = Self.handle(pdu, at: 3)
            // The first recorded attribute at or after `start`; past them all, past the app's.
            let first = recordedHandles.first { $0 >= start && toApp[$0] != nil }
            let s = first.flatMap { toApp[$0] } ?? ((appHandles.last ?? 0) &+ 1)
            let last = recordedHandles.last { $0 <= end && toApp[$0] != nil }
            let e = end == 0xFFFF ? 0xFFFF : (last.flatMap { toApp[$0] } ?? s)
            Self.put(max(1, s), into: &out, at: 1)
            Self.put(max(s, e), into: &out, at: 3)
        }
        return out
    }

    /// An app server's PDU with the recorded handles, as the recorded central would have named
    /// them: notifications, indications, errors and echoes, and the handles listed in discovery
    /// responses (Vol 3 Part F 3.4.2.2, 3.4.3.2, 3.4.4.2, 3.4.4.10: Find Information, Find By
    /// Type Value, Read By Type with a characteristic declaration's value handle, Read By Group
    /// Type). A handle only the app has stays as it is.
    public func towardRecorded(_ pdu: [UInt8]) -> [UInt8] {
        guard !isIdentity, let op = pdu.first else { return pdu }
        var out = pdu
        func back(at i: Int) {
            guard i + 1 < out.count else { return }
            let h = Self.handle(out, at: i)
            Self.put(toRecorded[h] ?? h, into: &out, at: i)
        }
        /// Entries of `size` bytes from `start`, with handles at `offsets` within each.
        func entries(from start: Int, size: Int, offsets: [Int]) {
            guard size > 0 else { return }
            var i = start
            while i + size <= out.count {
                for o in offsets { back(at: i + o) }
                i += size
            }
        }
        switch op {
        case _ where Self.handleAt1.contains(op) && pdu.count >= 3: back(at: 1)
        case ATTOpcode.errorResponse.rawValue where pdu.count >= 5: back(at: 2)
        case 0x05 where pdu.count >= 2: entries(from: 2, size: pdu[1] == 0x01 ? 4 : 18, offsets: [0])
        case 0x07: entries(from: 1, size: 4, offsets: [0, 2])
        case 0x09 where pdu.count >= 2:
            let size = Int(pdu[1])
            // A characteristic declaration (properties, value handle, UUID) is 5 or 19 bytes of value.
            entries(from: 2, size: size, offsets: size == 7 || size == 21 ? [0, 3] : [0])
        case 0x11 where pdu.count >= 2: entries(from: 2, size: Int(pdu[1]), offsets: [0, 2])
        default: break
        }
        return out
    }
}
