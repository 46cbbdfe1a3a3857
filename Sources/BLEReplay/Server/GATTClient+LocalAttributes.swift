import BLECore

/// Attribute records for a local GATT server's attributes (CBMutableService and friends in
/// CoreBluetoothReplay), which no client discovered: the handles are the server's own.
extension GATTClient.Service {
    public init(localUUID uuid: BluetoothUUID, startHandle: UInt16 = 0, endHandle: UInt16 = 0) {
        self.init(uuid: uuid, startHandle: startHandle, endHandle: endHandle)
    }
}

extension GATTClient.Characteristic {
    public init(localUUID uuid: BluetoothUUID, properties: UInt8, declarationHandle: UInt16 = 0, valueHandle: UInt16 = 0,
                endHandle: UInt16 = 0) {
        self.init(uuid: uuid, declarationHandle: declarationHandle, valueHandle: valueHandle, properties: properties, endHandle: endHandle)
    }
}

extension GATTClient.Descriptor {
    public init(localUUID uuid: BluetoothUUID, handle: UInt16 = 0) {
        self.init(uuid: uuid, handle: handle)
    }
}
