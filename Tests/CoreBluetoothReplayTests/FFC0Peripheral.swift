import CoreBluetoothReplay

extension CBPeripheralManager {
    /// What the tests' one-characteristic peripheral apps do once powered on: publish service FFC0
    /// holding `characteristic` (0x000A service, 0x000B declaration, 0x000C value, 0x000D the
    /// system's CCCD when it notifies or indicates: CBLocalDatabase) and advertise its UUID.
    func publishAndAdvertiseFFC0(with characteristic: CBMutableCharacteristic) {
        guard state == .poweredOn else { return }
        let service = CBMutableService(type: CBUUID(string: "FFC0"), primary: true)
        service.characteristics = [characteristic]
        add(service)
        startAdvertising([CBAdvertisementDataServiceUUIDsKey: [service.uuid]])
    }
}
