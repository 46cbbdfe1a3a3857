import Foundation

/// `CBPeripheralManagerDelegate`. Apple marks every method but
/// `peripheralManagerDidUpdateState(_:)` `@objc optional`; as with CBCentralManagerDelegate
/// (CBDelegates.swift), the protocol extension gives each a default that only notes, for
/// `CBReplay.diagnostics`, a call that may have missed a subclass's method, so a class that
/// implements any subset compiles unchanged. Forwarding code written
/// `delegate?.peripheralManager?(…)` compiles too (CBPeripheralManagerDelegate+OptionalCalls.swift).
public protocol CBPeripheralManagerDelegate: NSObjectProtocol {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any])
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic)
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
}

extension CBPeripheralManagerDelegate {
    public func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) { noteDefault("peripheralManager(_:willRestoreState:)") }
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) { noteDefault("peripheralManagerDidStartAdvertising(_:error:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) { noteDefault("peripheralManager(_:didAdd:error:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) { noteDefault("peripheralManager(_:central:didSubscribeTo:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) { noteDefault("peripheralManager(_:central:didUnsubscribeFrom:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) { noteDefault("peripheralManager(_:didReceiveRead:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) { noteDefault("peripheralManager(_:didReceiveWrite:)") }
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) { noteDefault("peripheralManagerIsReady(toUpdateSubscribers:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) { noteDefault("peripheralManager(_:didPublishL2CAPChannel:error:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) { noteDefault("peripheralManager(_:didUnpublishL2CAPChannel:error:)") }
    public func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) { noteDefault("peripheralManager(_:didOpen:error:)") }
}

extension CBPeripheralManagerDelegate {
    /// A default ran (CBReplay+RuntimeChecks.swift `noteDefaultCalled`).
    func noteDefault(_ method: String) {
        CBReplay.noteDefaultCalled(self, method, protocolName: "CBPeripheralManagerDelegate") { $0 is any CBPeripheralManagerDelegate.Type }
    }
}
