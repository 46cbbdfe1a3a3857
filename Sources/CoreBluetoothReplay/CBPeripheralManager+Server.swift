import BLECore
import BLEDecode
import BLEReplay
import Foundation

/// The app's GATT server on one link, as iOS runs it (Docs/peripheral.md, each rule with its
/// source): the system answers the MTU exchange, discovery, cached values, CCCDs and the prepare
/// queue; the app hears reads and writes of dynamic values and answers with
/// `respond(to:withResult:)`; a CBATTError result becomes an ATT Error Response (Core v5.4 Vol 3
/// Part F 3.4.1.1).
final class CBPeripheralLinkState {
    let server: LocalServerLink
    let central: CBCentral
    unowned var manager: CBPeripheralManager
    /// Per characteristic (by object, so a handle that moves or is reused cannot carry a
    /// subscription over): its Client Characteristic Configuration (bit 0 notify, bit 1 indicate).
    var subscriptions: [ObjectIdentifier: UInt16] = [:]
    var serviceChangedConfiguration: UInt16 = 0
    var pendingRead: (request: CBATTRequest, opcode: ATTOpcode, handle: UInt16)?
    var pendingWrite: (requests: [CBATTRequest], opcode: ATTOpcode, handle: UInt16)?
    /// The prepare queue (Core v5.4 Vol 3 Part F 3.4.6.1), held by the system until Execute Write.
    var prepared: [(handle: UInt16, offset: Int, part: [UInt8])] = []
    var unconfirmedIndications = 0
    /// The indication awaiting its Handle Value Confirmation: its 30 s transaction timer
    /// (Core v5.4 Vol 3 Part F 3.3.3), `indicationTimedOut` when it runs out.
    var indicationTimer: Scheduler.EventID?
    /// An indication went unconfirmed for 30 s: the transaction failed and nothing more may be
    /// sent on the bearer (3.3.3), so no update goes to this central again.
    var bearerTimedOut = false
    /// The ATT transaction timeout, 30 s (Core v5.4 Vol 3 Part F 3.3.3).
    static let transactionTimeout: Int64 = 30_000_000
    /// Service Changed ranges the system holds until the indication before them is confirmed.
    var pendingServiceChanged: [ClosedRange<UInt16>] = []
    var emulator: GATTServerEmulator
    /// `setDesiredConnectionLatency(_:for:)` on this link (CBPeripheralManager+ConnectionLatency.swift):
    /// a parameter update under way, the class asked for while it was (the latest), and the
    /// identifier of the last L2CAP signalling request.
    var parameterUpdateUnderWay = false
    var queuedLatency: CBPeripheralManagerConnectionLatency?
    var signalIdentifier: UInt8 = 0

    init(server: LocalServerLink, central: CBCentral, manager: CBPeripheralManager) {
        self.server = server
        self.central = central
        self.manager = manager
        emulator = GATTServerEmulator(database: manager.database.gatt, serverRxMTU: Self.serverRxMTU(server.recorded))
    }

    /// The Server Rx MTU the system offers: the recorded phone's answer when the recording
    /// shows one (the app has no say in it), else 185, what recent iPhones offer.
    static func serverRxMTU(_ recorded: RemoteCentralModel?) -> UInt16 {
        guard let r = recorded?.exchanges.first(where: { $0.request.first == ATTOpcode.exchangeMTURequest.rawValue })?.response,
              r.count >= 3, r[0] == ATTOpcode.exchangeMTUResponse.rawValue else { return 185 }
        return UInt16(r[1]) | UInt16(r[2]) << 8
    }

    var database: CBLocalDatabase { manager.database }

    func deliver(_ body: @escaping (any CBPeripheralManagerDelegate) -> Void) {
        guard let replay = manager.replay, !manager.detached, let d = manager.delegate else { return }
        replay.callApp(manager) { body(d) }
    }

    static func error(_ op: ATTOpcode, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [ATTOpcode.errorResponse.rawValue, op.rawValue, UInt8(handle & 0xFF), UInt8(handle >> 8), code]
    }

    // MARK: Requests

