import BLECore
import BLEDecode
import BLEReplay
import Foundation

/// `CBPeripheral` backed by a simulated recorded peripheral. Every request goes over the
/// simulated link as ATT (so the written capture shows it) and every answer arrives through
/// the delegate on the virtual clock; nothing calls the delegate from inside the caller's call.
open class CBPeripheral: CBPeer {
    public weak var delegate: (any CBPeripheralDelegate)?
    public internal(set) var name: String?
    public internal(set) var state: CBPeripheralState = .disconnected
    public internal(set) var services: [CBService]?
    public var ancsAuthorized: Bool { false }
    @available(*, deprecated, message: "use readRSSI() and peripheral(_:didReadRSSI:error:)")
    public internal(set) var rssi: NSNumber?

    unowned let replay: CBReplay
    public let simulated: SimulatedPeripheral
    var link: SimulatedLink?
    var gatt: GATTClient?
    /// Writes without response the app made that the host has not yet handed to the controller
    /// (CBPeripheral+WriteWithoutResponse.swift).
    var pendingWritesWithoutResponse = 0
    /// The options of a `connect` made while the link was `.disconnecting`: the system connects
    /// once the disconnection completes (CBCentralManager.connect).
    var connectAfterDisconnect: [String: Any]??
    /// A `connect` whose `CBConnectPeripheralOptionStartDelayKey` has not yet run out
    /// (CBCentralManager.startConnecting).
    var delayedConnect: Scheduler.EventID?

    init(replay: CBReplay, simulated: SimulatedPeripheral) {
        self.replay = replay
        self.simulated = simulated
        name = simulated.model.name ?? simulated.model.advertising.localName
        super.init(identifier: CBReplay.identifier(for: simulated.model))
    }

    override open var description: String {
        "<CBPeripheral: \(identifier.uuidString), name = \(name ?? "(null)"), state = \(state)>"
    }

    /// How deep the app is inside one of this peripheral's API calls (CBPeripheral+Delivery.swift).
    var appCallDepth = 0

    /// Runs `body` with the link when the manager is powered on and the peripheral connected;
    /// calls nothing otherwise (CoreBluetooth logs "API MISUSE" and drops the call; both checks,
    /// powered on first, then connected, are noted in `CBReplay.diagnostics`). While it runs,
    /// callbacks wait for the next event.
    /// `attribute`: the service, characteristic or descriptor the request is about; one the
    /// disconnection (or a Service Changed) invalidated is dropped (CBPeripheral+Invalidation.swift).
    func connected(_ api: String = #function, attribute: CBAttribute? = nil, _ body: (SimulatedLink, GATTClient) -> Void) {
        guard replay.admits("CBPeripheral \(api)") else { return }
        if let manager = replay.activeManager, !replay.isPoweredOn(manager, "CBPeripheral \(api)") { return }
        guard state == .connected, let link, link.isUp, let gatt else {
            replay.notConnected(self, "CBPeripheral \(api)")
            return
        }
        if let attribute, !isCurrent(attribute) {
            replay.invalidated(attribute, of: self, "CBPeripheral \(api)")
            return
        }
        appCallDepth += 1
        defer { appCallDepth -= 1 }
        body(link, gatt)
    }

    func error(_ f: GATTFailure) -> any Error {
        switch f {
        case .att(let code, _): return CBATTError(rawATTError: code.rawValue)
        case .timeout: return CBError(.connectionTimeout)
        case .disconnected:
            let reason = link?.endReason
            return CBError(reason.flatMap { replay.mappedError(for: $0, cancelledByApp: link?.centralRequestedDisconnect ?? false) } ?? .notConnected,
                           hciReason: reason?.rawValue)
        case .invalid: return CBError(.invalidParameters)
        case .security(let failure, let code, _): return Self.securityError(failure, refusal: code)
        }
    }

    // MARK: Discovery

