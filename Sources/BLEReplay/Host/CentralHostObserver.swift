import BLECore

/// One advertising event as the central's scanner saw it.
public struct AdvertisingEvent: Sendable {
    public var time: VirtualTime
    public var advertisingData: [UInt8]
    public var scanResponse: [UInt8]?
    public var rssi: Int8
    public var connectable: Bool
}

/// What the central host tells the central running on it (the recorded central, a script, or
/// CoreBluetoothReplay). Three implementations; every method has a default that ignores it.
public protocol CentralHostObserver: AnyObject {
    func centralHost(_ host: CentralHost, didDiscover peripheral: SimulatedPeripheral, report: AdvertisingEvent)
    func centralHost(_ host: CentralHost, didConnect link: SimulatedLink)
    /// A pending connection attempt ended without a link (cancelled: 0x02).
    func centralHost(_ host: CentralHost, didFailToConnect peripheral: SimulatedPeripheral, reason: HCIStatusCode)
    func centralHost(_ host: CentralHost, didDisconnect link: SimulatedLink, reason: HCIStatusCode)
    /// A notification or indication (the host has already scheduled the confirmation).
    func centralHost(_ host: CentralHost, link: SimulatedLink, didReceiveValue pdu: [UInt8])
    /// Buffers freed after a write without response found none (CoreBluetooth's peripheralIsReady).
    func centralHost(_ host: CentralHost, linkIsReadyToSendWriteWithoutResponse link: SimulatedLink)
    /// The ATT MTU changed.
    func centralHost(_ host: CentralHost, link: SimulatedLink, didUpdateMTU mtu: Int)
}

extension CentralHostObserver {
    public func centralHost(_ host: CentralHost, didDiscover peripheral: SimulatedPeripheral, report: AdvertisingEvent) {}
    public func centralHost(_ host: CentralHost, didConnect link: SimulatedLink) {}
    public func centralHost(_ host: CentralHost, didFailToConnect peripheral: SimulatedPeripheral, reason: HCIStatusCode) {}
    public func centralHost(_ host: CentralHost, didDisconnect link: SimulatedLink, reason: HCIStatusCode) {}
    public func centralHost(_ host: CentralHost, link: SimulatedLink, didReceiveValue pdu: [UInt8]) {}
    public func centralHost(_ host: CentralHost, linkIsReadyToSendWriteWithoutResponse link: SimulatedLink) {}
    public func centralHost(_ host: CentralHost, link: SimulatedLink, didUpdateMTU mtu: Int) {}
}