    /// A request or command from the central.
    func received(_ pdu: [UInt8]) {
        let op = ATTOpcode(pdu[0])
        guard let decoded = try? ATTPDU(decoding: pdu[...]) else {
            if op.kind == .request { server.respond(Self.error(op, 0, 0x04)) }   // Invalid PDU
            return
        }
        emulator.database = database.gatt
        switch decoded {
        case .exchangeMTURequest, .readByGroupTypeRequest, .findByTypeValueRequest, .findInformationRequest, .readByTypeRequest:
            server.respond(emulator.answer(pdu))
        case .readRequest(let r):
            read(r.attributeHandle, offset: 0, op: op, pdu: pdu)
        case .readBlobRequest(let r):
            read(r.attributeHandle, offset: Int(r.valueOffset), op: op, pdu: pdu)
        case .writeRequest(let r):
            write(r.attributeHandle, r.attributeValue, op: op)
        case .writeCommand(let r):
            write(r.attributeHandle, r.attributeValue, op: op)
        case .prepareWriteRequest(let r):
            prepare(r, pdu: pdu)
        case .executeWriteRequest(let r):
            execute(flags: r.flags)
        default:
            if op.kind == .request { server.respond(Self.error(op, decoded.attributeHandle ?? 0, 0x06)) }   // Request Not Supported
        }
    }

    /// A Read (offset 0) or Read Blob Response of `value` from `offset`, cut at the MTU.
    func readResponse(_ value: [UInt8], offset: Int, op: ATTOpcode, handle: UInt16) -> [UInt8] {
        guard offset <= value.count else { return Self.error(op, handle, 0x07) }   // Invalid Offset
        let code = op == .readRequest ? ATTOpcode.readResponse : ATTOpcode.readBlobResponse
        return [code.rawValue] + value[offset...].prefix(server.mtu - 1)
    }

    func read(_ handle: UInt16, offset: Int, op: ATTOpcode, pdu: [UInt8]) {
        switch database.attribute(at: handle) {
        case nil:
            server.respond(Self.error(op, handle, 0x01))   // Invalid Handle
        case .cccd(let c)?:
            let cfg = c.map { subscriptions[ObjectIdentifier($0)] ?? 0 } ?? serviceChangedConfiguration
            server.respond(readResponse([UInt8(cfg & 0xFF), UInt8(cfg >> 8)], offset: offset, op: op, handle: handle))
        case .descriptor(let d)?:
            server.respond(readResponse(d.bytes, offset: offset, op: op, handle: handle))
        case .value(let c)?:
            if let cached = c.cachedValue {
                // A cached value: the system answers, the app never hears of it.
                server.respond(secured(c, .readEncryptionRequired)
                    ? readResponse(Array(cached), offset: offset, op: op, handle: handle)
                    : Self.error(op, handle, Self.insufficientAuthentication))
            } else if !c.properties.contains(.read) || c.permissions.isDisjoint(with: [.readable, .readEncryptionRequired]) {
                server.respond(Self.error(op, handle, 0x02))   // Read Not Permitted
            } else if !secured(c, .readEncryptionRequired) {
                server.respond(Self.error(op, handle, Self.insufficientAuthentication))
            } else {
                let request = CBATTRequest(central: central, characteristic: c, offset: offset, value: nil)
                pendingRead = (request, op, handle)
                deliver { [manager] d in d.peripheralManager(manager, didReceiveRead: request) }
            }
        case .system?:
            // A value of the system's own characteristics is readable only as declared: Service
            // Changed's (2A05, Indicate only) is not ("Not Readable, Not Writable", Core v5.4
            // Vol 3 Part G 7.1), so a read of it is Read Not Permitted, as for the app's.
            if let c = database.gatt.characteristics.first(where: { $0.valueHandle == handle }), c.properties & 0x02 == 0 {
                server.respond(Self.error(op, handle, 0x02))
            } else {
                server.respond(emulator.answer(pdu))
            }
        case .service?, .include?, .declaration?:
            server.respond(emulator.answer(pdu))
        }
    }

    /// ATT's Insufficient Authentication (Core v5.4 Vol 3 Part F 3.4.1.1), what the system answers
    /// a request for a value that needs encryption on a link that is not encrypted.
    static let insufficientAuthentication: UInt8 = 0x05

    /// Whether the link's security lets the central at `c`'s value: true unless `c` has
    /// `permission` (`.readEncryptionRequired`, `.writeEncryptionRequired`: "only trusted devices
    /// can read / write the attribute's value", Apple, `CBAttributePermissions`) and the link is
    /// not encrypted. The system refuses such a request itself, with Insufficient Authentication
    /// (0x05), which a central answers by pairing and asking again, and the app never hears it. The
    /// replay does not run the pairing: the link counts as encrypted once the recorded central has
    /// come past its recording's Encryption Change (`LocalServerLink.isEncrypted`).
    func secured(_ c: CBMutableCharacteristic, _ permission: CBAttributePermissions) -> Bool {
        !c.permissions.contains(permission) || server.isEncrypted
    }

