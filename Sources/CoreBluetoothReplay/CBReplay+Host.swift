import BLECore
import BLEDecode
import BLEReplay
import Foundation

/// What the simulated host reports, turned into CoreBluetooth delegate callbacks.
extension CBReplay {
    /// An advertising event heard while scanning becomes `didDiscover`, as iOS shows it: without
    /// iBeacon structures, and not at all for a pure iBeacon (`CBScanAdvertisement`), which gets
    /// no `CBPeripheral`. With `CBCentralManagerScanOptionAllowDuplicatesKey` every event is
    /// judged alike (a peripheral's recorded advertising is one per device, so every event of a
    /// pure iBeacon is withheld and the host's once-per-scan rule hides no visible event).
    public func centralHost(_ host: CentralHost, didDiscover peripheral: SimulatedPeripheral, report: AdvertisingEvent) {
        guard let m = activeManager, m.isScanning else { return }
        let advertisement = CBScanAdvertisement(report)
        guard !advertisement.isWithheld, Self.scanMatches(m, advertisement) else { return }
        let p = object(for: peripheral)
        let data = advertisement.dictionary
        if let name = data[CBAdvertisementDataLocalNameKey] as? String, p.name != name {
            // CoreBluetooth updates `name` from the advertised local name and says so.
            let hadName = p.name != nil
            p.name = name
            if hadName { callApp(m) { p.delegate?.peripheralDidUpdateName(p) } }
        }
        callApp(m) { m.delegate?.centralManager(m, didDiscover: p, advertisementData: data, rssi: NSNumber(value: Int(report.rssi))) }
    }

    public func centralHost(_ host: CentralHost, didConnect link: SimulatedLink) {
        guard link.localCentral else { return }   // a remote central: CBReplay+PeripheralRole.swift
        let p = object(for: link.peripheral)
        p.link = link
        p.pendingWritesWithoutResponse = 0
        let gatt = GATTClient(host: host, link: link)
        gatt.pairsWhenRequired = true   // iOS pairs when a request needs it (Docs/replay.md "Security")
        p.gatt = gatt
        p.state = .connecting
        // iOS exchanges the MTU before the app hears of the connection. A connection the app
        // cancelled meanwhile (`.disconnecting`: the link is still going down when the answer
        // comes) is never reported as made: Apple, `cancelPeripheralConnection(_:)`, "cancels an
        // active or pending local connection" and from then on the app considers the peripheral
        // disconnected; it hears `didDisconnectPeripheral` only.
        gatt.exchangeMTU(world.configuration.clientRxMTU) { [self] _ in
            guard p.link === link, link.isUp, p.state == .connecting else { return }
            p.state = .connected
            if let m = activeManager { callApp(m) { m.delegate?.centralManager(m, didConnect: p) } }
        }
    }

    public func centralHost(_ host: CentralHost, didDisconnect link: SimulatedLink, reason: HCIStatusCode) {
        guard link.localCentral else { return peripheralRole(didDisconnect: link) }
        let p = object(for: link.peripheral)
        guard p.link === link else { return }
        let wasConnected = p.state == .connected || p.state == .disconnecting
        p.link = nil
        p.gatt = nil
        p.state = .disconnected
        p.invalidateAttributes()
        let heldConnect = p.connectAfterDisconnect
        p.connectAfterDisconnect = nil
        guard !poweringOff, let m = activeManager else { return }
        let code = link.cbError(for: reason, mapping: world.configuration.disconnectMapping).map { CBError.Code(rawValue: $0) ?? .unknown }
        let error = code.map { CBError($0, hciReason: reason.rawValue) }
        let reconnecting = wasConnected && reconnectsBySystem(p, after: link)   // CBReplay+AutoReconnect.swift
        callApp(m) {
            if wasConnected {
                m.delegate?.centralManager(m, didDisconnectPeripheral: p, timestamp: clock.absoluteTime, isReconnecting: reconnecting, error: error)
            } else {
                m.delegate?.centralManager(m, didFailToConnect: p, error: error ?? CBError(.connectionFailed, hciReason: reason.rawValue))
            }
        }
        // A `connect` made while the link was disconnecting, unless the app or the system
        // connected again meanwhile.
        if let options = heldConnect, p.state == .disconnected, !m.detached, m.state == .poweredOn {
            m.startConnecting(p, options: options)
        }
    }

    public func centralHost(_ host: CentralHost, link: SimulatedLink, didReceiveValue pdu: [UInt8]) {
        guard link.localCentral, activeManager != nil else { return }
        object(for: link.peripheral).received(pdu, on: link)
    }

    public func centralHost(_ host: CentralHost, linkIsReadyToSendWriteWithoutResponse link: SimulatedLink) {
        // The app's own writes without response are flow-controlled by its CBPeripheral
        // (CBPeripheral+WriteWithoutResponse.swift), which never asks the host.
        guard link.localCentral else { return peripheralRole(linkIsReady: link) }
    }

    /// Whether a scan with a service filter and solicited services reports this advertiser: it
    /// advertises one of the services or solicits one of the solicited ones (the host reported
    /// every advertiser for such a scan, CBCentralManager.scanForPeripherals).
    static func scanMatches(_ m: CBCentralManager, _ advertisement: CBScanAdvertisement) -> Bool {
        let solicited = m.scanSolicited
        guard !solicited.isEmpty, let services = m.scanServices else { return true }
        let ad = advertisement.visible
        let wanted = Set(services.map(\.bluetoothUUID)), asked = Set(solicited.map(\.bluetoothUUID))
        return ad.serviceUUIDs.contains(where: wanted.contains) || ad.solicitedServiceUUIDs.contains(where: asked.contains)
    }
}
