import CoreBluetoothReplay
import Foundation

/// A Nordic-UART-style bridge, the peripheral most iOS tutorials build: RX (write, write without
/// response) takes commands, TX (notify) answers, in chunks of the subscriber's
/// `maximumUpdateValueLength`, sent to that one central (`onSubscribedCentrals: [central]`) and
/// paced by `peripheralManagerIsReady(toUpdateSubscribers:)`. One connection at a time: it stops
/// advertising when a central subscribes and advertises again when it goes; "bye" unpublishes
/// everything (`removeAllServices()`, `stopAdvertising()`), as a screen's `deinit` would.
///
/// Handles as CBLocalDatabase lays them out: 0x000A service, 0x000C RX, 0x000E TX, 0x000F its CCCD.
final class UARTPeripheral: NSObject, CBPeripheralManagerDelegate {
    static let serviceUUID = CBUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let rxUUID = CBUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let txUUID = CBUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
    /// What "dump" sends back: 500 bytes of log.
    static let dump = Data((0..<500).map { UInt8(truncatingIfNeeded: $0) })

    var peripheralManager: CBPeripheralManager!
    private var txCharacteristic: CBMutableCharacteristic?
    private var connectedCentral: CBCentral?
    private var pendingChunks: [Data] = []
    private(set) var chunksSent: [Data] = []
    private(set) var received: [String] = []
    private(set) var events: [String] = []
    private let now: () -> TimeInterval
    /// Greet a new subscriber at once, from `didSubscribeTo` (many apps send their current value there).
    var greets = false

    init(now: @escaping () -> TimeInterval) {
        self.now = now
        super.init()
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil)
    }

    private func event(_ s: String) { events.append(String(format: "%.4f ", now()) + s) }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        if peripheral.state == .poweredOn {
            let rx = CBMutableCharacteristic(type: Self.rxUUID, properties: [.write, .writeWithoutResponse], value: nil, permissions: [.writeable])
            let tx = CBMutableCharacteristic(type: Self.txUUID, properties: [.notify], value: nil, permissions: [.readable])
            let service = CBMutableService(type: Self.serviceUUID, primary: true)
            service.characteristics = [rx, tx]
            txCharacteristic = tx
            peripheral.add(service)
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if let error = error {
            event("add failed \(error)")
            return
        }
        startAdvertising()
    }

    private func startAdvertising() {
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: "UART",
                                            CBAdvertisementDataServiceUUIDsKey: [Self.serviceUUID]])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        event(error == nil ? "advertising" : "advertising failed \((error! as NSError).code)")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        event("subscribed max \(central.maximumUpdateValueLength)")
        connectedCentral = central
        peripheral.stopAdvertising()
        if greets { send(Data("hello".utf8)) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        event("unsubscribed")
        connectedCentral = nil
        pendingChunks.removeAll()
        if !peripheral.isAdvertising, txCharacteristic != nil { startAdvertising() }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        for request in requests {
            guard let data = request.value, let text = String(data: data, encoding: .utf8) else { continue }
            received.append(text)
            event("rx \(text)")
            switch text {
            case "dump":
                send(Self.dump)
            case "bye":
                peripheral.respond(to: request, withResult: .success)
                peripheral.stopAdvertising()
                peripheral.removeAllServices()
                txCharacteristic = nil
                return
            default:
                break
            }
        }
        peripheral.respond(to: requests[0], withResult: .success)
    }

    private func send(_ data: Data) {
        guard let central = connectedCentral else { return }
        let size = central.maximumUpdateValueLength
        var offset = 0
        while offset < data.count {
            let end = min(offset + size, data.count)
            pendingChunks.append(data.subdata(in: offset..<end))
            offset = end
        }
        sendPending()
    }

    private func sendPending() {
        guard let tx = txCharacteristic, let central = connectedCentral else { return }
        while let chunk = pendingChunks.first {
            if !peripheralManager.updateValue(chunk, for: tx, onSubscribedCentrals: [central]) {
                event("wait")
                return
            }
            chunksSent.append(chunk)
            pendingChunks.removeFirst()
        }
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        event("ready")
        sendPending()
    }
}
