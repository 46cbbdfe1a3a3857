import Foundation

/// `CBCentralManagerDelegate`. Apple marks every method but `centralManagerDidUpdateState(_:)`
/// `@objc optional`; here the protocol extension gives each a default that does nothing (it only
/// notes, for `CBReplay.diagnostics`, a call that may have missed a subclass's method), so a class
/// that implements any subset compiles unchanged. Forwarding code written
/// `delegate?.centralManager?(…)` compiles too (CBDelegates+OptionalCalls.swift).
public protocol CBCentralManagerDelegate: NSObjectProtocol {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
    /// iOS 17: called instead of the shorter form; the default forwards to it.
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
                        isReconnecting: Bool, error: (any Error)?)
    func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral)
}

extension CBCentralManagerDelegate {
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) { noteDefault("centralManager(_:willRestoreState:)") }
    public func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) { noteDefault("centralManager(_:didDiscover:advertisementData:rssi:)") }
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { noteDefault("centralManager(_:didConnect:)") }
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) { noteDefault("centralManager(_:didFailToConnect:error:)") }
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) { noteDefault("centralManager(_:didDisconnectPeripheral:error:)") }
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
                               isReconnecting: Bool, error: (any Error)?) {
        centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    public func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) { noteDefault("centralManager(_:connectionEventDidOccur:for:)") }
    public func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) { noteDefault("centralManager(_:didUpdateANCSAuthorizationFor:)") }
}

/// `CBPeripheralDelegate`: all methods optional (defaults as above).
public protocol CBPeripheralDelegate: NSObjectProtocol {
    func peripheralDidUpdateName(_ peripheral: CBPeripheral)
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService])
    func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?)
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral)
    /// iOS 11: the answer to `openL2CAPChannel(_:)`.
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
}

extension CBPeripheralDelegate {
    public func peripheralDidUpdateName(_ peripheral: CBPeripheral) { noteDefault("peripheralDidUpdateName(_:)") }
    public func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) { noteDefault("peripheral(_:didModifyServices:)") }
    public func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?) { noteDefault("peripheralDidUpdateRSSI(_:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) { noteDefault("peripheral(_:didReadRSSI:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) { noteDefault("peripheral(_:didDiscoverServices:)") }
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) { noteDefault("peripheral(_:didDiscoverIncludedServicesFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) { noteDefault("peripheral(_:didDiscoverCharacteristicsFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) { noteDefault("peripheral(_:didUpdateValueFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) { noteDefault("peripheral(_:didWriteValueFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) { noteDefault("peripheral(_:didUpdateNotificationStateFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) { noteDefault("peripheral(_:didDiscoverDescriptorsFor:error:)") }
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) { noteDefault("peripheral(_:didUpdateValueFor:error:) for a descriptor") }
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) { noteDefault("peripheral(_:didWriteValueFor:error:) for a descriptor") }
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) { noteDefault("peripheralIsReady(toSendWriteWithoutResponse:)") }
    public func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) { noteDefault("peripheral(_:didOpen:error:)") }
}

extension CBCentralManagerDelegate {
    /// A default ran (CBReplay+RuntimeChecks.swift `noteDefaultCalled`).
    func noteDefault(_ method: String) {
        CBReplay.noteDefaultCalled(self, method, protocolName: "CBCentralManagerDelegate") { $0 is any CBCentralManagerDelegate.Type }
    }
}

extension CBPeripheralDelegate {
    func noteDefault(_ method: String) {
        CBReplay.noteDefaultCalled(self, method, protocolName: "CBPeripheralDelegate") { $0 is any CBPeripheralDelegate.Type }
    }
}