    /// Whether the link's security lets the central turn on what `cfg` asks of `c`'s CCCD (bit 0
    /// notifications, bit 1 indications, Core v5.4 Vol 3 Part G 3.3.3.3): false when it asks for
    /// notifications of a `.notifyEncryptionRequired` characteristic or indications of an
    /// `.indicateEncryptionRequired` one ("only trusted devices can enable notifications /
    /// indications of the characteristic's value", Apple, `CBCharacteristicProperties`) and the
    /// link is not encrypted. The system then refuses the write itself, with Insufficient
    /// Authentication as for a read of a `.readEncryptionRequired` value (`secured(_:_:)`), and
    /// the app hears no `didSubscribeTo`. Turning them off (0x0000) needs no trust.
    func subscriptionSecured(_ c: CBMutableCharacteristic, _ cfg: UInt16) -> Bool {
        if server.isEncrypted { return true }
        let trusted = (cfg & 0x0001 != 0 && c.properties.contains(.notifyEncryptionRequired))
            || (cfg & 0x0002 != 0 && c.properties.contains(.indicateEncryptionRequired))
        return !trusted
    }

    func writable(_ c: CBMutableCharacteristic, command: Bool) -> Bool {
        c.cachedValue == nil && c.properties.contains(command ? .writeWithoutResponse : .write)
            && !c.permissions.isDisjoint(with: [.writeable, .writeEncryptionRequired])
    }

    func write(_ handle: UInt16, _ value: [UInt8], op: ATTOpcode) {
        let withResponse = op == .writeRequest
        switch database.attribute(at: handle) {
        case .cccd(let c)?:
            guard value.count == 2 else {
                if withResponse { server.respond(Self.error(op, handle, 0x0D)) }   // Invalid Attribute Value Length
                return
            }
            let cfg = UInt16(value[0]) | UInt16(value[1]) << 8
            if let c, !subscriptionSecured(c, cfg) {
                // Refused as a read of a `.readEncryptionRequired` value is: no subscription, no call.
                if withResponse { server.respond(Self.error(op, handle, Self.insufficientAuthentication)) }
                return
            }
            // The system answers, then tells the app (Docs/peripheral.md "Subscriptions"): what
            // the app sends from didSubscribeTo follows the Write Response (LocalServerLink.Outgoing).
            if withResponse { server.respond([ATTOpcode.writeResponse.rawValue]) }
            if let c { configure(c, cfg) } else { serviceChangedConfiguration = cfg }
        case .value(let c)? where writable(c, command: !withResponse) && !secured(c, .writeEncryptionRequired):
            // A command is dropped: there is no answer to refuse it with.
            if withResponse { server.respond(Self.error(op, handle, Self.insufficientAuthentication)) }
        case .value(let c)? where writable(c, command: !withResponse):
            let request = CBATTRequest(central: central, characteristic: c, offset: 0, value: Data(value))
            if withResponse { pendingWrite = ([request], op, handle) }
            deliver { [manager] d in d.peripheralManager(manager, didReceiveWrite: [request]) }
        case nil:
            if withResponse { server.respond(Self.error(op, handle, 0x01)) }
        default:
            if withResponse { server.respond(Self.error(op, handle, 0x03)) }   // Write Not Permitted
        }
    }

    /// The system's CCCD: a change of subscription is the app's didSubscribeTo / didUnsubscribeFrom.
    func configure(_ c: CBMutableCharacteristic, _ cfg: UInt16) {
        let was = subscriptions[ObjectIdentifier(c)]
        if cfg & 0x0003 != 0 {
            subscriptions[ObjectIdentifier(c)] = cfg
            guard was == nil else { return }
            c.subscribedCentrals = (c.subscribedCentrals ?? []) + [central]
            deliver { [manager, central] d in d.peripheralManager(manager, central: central, didSubscribeTo: c) }
        } else if was != nil {
            unsubscribe(c)
        }
    }

    func unsubscribe(_ c: CBMutableCharacteristic) {
        subscriptions[ObjectIdentifier(c)] = nil
        c.subscribedCentrals = (c.subscribedCentrals ?? []).filter { $0 !== central }
        deliver { [manager, central] d in d.peripheralManager(manager, central: central, didUnsubscribeFrom: c) }
    }

