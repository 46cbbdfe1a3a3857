import BLECore
import BLEDecode
import BLEReplay

/// How a peripheral's delegate callbacks reach the app: never inside the app's own call.
///
/// iOS answers every `CBPeripheral` request through the delegate, later, on the manager's queue;
/// even a request refused at once (a value too long, an unknown handle) is answered after the
/// call has returned. The simulated GATT client may complete synchronously (it refuses before
/// sending anything), so a callback that would run while the app is still inside one of this
/// peripheral's calls is moved to the next event at the same virtual instant.
extension CBPeripheral {
    /// iOS keeps these to itself (Apple Accessory Design Guidelines, "GATT Server": the Generic
    /// Access (1800) and Generic Attribute (1801) services are filtered out of discovered services).
    static let systemServices: Set<BluetoothUUID> = [BluetoothUUID(uint16: 0x1800), BluetoothUUID(uint16: 0x1801)]

    /// Delivers the callback of a request that ended with `result`, unless the request never
    /// could be sent because its link is going away: after an ATT timeout on the fixed channel
    /// (Core v5.4 Vol 3 Part F 3.3.3) the bearer is closed and the host ends the link, so the
    /// requests queued behind the timed-out one, or made before the link is down, fail as
    /// `.disconnected`. Like every request pending when a link goes (dropped by `deliver(on:)`),
    /// they get no callback: the app hears `didDisconnectPeripheral` (Apple's CoreBluetooth
    /// engineers: a write cut by a disconnection gives just the disconnect callback), never
    /// CBError.notConnected while the peripheral still reads `.connected`.
    func deliver<T>(_ result: Result<T, GATTFailure>, on link: SimulatedLink, _ body: @escaping (any CBPeripheralDelegate) -> Void) {
        if case .failure(.disconnected) = result, !link.isUp || (link.attTimedOut && replay.world.configuration.disconnectOnATTTimeout) {
            return
        }
        deliver(on: link, body)
    }

    /// Delivers a callback if the link it concerns is still this peripheral's.
    func deliver(on link: SimulatedLink, _ body: @escaping (any CBPeripheralDelegate) -> Void) {
        if appCallDepth > 0 {
            replay.world.scheduler.schedule(after: 0) { [self] in deliver(on: link, body) }
            return
        }
        guard self.link === link, let delegate else { return }
        replay.callApp(replay.activeManager) { body(delegate) }
    }
}

extension CBPeripheral {
    /// The link is gone: as on iOS, every service, characteristic and descriptor object of it is
    /// invalid (`services` is nil until the app discovers again on the next connection), and no
    /// characteristic is notifying (those of included services neither); no write without
    /// response is pending any more.
    func invalidateAttributes() {
        pendingWritesWithoutResponse = 0
        for s in discoveredServices {
            for c in s.characteristics ?? [] { c.isNotifying = false }
        }
        services = nil
    }
}

extension CBPeripheral {
    /// What the app hears when the system's pairing, started by a refusal with ATT error
    /// `refusal`, failed (Docs/replay.md "Security"): the peer that lost its keys (Encryption
    /// Change 0x06 PIN or Key Missing) gives CBError.peerRemovedPairingInformation (iOS 13.4 and
    /// later); an encryption that never completed (0x08, 0x22 timeouts) CBError.encryptionTimedOut;
    /// a failed or refused pairing, or one the recording never shows, the refusal itself
    /// (CBATTError 5, 12 or 15), as iOS reports a cancelled or failed pairing.
    static func securityError(_ failure: SecurityFailure, refusal: ATTErrorCode) -> any Error {
        switch failure {
        case .encryptionFailed(0x06): return CBError(.peerRemovedPairingInformation, hciReason: 0x06)
        case .encryptionFailed(let s) where s == 0x08 || s == 0x22: return CBError(.encryptionTimedOut, hciReason: s)
        case .encryptionFailed, .pairingFailed, .notRecorded: return CBATTError(rawATTError: refusal.rawValue)
        }
    }
}