    open func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        connected { link, gatt in
            gatt.discoverPrimaryServices { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let found):
                        // A filtered discovery adds to what earlier discoveries found, as iOS
                        // does: the services already in `peripheral.services` stay where they
                        // are (the same objects) and the newly found ones are appended in the
                        // order discovered, not sorted into handle order.
                        let wanted = serviceUUIDs.map { Set($0.map(\.bluetoothUUID)) }
                        var list = services ?? []
                        for s in found where !Self.systemServices.contains(s.uuid) && (wanted?.contains(s.uuid) ?? true)
                            && !list.contains(where: { $0.range == s }) {
                            list.append(CBService(s, peripheral: self))
                        }
                        services = list
                        d.peripheral(self, didDiscoverServices: nil)
                    case .failure(let f):
                        // Apple, `CBPeripheral.services`: "if there was an error in doing so,
                        // the value of this property is nil" (also after an earlier success).
                        services = nil
                        d.peripheral(self, didDiscoverServices: error(f))
                    }
                }
            }
        }
    }

    open func discoverIncludedServices(_ includedServiceUUIDs: [CBUUID]?, for service: CBService) {
        connected(attribute: service) { link, gatt in
            gatt.discoverIncludedServices(of: service.range) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let found):
                        let wanted = includedServiceUUIDs.map { Set($0.map(\.bluetoothUUID)) }
                        let existing = service.includedServices ?? []
                        service.includedServices = found.filter { wanted == nil || wanted!.contains($0.uuid) }
                            .map { s in existing.first { $0.range == s } ?? CBService(s, peripheral: self, isPrimary: false) }
                        d.peripheral(self, didDiscoverIncludedServicesFor: service, error: nil)
                    case .failure(let f):
                        d.peripheral(self, didDiscoverIncludedServicesFor: service, error: error(f))
                    }
                }
            }
        }
    }

    open func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        connected(attribute: service) { link, gatt in
            gatt.discoverCharacteristics(of: service.range) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let found):
                        // As for services: a filtered discovery adds to the characteristics
                        // already discovered, it does not replace them (handle order kept).
                        let wanted = characteristicUUIDs.map { Set($0.map(\.bluetoothUUID)) }
                        let existing = service.characteristics ?? []
                        service.characteristics = found.compactMap { c in
                            if let known = existing.first(where: { $0.gatt.valueHandle == c.valueHandle }) { return known }
                            return wanted == nil || wanted!.contains(c.uuid) ? CBCharacteristic(c, service: service) : nil
                        }
                        d.peripheral(self, didDiscoverCharacteristicsFor: service, error: nil)
                    case .failure(let f):
                        d.peripheral(self, didDiscoverCharacteristicsFor: service, error: error(f))
                    }
                }
            }
        }
    }

    open func discoverDescriptors(for characteristic: CBCharacteristic) {
        connected(attribute: characteristic) { link, gatt in
            gatt.discoverDescriptors(of: characteristic.gatt) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let found):
                        // As for services and characteristics: what was already discovered keeps its object.
                        let existing = characteristic.descriptors ?? []
                        characteristic.descriptors = found.map { d in
                            existing.first { $0.handle == d.handle } ?? CBDescriptor(d, characteristic: characteristic)
                        }
                        d.peripheral(self, didDiscoverDescriptorsFor: characteristic, error: nil)
                    case .failure(let f):
                        d.peripheral(self, didDiscoverDescriptorsFor: characteristic, error: error(f))
                    }
                }
            }
        }
    }

    // MARK: Values

    open func readValue(for characteristic: CBCharacteristic) {
        connected(attribute: characteristic) { link, gatt in
            gatt.read(characteristic.gatt.valueHandle) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let bytes):
                        characteristic.value = Data(bytes)
                        d.peripheral(self, didUpdateValueFor: characteristic, error: nil)
                    case .failure(let f):
                        d.peripheral(self, didUpdateValueFor: characteristic, error: error(f))
                    }
                }
            }
        }
    }

    open func readValue(for descriptor: CBDescriptor) {
        connected(attribute: descriptor) { link, gatt in
            gatt.read(descriptor.handle) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(let bytes):
                        descriptor.setValue(bytes)
                        d.peripheral(self, didUpdateValueFor: descriptor, error: nil)
                    case .failure(let f):
                        d.peripheral(self, didUpdateValueFor: descriptor, error: error(f))
                    }
                }
            }
        }
    }

    /// Write with response: `peripheral(_:didWriteValueFor:error:)` when answered. Without
    /// response: no callback; it is flow-controlled as on iOS (CBPeripheral+WriteWithoutResponse.swift):
    /// `canSendWriteWithoutResponse` is false until the write has been handed to the controller,
    /// then `peripheralIsReady(toSendWriteWithoutResponse:)` follows. A write without response to a
    /// characteristic without the Write Without Response property is not sent (iOS logs a warning).
    open func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        connected(attribute: characteristic) { link, gatt in
            if type == .withoutResponse {
                writeWithoutResponse(data, for: characteristic, link: link, gatt: gatt)
                return
            }
            gatt.write(characteristic.gatt.valueHandle, Array(data), withResponse: true) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success: d.peripheral(self, didWriteValueFor: characteristic, error: nil)
                    case .failure(let f): d.peripheral(self, didWriteValueFor: characteristic, error: error(f))
                    }
                }
            }
        }
    }

    /// Writes a descriptor. A Client Characteristic Configuration descriptor (2902) cannot be
    /// written this way: iOS raises an Objective-C exception (the app crashes, Docs/replay.md
    /// "CCCD writes"); here it is a precondition failure with the same message.
    open func writeValue(_ data: Data, for descriptor: CBDescriptor) {
        precondition(descriptor.uuid.bluetoothUUID != BluetoothUUID(uint16: 0x2902),
                     "Client Characteristic Configuration descriptors must be configured using setNotifyValue:forCharacteristic:")
        connected(attribute: descriptor) { link, gatt in
            gatt.write(descriptor.handle, Array(data), withResponse: true) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success:
                        descriptor.setValue(Array(data))
                        d.peripheral(self, didWriteValueFor: descriptor, error: nil)
                    case .failure(let f): d.peripheral(self, didWriteValueFor: descriptor, error: error(f))
                    }
                }
            }
        }
    }

    /// The largest value one write carries, as iOS reports it: 512 with response (the longest
    /// attribute value, Core v5.4 Vol 3 Part F 3.2.9: longer than MTU - 3 goes as a long write,
    /// Prepare Write + Execute Write); without response ATT MTU - 3 (Write Command, Vol 3 Part F
    /// 3.4.5.3), capped at the same 512, as iOS caps it.
    open func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        switch type {
        case .withResponse: GATTClient.maximumAttributeValueLength
        case .withoutResponse: min(GATTClient.maximumAttributeValueLength, max(20, (link?.mtu ?? 23) - 3))
        }
    }

    /// Whether a write without response would be taken now: false from each such write until
    /// the system has handed it to the controller (Apple: "If this value is false, flushing all
    /// current writes sets the value to true. This also results in a call to the delegate's
    /// peripheralIsReady(toSendWriteWithoutResponse:)").
    public var canSendWriteWithoutResponse: Bool {
        guard state == .connected, let link, link.isUp else { return false }
        return pendingWritesWithoutResponse == 0
    }

    /// Writes the Client Characteristic Configuration descriptor (discovering it first when
    /// needed, as CoreBluetooth does): notifications when the characteristic has them, else
    /// indications. A characteristic with neither property is refused by the system itself, after
    /// the call and with nothing sent: CBATTError requestNotSupported (6), as iOS answers it
    /// (Docs/replay.md "How iOS behaves", "Notifications"); one with the property but no CCCD
    /// gives attributeNotFound (10).
    open func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        connected(attribute: characteristic) { link, gatt in
            let props = characteristic.properties
            guard props.contains(.notify) || props.contains(.indicate) else {
                deliver(on: link) { [self] d in
                    d.peripheral(self, didUpdateNotificationStateFor: characteristic, error: CBATTError(.requestNotSupported))
                }
                return
            }
            let value: [UInt8] = !enabled ? [0, 0] : (props.contains(.notify) || !props.contains(.indicate) ? [1, 0] : [2, 0])
            let cccdUUID = BluetoothUUID(uint16: 0x2902)
            let known = characteristic.descriptors?.first(where: { $0.uuid.bluetoothUUID == cccdUUID })?.handle
            // One command: finding the CCCD (when not yet discovered) and writing it, before the
            // requests the app makes after this call (CoreBluetooth runs its commands in order).
            gatt.configureClientCharacteristic(of: characteristic.gatt, cccd: known, value: value) { [self] r in
                deliver(r, on: link) { [self] d in
                    switch r {
                    case .success(true):
                        characteristic.isNotifying = enabled
                        d.peripheral(self, didUpdateNotificationStateFor: characteristic, error: nil)
                    case .success(false):
                        d.peripheral(self, didUpdateNotificationStateFor: characteristic, error: CBATTError(.attributeNotFound))
                    case .failure(let f):
                        // The discovery or the write failed (an error answer, the link going).
                        d.peripheral(self, didUpdateNotificationStateFor: characteristic, error: error(f))
                    }
                }
            }
        }
    }

    /// `openL2CAPChannel(_:)`: L2CAP LE credit-based channels are not simulated (Docs/replay.md
    /// "Not modelled"); the delegate hears `peripheral(_:didOpen:error:)` with no channel and
    /// CBError.operationNotSupported, after the call, so code that opens channels runs and
    /// takes its failure path.
    open func openL2CAPChannel(_ PSM: CBL2CAPPSM) {
        connected { link, _ in
            deliver(on: link) { [self] d in d.peripheral(self, didOpen: nil, error: CBError(.operationNotSupported)) }
        }
    }

    open func readRSSI() {
        connected { link, _ in
            replay.world.scheduler.schedule(after: link.parameters.interval) { [self] in
                deliver(on: link) { [self] d in
                    d.peripheral(self, didReadRSSI: NSNumber(value: Int(simulated.model.advertising.rssi)), error: nil)
                }
            }
        }
    }

    /// A notification or indication arrived for this peripheral: for the discovered characteristic
    /// with that value handle, in `services` or in a service they include (a secondary service's
    /// characteristic is reachable only through `includedServices`).
    func received(_ pdu: [UInt8], on link: SimulatedLink) {
        guard let p = try? ATTPDU(decoding: pdu[...]), let handle = p.attributeHandle, let value = p.value else { return }
        if pdu.first == 0x1D, isServiceChanged(handle) {
            serviceChanged(value, on: link)
            return
        }
        for s in discoveredServices {
            for c in s.characteristics ?? [] where c.gatt.valueHandle == handle {
                c.value = Data(value)
                deliver(on: link) { [self] d in d.peripheral(self, didUpdateValueFor: c, error: nil) }
                return
            }
        }
    }

    // MARK: Service Changed

    /// Whether `handle` is the value of a Service Changed characteristic (2A05) in the recorded
    /// database or in what the app discovered.
    func isServiceChanged(_ handle: UInt16) -> Bool {
        let uuid = BluetoothUUID(uint16: 0x2A05)
        if simulated.model.gatt.characteristics.contains(where: { $0.uuid == uuid && $0.valueHandle == handle }) { return true }
        return (services ?? []).contains { s in
            (s.characteristics ?? []).contains { $0.gatt.valueHandle == handle && $0.gatt.uuid == uuid }
        }
    }

    /// A Service Changed indication (Core v5.4 Vol 3 Part G 7.1: the value is the affected
    /// start and end handles, little-endian), handled as iOS does: the system consumes it (the
    /// app hears no `didUpdateValueFor`), every discovered service whose handle range overlaps
    /// the affected range is invalidated (removed from `services`), and the delegate hears
    /// `peripheral(_:didModifyServices:)` with them; the app rediscovers.
    func serviceChanged(_ value: [UInt8], on link: SimulatedLink) {
        guard value.count >= 4 else { return }
        let start = UInt16(value[0]) | UInt16(value[1]) << 8
        let end = UInt16(value[2]) | UInt16(value[3]) << 8
        let invalidated = (services ?? []).filter { $0.range.startHandle <= end && $0.range.endHandle >= start }
        if !invalidated.isEmpty {
            services = services?.filter { s in !invalidated.contains { $0 === s } }
            for s in invalidated { for c in s.characteristics ?? [] { c.isNotifying = false } }
        }
        deliver(on: link) { [self] d in d.peripheral(self, didModifyServices: invalidated) }
    }
}