    func prepare(_ r: ATTPrepareWriteRequest, pdu: [UInt8]) {
        guard case .value(let c)? = database.attribute(at: r.attributeHandle), writable(c, command: false) else {
            let code: UInt8 = database.attribute(at: r.attributeHandle) == nil ? 0x01 : 0x03
            server.respond(Self.error(.prepareWriteRequest, r.attributeHandle, code))
            return
        }
        guard secured(c, .writeEncryptionRequired) else {
            server.respond(Self.error(.prepareWriteRequest, r.attributeHandle, Self.insufficientAuthentication))
            return
        }
        prepared.append((r.attributeHandle, Int(r.valueOffset), r.partAttributeValue))
        server.respond([ATTOpcode.prepareWriteResponse.rawValue] + pdu.dropFirst())
    }

    /// Execute Write: every prepared part at once, as one `didReceiveWrite` (flags 0 cancels).
    func execute(flags: UInt8) {
        let queue = prepared
        prepared = []
        guard flags & 0x01 != 0, let first = queue.first else {
            server.respond([ATTOpcode.executeWriteResponse.rawValue])
            return
        }
        let requests = queue.compactMap { p -> CBATTRequest? in
            guard case .value(let c)? = database.attribute(at: p.handle) else { return nil }
            return CBATTRequest(central: central, characteristic: c, offset: p.offset, value: Data(p.part))
        }
        guard !requests.isEmpty else {
            // Every prepared value's characteristic was unpublished since (`remove(_:)`): there is
            // nothing to hand the app (didReceiveWrite never gets an empty array), and the handle
            // names nothing now (Invalid Handle, Core v5.4 Vol 3 Part F 3.4.6.3).
            server.respond(Self.error(.executeWriteRequest, first.handle, 0x01))
            return
        }
        pendingWrite = (requests, .executeWriteRequest, first.handle)
        deliver { [manager] d in d.peripheralManager(manager, didReceiveWrite: requests) }
    }

    // MARK: The app's answers

    /// `respond(to:withResult:)`: true when `request` was this link's pending read or the first
    /// of its pending writes.
    func answer(_ request: CBATTRequest, result: CBATTError.Code) -> Bool {
        if let p = pendingRead, p.request === request {
            pendingRead = nil
            request.answered = true
            if result == .success {
                let value = Array(request.value ?? Data())
                let code = p.opcode == .readRequest ? ATTOpcode.readResponse : ATTOpcode.readBlobResponse
                server.respond([code.rawValue] + value.prefix(server.mtu - 1))
            } else {
                server.respond(Self.error(p.opcode, p.handle, UInt8(truncatingIfNeeded: result.rawValue)))
            }
            return true
        }
        if let w = pendingWrite, w.requests.first === request {
            pendingWrite = nil
            request.answered = true
            if result == .success {
                server.respond([w.opcode == .writeRequest ? ATTOpcode.writeResponse.rawValue : ATTOpcode.executeWriteResponse.rawValue])
            } else {
                server.respond(Self.error(w.opcode, w.handle, UInt8(truncatingIfNeeded: result.rawValue)))
            }
            return true
        }
        return false
    }

    // MARK: Notifying

    /// Whether an update can go to this central now: no indication awaiting its confirmation
    /// (one outstanding at a time, Core v5.4 Vol 3 Part F 3.4.7.2), a bearer that has not timed
    /// out (3.3.3), and room in the transmit queue.
    func canSendValue() -> Bool {
        !bearerTimedOut && unconfirmedIndications == 0 && server.canSendValue()
    }

    func sendValue(_ value: [UInt8], for c: CBMutableCharacteristic) {
        let cfg = subscriptions[ObjectIdentifier(c)] ?? 0
        let h = c.valueHandle
        let body = [UInt8(h & 0xFF), UInt8(h >> 8)] + value.prefix(central.maximumUpdateValueLength)
        if cfg & 0x0001 != 0 {
            server.sendValue([ATTOpcode.handleValueNotification.rawValue] + body)
        } else if cfg & 0x0002 != 0 {
            indicate(body)
        }
    }

