import BLECore
import BLEReplay
import Foundation

/// `CBAttribute`: what services, characteristics and descriptors share.
open class CBAttribute: NSObject {
    private let attributeUUID: CBUUID
    init(uuid: CBUUID) {
        attributeUUID = uuid
        super.init()
    }
    open var uuid: CBUUID { attributeUUID }
}

/// `CBService`.
open class CBService: CBAttribute {
    public internal(set) weak var peripheral: CBPeripheral?
    public let isPrimary: Bool
    public internal(set) var includedServices: [CBService]?
    public internal(set) var characteristics: [CBCharacteristic]?
    let range: GATTClient.Service

    init(_ s: GATTClient.Service, peripheral: CBPeripheral, isPrimary: Bool = true) {
        range = s
        self.peripheral = peripheral
        self.isPrimary = isPrimary
        super.init(uuid: CBUUID(bluetoothUUID: s.uuid))
    }

    /// A local service (CBMutableService, CBMutableAttributes.swift): no peripheral, no handles.
    init(localType uuid: CBUUID, isPrimary: Bool) {
        range = GATTClient.Service(localUUID: uuid.bluetoothUUID)
        self.isPrimary = isPrimary
        super.init(uuid: uuid)
    }

    override open var description: String {
        "<CBService: \(uuid.uuidString), handles \(hex(range.startHandle, width: 4))-\(hex(range.endHandle, width: 4))>"
    }
}

/// `CBCharacteristic`.
open class CBCharacteristic: CBAttribute {
    public internal(set) weak var service: CBService?
    public internal(set) var properties: CBCharacteristicProperties
    public internal(set) var value: Data?
    public internal(set) var descriptors: [CBDescriptor]?
    public internal(set) var isNotifying = false
    public var isBroadcasted: Bool { false }
    let gatt: GATTClient.Characteristic

    init(_ c: GATTClient.Characteristic, service: CBService) {
        gatt = c
        self.service = service
        properties = CBCharacteristicProperties(rawValue: UInt(c.properties))
        super.init(uuid: CBUUID(bluetoothUUID: c.uuid))
    }

    /// A local characteristic (CBMutableCharacteristic, CBMutableAttributes.swift).
    init(localType uuid: CBUUID, properties: CBCharacteristicProperties, value: Data?) {
        gatt = GATTClient.Characteristic(localUUID: uuid.bluetoothUUID, properties: UInt8(truncatingIfNeeded: properties.rawValue))
        self.properties = properties
        self.value = value
        super.init(uuid: uuid)
    }

    override open var description: String {
        "<CBCharacteristic: \(uuid.uuidString), value handle \(hex(gatt.valueHandle, width: 4)), properties 0x\(String(properties.rawValue, radix: 16)), notifying \(isNotifying)>"
    }
}

/// `CBDescriptor`.
open class CBDescriptor: CBAttribute {
    public internal(set) weak var characteristic: CBCharacteristic?
    /// As CoreBluetooth types it: NSNumber for 0x2900/0x2902/0x2903, String for 0x2901, Data otherwise.
    public internal(set) var value: Any?
    let handle: UInt16

    init(_ d: GATTClient.Descriptor, characteristic: CBCharacteristic) {
        handle = d.handle
        self.characteristic = characteristic
        super.init(uuid: CBUUID(bluetoothUUID: d.uuid))
    }

    /// A local descriptor (CBMutableDescriptor, CBMutableAttributes.swift).
    init(localType uuid: CBUUID, value: Any?) {
        handle = 0
        self.value = value
        super.init(uuid: uuid)
    }

    func setValue(_ bytes: [UInt8]) {
        switch uuid.bluetoothUUID.uint16 {
        case 0x2900, 0x2902, 0x2903:
            value = NSNumber(value: bytes.prefix(2).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) })
        case 0x2901:
            value = String(decoding: bytes, as: UTF8.self)
        default:
            value = Data(bytes)
        }
    }
}

/// `CBPeer`.
open class CBPeer: NSObject {
    public let identifier: UUID
    init(identifier: UUID) {
        self.identifier = identifier
        super.init()
    }
}
