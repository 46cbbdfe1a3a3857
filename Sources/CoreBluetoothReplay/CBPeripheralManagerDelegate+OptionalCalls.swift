import Foundation

/// `delegate?.peripheralManager?(…)`, as forwarding delegates write it on iOS: the same shape as
/// CBDelegates+OptionalCalls.swift gives the central side. Each base name of an optional
/// `CBPeripheralManagerDelegate` method (`peripheralManager`, `peripheralManagerDidStartAdvertising`,
/// `peripheralManagerIsReady`) is a protocol-extension property of an optional type, never nil,
/// callable with the argument labels of every optional method of that name.
/// `peripheralManagerDidUpdateState(_:)` is required, so it is called without the second `?`.
extension CBPeripheralManagerDelegate {
    public var peripheralManager: CBPeripheralManagerDelegateCall? { CBPeripheralManagerDelegateCall(delegate: self) }
    public var peripheralManagerDidStartAdvertising: CBPeripheralManagerDelegateAdvertisingCall? {
        CBPeripheralManagerDelegateAdvertisingCall(delegate: self)
    }
    public var peripheralManagerIsReady: CBPeripheralManagerDelegateReadyCall? { CBPeripheralManagerDelegateReadyCall(delegate: self) }
}

/// `delegate?.peripheralManager?(…)`: the optional methods named `peripheralManager`.
public struct CBPeripheralManagerDelegateCall {
    let delegate: any CBPeripheralManagerDelegate

    public func callAsFunction(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        delegate.peripheralManager(peripheral, willRestoreState: dict)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        delegate.peripheralManager(peripheral, didAdd: service, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        delegate.peripheralManager(peripheral, central: central, didSubscribeTo: characteristic)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        delegate.peripheralManager(peripheral, central: central, didUnsubscribeFrom: characteristic)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        delegate.peripheralManager(peripheral, didReceiveRead: request)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        delegate.peripheralManager(peripheral, didReceiveWrite: requests)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        delegate.peripheralManager(peripheral, didPublishL2CAPChannel: PSM, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        delegate.peripheralManager(peripheral, didUnpublishL2CAPChannel: PSM, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        delegate.peripheralManager(peripheral, didOpen: channel, error: error)
    }
}

/// `delegate?.peripheralManagerDidStartAdvertising?(peripheral, error: e)`.
public struct CBPeripheralManagerDelegateAdvertisingCall {
    let delegate: any CBPeripheralManagerDelegate
    public func callAsFunction(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        delegate.peripheralManagerDidStartAdvertising(peripheral, error: error)
    }
}

/// `delegate?.peripheralManagerIsReady?(toUpdateSubscribers: peripheral)`.
public struct CBPeripheralManagerDelegateReadyCall {
    let delegate: any CBPeripheralManagerDelegate
    public func callAsFunction(toUpdateSubscribers peripheral: CBPeripheralManager) {
        delegate.peripheralManagerIsReady(toUpdateSubscribers: peripheral)
    }
}
