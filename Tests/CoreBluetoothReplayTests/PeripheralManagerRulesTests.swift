import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// iOS's GATT-server rules (Docs/peripheral.md), each against a recorded central built from the
/// spec: a remote central (LE Connection Complete role 0x01) at ATT MTU 23 sends the requests
/// below, and the recorded phone's answers are laid out as Core v5.4 Vol 3 Part F 3.4 says. An
/// app whose answers match them shows no divergence; which of them reached the app is the rule.
///
/// The app's database (CBLocalDatabase layout): 0x000A service FFF0; 0x000C FFF1 cached "v1.0"
/// (read-only); 0x000E FFF2 dynamic read/write, a 40-byte value; 0x0010 FFF3 write (the app
/// refuses with 0x80); 0x0012 FFF4 read (the app never answers).
@Suite struct PeripheralManagerRulesTests {
    static let long = Array(UInt8(0x40)..<UInt8(0x68))     // 40 bytes
    static let partA = Array(UInt8(0x01)...UInt8(0x12)), partB = Array(UInt8(0x13)...UInt8(0x16))

    static func capture(answeredLastRead: Bool = false) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x0A, 0x0C, 0x00], [0x0B] + Array("v1.0".utf8))                  // cached: the system answers
        served(200, [0x12, 0x0C, 0x00, 0x78], [0x01, 0x12, 0x0C, 0x00, 0x03])          // write to it: 0x03
        served(250, [0x0A, 0x0E, 0x00], [0x0B] + long.prefix(22))                      // MTU 23: 22 bytes
        served(300, [0x0C, 0x0E, 0x00, 22, 0x00], [0x0D] + long.dropFirst(22))          // Read Blob at 22
        served(350, [0x16, 0x0E, 0x00, 0x00, 0x00] + partA, [0x17, 0x0E, 0x00, 0x00, 0x00] + partA)
        served(400, [0x16, 0x0E, 0x00, 18, 0x00] + partB, [0x17, 0x0E, 0x00, 18, 0x00] + partB)
        served(450, [0x18, 0x01], [0x19])                                              // Execute Write
        served(500, [0x12, 0x10, 0x00, 0x01], [0x01, 0x12, 0x10, 0x00, 0x80])           // application error
        c.att(550, handle: 0x41, [0x52, 0x0E, 0x00, 0xAA], received: true)             // Write Command
        served(600, [0x0A, 0x12, 0x00], answeredLastRead ? [0x0B, 0x07] : nil)          // never answered (by default)
        c.disconnectionComplete(31_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("peripheral-rules-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    @Test func eachRequestIsAnsweredAsIOSWouldAndTheAppHearsOnlyItsShare() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let clock = replay.clock!
        let app = replay.activate { RulesServer(now: { clock.now }) }
        replay.run(for: 40)
        let driver = replay.localServerDriver
        #expect(driver.divergences.isEmpty, "\(driver.divergences)")
        let server = try #require(driver.servers.first)
        // Requests 1-8 answered as recorded, the last one timed out as the recording's did.
        #expect(server.compared == 9 && server.timeouts == 1 && server.unrecorded == 0)
        // The cached FFF1 never reaches the app; the long read is two calls with growing offset.
        #expect(app.reads == [.init(uuid: "FFF2", offset: 0), .init(uuid: "FFF2", offset: 22), .init(uuid: "FFF4", offset: 0)])
        // The prepared writes come together at Execute Write, each part with its offset.
        #expect(app.writes == [
            [.init(uuid: "FFF2", offset: 0, value: Self.partA), .init(uuid: "FFF2", offset: 18, value: Self.partB)],
            [.init(uuid: "FFF3", offset: 0, value: [0x01])],
            [.init(uuid: "FFF2", offset: 0, value: [0xAA])],
        ])
        // The app never answered the FFF4 read: the central's ATT transaction timed out 30 s
        // after the request (0.500 s of virtual time: the capture's first record, the connection
        // at 100 ms, is time zero) and it dropped the link at its next connection event (30 ms
        // interval), before the recorded 0x13 at 30.9 s.
        let end = try #require(replay.world.host.allLinks.first?.endedAt)
        #expect(end > 30_500_000 && end <= 30_530_000)
        #expect(replay.world.host.allLinks.first?.endReason?.rawValue == 0x13)
    }

    /// The recorded server answered the FFF4 read; the app never does: the central's 30 s ATT
    /// timeout is the divergence, naming the request's and the recorded answer's packets (the
    /// 21st and 22nd records: LE Connection Complete, then two per exchange, the command one).
    @Test func anAppThatNeverAnswersIsTheCentralsATTTimeout() throws {
        let path = try Self.capture(answeredLastRead: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { RulesServer(now: { 0 }) }
        replay.run(for: 40)
        #expect(app.reads.last == .init(uuid: "FFF4", offset: 0))
        let d = replay.localServerDriver.divergences
        #expect(d.count == 1)
        #expect(d.first?.description == "packet 19 Read Request to 0x0012: recorded Read Response 07 (packet 20), the app answered nothing within 30 s (the central's ATT timeout)")
        // The recorded connection (time zero) came before the app advertised (also at zero): the
        // central connects at the app's first advertising event, 2.5 ms later, and everything
        // after follows; the read reached the app at 0.5025 s, the timeout 30 s after it.
        #expect(d.first.map { $0.time == 30_502_500 } == true, "\(d.first?.time ?? 0)")
    }

    @Test func advertisingKeepsToThirtyOneBytes() {
        let hr = CBAdvertisingLayout([CBAdvertisementDataLocalNameKey: "Pulse HR",
                                      CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
        // Flags (02 01 06), Complete 16-bit UUIDs (03 03 0D 18), Complete Local Name (09 09 "Pulse HR").
        #expect(hr.advertisingData == [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x09, 0x09] + Array("Pulse HR".utf8))
        #expect(hr.scanResponse.isEmpty && hr.overflowServiceUUIDs.isEmpty && !hr.nameShortened)

        let a = CBUUID(string: "7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55"), b = CBUUID(string: "7A3E0010-52C1-4B8E-9E4A-2F6C3B1D0E55")
        let big = CBAdvertisingLayout([CBAdvertisementDataLocalNameKey: "Kitchen Thermometer",
                                       CBAdvertisementDataServiceUUIDsKey: [a, b]])
        // 3 + 18 bytes: one 128-bit UUID fits (Incomplete List, 0x06); the other overflows; the
        // 19-byte name does not fit the 10 left, so it goes to the scan response, cut to 8 bytes.
        #expect(big.advertisingData.count == 21 && big.advertisingData[4] == 0x06)
        #expect(Array(big.advertisingData.suffix(16)) == a.bluetoothUUID.littleEndianBytes)
        #expect(big.overflowServiceUUIDs == [b.uuidString])
        #expect(big.scanResponse == [0x09, 0x08] + Array("Kitchen ".utf8) && big.nameShortened)
    }

    /// Only the local name and the service UUIDs are advertised: iOS logs and ignores the other
    /// keys and still advertises (a writable cached value traps: PeripheralManagerMisuseTests).
    @Test func onlyTwoAdvertisingKeysAreTakenAndTheOthersIgnored() throws {
        let replay = try CBReplay(capture: try Self.capture())
        let app = replay.activate { RulesServer(now: { 0 }, extraAdvertisingKey: true) }
        replay.run(for: 1)
        #expect(app.addErrors.isEmpty)
        #expect(app.advertisingErrors.isEmpty)
        #expect(app.manager.isAdvertising)
        #expect(replay.diagnostics.map(\.kind) == [.ignoredAsIOSDoes])
    }

    @Test func stateRestorationGivesBackTheServicesAndTheAdvertising() throws {
        let replay = try CBReplay(capture: try Self.capture())
        let first = replay.activate { RulesServer(now: { 0 }, restoreIdentifier: "sensor") }
        replay.run(for: 0.05)
        replay.relaunch()
        let second = replay.activate { RulesServer(now: { 0 }, restoreIdentifier: "sensor", publishes: false) }
        replay.run(for: 0.1)
        let restored = try #require(second.restored)
        let services = try #require(restored[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService])
        #expect(services.count == 1 && services[0] === first.service)
        let adv = try #require(restored[CBPeripheralManagerRestoredStateAdvertisementDataKey] as? [String: Any])
        #expect(adv[CBAdvertisementDataLocalNameKey] as? String == "Rules")
        #expect(second.calls.prefix(2) == ["willRestoreState", "didUpdateState"])
        #expect(second.manager.isAdvertising)
    }
}

/// A server for the rules above.
final class RulesServer: NSObject, CBPeripheralManagerDelegate {
    struct Read: Equatable { var uuid: String; var offset: Int }
    struct Write: Equatable { var uuid: String; var offset: Int; var value: [UInt8] }
    var manager: CBPeripheralManager!
    let service = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
    let now: () -> TimeInterval
    let writableCached: Bool
    let extraAdvertisingKey: Bool
    let publishes: Bool
    var reads: [Read] = []
    var writes: [[Write]] = []
    var value = PeripheralManagerRulesTests.long
    var addErrors: [Error] = []
    var advertisingErrors: [Error] = []
    var restored: [String: Any]?
    var calls: [String] = []

    init(now: @escaping () -> TimeInterval, writableCached: Bool = false, extraAdvertisingKey: Bool = false,
         restoreIdentifier: String? = nil, publishes: Bool = true) {
        self.now = now
        self.writableCached = writableCached
        self.extraAdvertisingKey = extraAdvertisingKey
        self.publishes = publishes
        super.init()
        let options: [String: Any]? = restoreIdentifier.map { [CBPeripheralManagerOptionRestoreIdentifierKey: $0] }
        manager = CBPeripheralManager(delegate: self, queue: nil, options: options)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        calls.append("willRestoreState")
        restored = dict
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        calls.append("didUpdateState")
        guard publishes, peripheral.state == .poweredOn else { return }
        service.characteristics = [
            CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: writableCached ? [.read, .write] : [.read],
                                    value: Data("v1.0".utf8), permissions: [.readable]),
            CBMutableCharacteristic(type: CBUUID(string: "FFF2"), properties: [.read, .write, .writeWithoutResponse],
                                    value: nil, permissions: [.readable, .writeable]),
            CBMutableCharacteristic(type: CBUUID(string: "FFF3"), properties: [.write], value: nil, permissions: [.writeable]),
            CBMutableCharacteristic(type: CBUUID(string: "FFF4"), properties: [.read], value: nil, permissions: [.readable]),
        ]
        peripheral.add(service)
        var adv: [String: Any] = [CBAdvertisementDataLocalNameKey: "Rules"]
        if extraAdvertisingKey { adv[CBAdvertisementDataManufacturerDataKey] = Data([0x4C, 0x00]) }
        peripheral.startAdvertising(adv)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if let error { addErrors.append(error) }
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        if let error { advertisingErrors.append(error) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        reads.append(Read(uuid: request.characteristic.uuid.uuidString, offset: request.offset))
        guard request.characteristic.uuid == CBUUID(string: "FFF2") else { return }   // FFF4: never answered
        request.value = Data(value[request.offset...])
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        writes.append(requests.map { Write(uuid: $0.characteristic.uuid.uuidString, offset: $0.offset, value: Array($0.value ?? Data())) })
        let refused = requests[0].characteristic.uuid == CBUUID(string: "FFF3")
        peripheral.respond(to: requests[0], withResult: refused ? CBATTError.Code(rawValue: 0x80)! : .success)
    }
}

/// The snippet, from a widely read guide, as written for iOS, in an app that also holds
/// a central manager (a "BLE manager" that picks its role at launch).
final class GuideSnippetApp: NSObject, CBPeripheralManagerDelegate, CBCentralManagerDelegate {
    var peripheralManager: CBPeripheralManager!
    var centralManager: CBCentralManager!
    var added: [CBUUID] = []
    var readsAnswered = 0

    override init() {
        super.init()
        centralManager = CBCentralManager(delegate: self, queue: nil)
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {}

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let characteristic = CBMutableCharacteristic(type: CBUUID(string: "5678"),
            properties: [.read, .write, .notify], value: nil, permissions: [.readable, .writeable])
        let service = CBMutableService(type: CBUUID(string: "1234"), primary: true)
        service.characteristics = [characteristic]
        peripheralManager.add(service)
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: "My BLE Device",
                                            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "1234")]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if error == nil { added.append(service.uuid) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        request.value = Data("hello".utf8)
        peripheral.respond(to: request, withResult: .success)
        readsAnswered += 1
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        peripheral.respond(to: requests.first!, withResult: .success)
    }
}

@Suite struct GuideSnippetTests {
    @Test func theGuidesPeripheralCodeRunsBesideACentralManager() throws {
        let replay = try CBReplay(capture: PeripheralManagerRulesTests.capture())
        let app = replay.activate { GuideSnippetApp() }
        replay.run(for: 2)
        #expect(app.centralManager.state == .poweredOn && app.peripheralManager.state == .poweredOn)
        #expect(app.added == [CBUUID(string: "1234")])
        #expect(app.peripheralManager.isAdvertising)
        // The recorded central's link went to the peripheral manager, not the central manager.
        #expect(replay.localServerDriver.servers.count == 1)
        #expect(replay.world.host.allLinks.first?.localCentral == false)
    }
}
