import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Whether a characteristic's value is cached is decided when it is published: a characteristic
/// added with a nil value stays dynamic even when the app later keeps its latest value in the
/// object's `value`, as Apple's own guide does in `didReceiveWrite` ("myCharacteristic.value =
/// request.value", Core Bluetooth Programming Guide, "Performing Common Peripheral Role Tasks").
/// Reads keep coming to `didReceiveRead` and writes to `didReceiveWrite`.
@Suite struct DynamicValueStoreTests {
    /// FFF0 with FFF2 (read, write; nil value) at 0x000E, as CBLocalDatabase lays it out.
    final class StoringServer: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        let fff2 = CBMutableCharacteristic(type: CBUUID(string: "FFF2"), properties: [.read, .write], value: nil,
                                           permissions: [.readable, .writeable])
        var heard: [String] = []
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
            s.characteristics = [
                CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: Data("v1.0".utf8), permissions: [.readable]),
                fff2,
            ]
            peripheral.add(s)
            peripheral.startAdvertising(nil)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
            heard.append("write \(Array(requests[0].value ?? Data()))")
            fff2.value = requests[0].value
            peripheral.respond(to: requests[0], withResult: .success)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            heard.append("read")
            request.value = fff2.value.map { $0.dropFirst(request.offset) }.map { Data($0) }
            peripheral.respond(to: request, withResult: .success)
        }
    }

    /// A remote central (role 0x01) writes FFF2 twice (Write Request, Core v5.4 Vol 3 Part F
    /// 3.4.5.1), then reads it (3.4.4.3); the recorded phone answered Write Response, Write
    /// Response, Read Response 02.
    static func capture() throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x66])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x12, 0x0E, 0x00, 0x01], [0x13])
        served(200, [0x12, 0x0E, 0x00, 0x02], [0x13])
        served(250, [0x0A, 0x0E, 0x00], [0x0B, 0x02])
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dynamic-store-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    @Test func aDynamicValueTheAppStoresStaysDynamic() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { StoringServer() }
        replay.run(for: 2)
        #expect(app.heard == ["write [1]", "write [2]", "read"])
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
    }
}
