import Foundation

/// Forwarding and multicast delegates call an optional requirement with optional chaining:
/// `delegate?.centralManager?(central, didConnect: peripheral)`. On iOS that needs `@objc optional`
/// requirements, which Swift on Linux does not have. The closest shape that compiles unchanged:
/// each base name of an optional method (`centralManager`, `peripheral`, `peripheralDidUpdateName`,
/// `peripheralDidUpdateRSSI`, `peripheralIsReady`) is also a protocol-extension property of an
/// optional type whose value is callable (`callAsFunction`) with the argument labels of every
/// optional method of that name, and calls that method (the class's implementation, or the
/// default). So `delegate?.centralManager?(c, didConnect: p)` unwraps the delegate, then the
/// property (never nil), then calls `centralManager(_:didConnect:)`.
///
/// What stays different (Docs/replay.md "API as on iOS"): the property is never nil, so
/// `delegate?.centralManager?(…)` gives `()` where iOS gives nil for a method the target lacks,
/// and `responds(to:)` has no selectors to ask about; a class's own property with one of these
/// names (`var peripheral: CBPeripheral?`) is used inside that class, as before, since a
/// protocol-extension property is not a requirement and ranks below the class's own member.
/// `centralManagerDidUpdateState(_:)` is required, so it is called without the second `?`, as on iOS.
extension CBCentralManagerDelegate {
    public var centralManager: CBCentralManagerDelegateCall? { CBCentralManagerDelegateCall(delegate: self) }
}

/// `delegate?.centralManager?(…)`: the optional `CBCentralManagerDelegate` methods named
/// `centralManager`, callable through the optional property above.
public struct CBCentralManagerDelegateCall {
    let delegate: any CBCentralManagerDelegate

    public func callAsFunction(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        delegate.centralManager(central, willRestoreState: dict)
    }
    public func callAsFunction(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        delegate.centralManager(central, didDiscover: peripheral, advertisementData: advertisementData, rssi: RSSI)
    }
    public func callAsFunction(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        delegate.centralManager(central, didConnect: peripheral)
    }
    public func callAsFunction(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        delegate.centralManager(central, didFailToConnect: peripheral, error: error)
    }
    public func callAsFunction(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        delegate.centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    public func callAsFunction(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
                               isReconnecting: Bool, error: (any Error)?) {
        delegate.centralManager(central, didDisconnectPeripheral: peripheral, timestamp: timestamp, isReconnecting: isReconnecting, error: error)
    }
    public func callAsFunction(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) {
        delegate.centralManager(central, connectionEventDidOccur: event, for: peripheral)
    }
    public func callAsFunction(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {
        delegate.centralManager(central, didUpdateANCSAuthorizationFor: peripheral)
    }
}

extension CBPeripheralDelegate {
    public var peripheral: CBPeripheralDelegateCall? { CBPeripheralDelegateCall(delegate: self) }
    public var peripheralDidUpdateName: CBPeripheralDelegateNameCall? { CBPeripheralDelegateNameCall(delegate: self) }
    public var peripheralDidUpdateRSSI: CBPeripheralDelegateRSSICall? { CBPeripheralDelegateRSSICall(delegate: self) }
    public var peripheralIsReady: CBPeripheralDelegateReadyCall? { CBPeripheralDelegateReadyCall(delegate: self) }
}

/// `delegate?.peripheral?(…)`: the optional `CBPeripheralDelegate` methods named `peripheral`.
public struct CBPeripheralDelegateCall {
    let delegate: any CBPeripheralDelegate

    public func callAsFunction(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        delegate.peripheral(peripheral, didModifyServices: invalidatedServices)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        delegate.peripheral(peripheral, didReadRSSI: RSSI, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        delegate.peripheral(peripheral, didDiscoverServices: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) {
        delegate.peripheral(peripheral, didDiscoverIncludedServicesFor: service, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        delegate.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        delegate.peripheral(peripheral, didUpdateValueFor: characteristic, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        delegate.peripheral(peripheral, didWriteValueFor: characteristic, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) {
        delegate.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {
        delegate.peripheral(peripheral, didDiscoverDescriptorsFor: characteristic, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        delegate.peripheral(peripheral, didUpdateValueFor: descriptor, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {
        delegate.peripheral(peripheral, didWriteValueFor: descriptor, error: error)
    }
    public func callAsFunction(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        delegate.peripheral(peripheral, didOpen: channel, error: error)
    }
}

/// `delegate?.peripheralDidUpdateName?(peripheral)`.
public struct CBPeripheralDelegateNameCall {
    let delegate: any CBPeripheralDelegate
    public func callAsFunction(_ peripheral: CBPeripheral) { delegate.peripheralDidUpdateName(peripheral) }
}

/// `delegate?.peripheralDidUpdateRSSI?(peripheral, error: e)`.
public struct CBPeripheralDelegateRSSICall {
    let delegate: any CBPeripheralDelegate
    public func callAsFunction(_ peripheral: CBPeripheral, error: (any Error)?) { delegate.peripheralDidUpdateRSSI(peripheral, error: error) }
}

/// `delegate?.peripheralIsReady?(toSendWriteWithoutResponse: peripheral)`.
public struct CBPeripheralDelegateReadyCall {
    let delegate: any CBPeripheralDelegate
    public func callAsFunction(toSendWriteWithoutResponse peripheral: CBPeripheral) { delegate.peripheralIsReady(toSendWriteWithoutResponse: peripheral) }
}
