import CoreBluetoothReplay
import Foundation

/// A settings server as an iOS developer writes one (a companion app exposing its settings to a
/// wearable): a 128-bit service with a long, dynamic "device info" string read in pieces
/// (`request.value = data.subdata(in: request.offset..<data.count)`, `.invalidOffset` past the
/// end), a "config" value that takes long (prepared) writes, put together by offset and answered
/// once, to the first request, as Apple's guide says, a write-without-response "command" that the
/// app answers anyway (many do), and a pairing token readable by trusted devices only
/// (`.readEncryptionRequired`). State comes through `queue: nil` (the main queue).
///
/// Handles as CBLocalDatabase lays them out: 0x000A service, 0x000C info, 0x000E config,
/// 0x0010 command, 0x0012 token, 0x0014 pin (written by trusted devices only,
/// `.writeEncryptionRequired`).
final class DeviceSettingsServer: NSObject, CBPeripheralManagerDelegate {
    static let serviceUUID = CBUUID(string: "6E400000-B5A3-F393-E0A9-E50E24DCCA9E")
    static let infoUUID = CBUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let configUUID = CBUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let commandUUID = CBUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
    static let tokenUUID = CBUUID(string: "6E400004-B5A3-F393-E0A9-E50E24DCCA9E")
    static let pinUUID = CBUUID(string: "6E400005-B5A3-F393-E0A9-E50E24DCCA9E")
    static let deviceInfo = Data(#"{"model":"Companion","fw":"2.4.1","serial":"A1B2C3"}"#.utf8)   // 52 bytes
    static let token = Data("tok-7f3a".utf8)

    var peripheralManager: CBPeripheralManager!
    private var infoCharacteristic: CBMutableCharacteristic!
    private var configCharacteristic: CBMutableCharacteristic!
    private var commandCharacteristic: CBMutableCharacteristic!
    private var tokenCharacteristic: CBMutableCharacteristic!
    private var pinCharacteristic: CBMutableCharacteristic!
    private(set) var pin: Data?
    private(set) var config = Data()
    private(set) var commands: [Data] = []
    private(set) var log: [String] = []

    override init() {
        super.init()
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else {
            log.append("not powered on")
            return
        }
        infoCharacteristic = CBMutableCharacteristic(type: Self.infoUUID, properties: .read, value: nil, permissions: .readable)
        configCharacteristic = CBMutableCharacteristic(type: Self.configUUID, properties: [.read, .write], value: nil,
                                                       permissions: [.readable, .writeable])
        commandCharacteristic = CBMutableCharacteristic(type: Self.commandUUID, properties: .writeWithoutResponse, value: nil,
                                                        permissions: .writeable)
        tokenCharacteristic = CBMutableCharacteristic(type: Self.tokenUUID, properties: .read, value: nil,
                                                      permissions: .readEncryptionRequired)
        pinCharacteristic = CBMutableCharacteristic(type: Self.pinUUID, properties: [.write, .writeWithoutResponse], value: nil,
                                                    permissions: .writeEncryptionRequired)
        let service = CBMutableService(type: Self.serviceUUID, primary: true)
        service.characteristics = [infoCharacteristic, configCharacteristic, commandCharacteristic, tokenCharacteristic, pinCharacteristic]
        peripheral.add(service)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        guard error == nil else { return }
        peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Companion",
                                     CBAdvertisementDataServiceUUIDsKey: [Self.serviceUUID]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        log.append("read \(name(request.characteristic)) @\(request.offset)")
        let data: Data
        switch request.characteristic.uuid {
        case Self.infoUUID: data = Self.deviceInfo
        case Self.configUUID: data = config
        case Self.tokenUUID: data = Self.token
        default:
            peripheral.respond(to: request, withResult: .attributeNotFound)
            return
        }
        if request.offset > data.count {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = data.subdata(in: request.offset..<data.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        log.append("write " + requests.map { "\(name($0.characteristic))@\($0.offset)+\($0.value?.count ?? 0)" }.joined(separator: " "))
        guard let first = requests.first else { return }
        if first.characteristic.uuid == Self.pinUUID {
            pin = first.value
            peripheral.respond(to: first, withResult: .success)
            return
        }
        if first.characteristic.uuid == Self.commandUUID {
            commands.append(first.value ?? Data())
            peripheral.respond(to: first, withResult: .success)   // not needed for a command; apps do it anyway
            return
        }
        // A long write comes as several requests, each with its offset: put them together.
        var assembled = Data()
        for request in requests.sorted(by: { $0.offset < $1.offset }) {
            guard request.characteristic.uuid == Self.configUUID, let value = request.value else {
                peripheral.respond(to: first, withResult: .writeNotPermitted)
                return
            }
            guard request.offset == assembled.count else {
                peripheral.respond(to: first, withResult: .invalidOffset)
                return
            }
            assembled.append(value)
        }
        config = assembled
        peripheral.respond(to: first, withResult: .success)
    }

    private func name(_ c: CBCharacteristic) -> String {
        switch c.uuid {
        case Self.infoUUID: "info"
        case Self.configUUID: "config"
        case Self.commandUUID: "command"
        case Self.tokenUUID: "token"
        case Self.pinUUID: "pin"
        default: c.uuid.uuidString
        }
    }
}