    /// Sends a Handle Value Indication of `body` (handle, value) and starts its 30 s transaction
    /// timer (Core v5.4 Vol 3 Part F 3.3.3); at its confirmation a Service Changed the system
    /// holds goes next, else the app hears there is room.
    func indicate(_ body: [UInt8]) {
        guard let scheduler = manager.replay?.world.scheduler, server.link?.isUp == true else { return }
        unconfirmedIndications += 1
        indicationTimer = scheduler.schedule(after: Self.transactionTimeout) { [weak self] in self?.indicationTimedOut() }
        server.sendValue([ATTOpcode.handleValueIndication.rawValue] + body) { [weak self] result in
            guard let self else { return }
            scheduler.cancel(indicationTimer)
            indicationTimer = nil
            unconfirmedIndications -= 1
            // The confirmation makes room; a link that went down does not (the central is gone),
            // nor does a confirmation after the timeout (the bearer is closed for good, 3.3.3).
            guard case .response = result, !bearerTimedOut else { return }
            sendServiceChanged()
            if unconfirmedIndications == 0 { manager.transmitQueueHasRoom() }
        }
    }

    // MARK: Service Changed

    /// The app published or unpublished services covering `range` while this central is
    /// connected: when it configured Service Changed for indications, the system indicates the
    /// affected range (Core v5.4 Vol 3 Part G 7.1: the Service Changed value is the start and end
    /// handles affected), after any indication still awaiting its confirmation (one at a time,
    /// Vol 3 Part F 3.4.7.2).
    func servicesChanged(_ range: ClosedRange<UInt16>) {
        guard serviceChangedConfiguration & 0x0002 != 0, !bearerTimedOut, server.link?.isUp == true else { return }
        pendingServiceChanged.append(range)
        sendServiceChanged()
    }

    /// Indicates the oldest Service Changed range held, when no indication is outstanding.
    func sendServiceChanged() {
        guard unconfirmedIndications == 0, !bearerTimedOut, !pendingServiceChanged.isEmpty else { return }
        let r = pendingServiceChanged.removeFirst()
        let le = Self.le16
        indicate(le(CBLocalDatabase.serviceChangedHandle) + le(r.lowerBound) + le(r.upperBound))
    }

    /// A 16-bit field as it goes on the wire (ATT and L2CAP are little-endian).
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// No Handle Value Confirmation came within 30 s of the indication: the server's transaction
    /// failed, and "no more attribute protocol requests, commands, indications or notifications
    /// shall be sent to the target device on this ATT bearer" (Core v5.4 Vol 3 Part F 3.3.3). A
    /// new bearer needs a new link, so the local host ends the link (HCI Disconnect 0x13), as
    /// Android's stack does (AOSP `gatt_indication_confirmation_timeout`: "disconnecting...");
    /// until the link is down `updateValue` returns false for this central and no
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` comes for it, and then the app hears
    /// `didUnsubscribeFrom` for each of its subscriptions, as after any link loss. Apple documents
    /// nothing about it; not checked on an iPhone (Docs/peripheral.md "Indications").
    func indicationTimedOut() {
        indicationTimer = nil
        guard let link = server.link, link.isUp, let replay = manager.replay else { return }
        bearerTimedOut = true
        replay.world.host.disconnect(link, reason: 0x13, requestedByApp: false)
    }

    /// The link is gone: every subscription ends (iOS calls didUnsubscribeFrom), pending
    /// requests are dropped.
    func linkEnded() {
        manager.replay?.world.scheduler.cancel(indicationTimer)
        indicationTimer = nil
        pendingServiceChanged = []
        pendingRead = nil
        pendingWrite = nil
        prepared = []
        for s in manager.services {
            for case let c as CBMutableCharacteristic in s.characteristics ?? [] where subscriptions[ObjectIdentifier(c)] != nil {
                unsubscribe(c)
            }
        }
        subscriptions = [:]
    }

    /// The app unpublished these services: this central's subscriptions to their characteristics
    /// end without a callback (the central did not unsubscribe; its CCCD is gone).
    func servicesRemoved(_ gone: [CBMutableService]) {
        for s in gone {
            for case let c as CBMutableCharacteristic in s.characteristics ?? [] where subscriptions.removeValue(forKey: ObjectIdentifier(c)) != nil {
                c.subscribedCentrals = (c.subscribedCentrals ?? []).filter { $0 !== central }
            }
        }
    }
}

extension CBPeripheralManager {
    /// Room in the transmit queue again: the app hears it once after a false `updateValue`.
    func transmitQueueHasRoom() {
        guard owesReady, let replay, !detached else { return }
        owesReady = false
        replay.callApp(self) { delegate?.peripheralManagerIsReady(toUpdateSubscribers: self) }
    }
}
