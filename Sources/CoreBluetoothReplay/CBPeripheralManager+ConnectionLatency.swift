import BLECore
import BLEReplay
import Foundation

/// The connection interval the system asks the central for on
/// `setDesiredConnectionLatency(_:for:)` (Docs/peripheral.md "Connection latency").
///
/// Apple documents the classes in words only: `.low` "prioritizes rapid communication over
/// battery life", `.medium` "balances communication frequency and battery life", `.high`
/// "prioritizes extending battery life over rapid communication"
/// (https://developer.apple.com/documentation/corebluetooth/cbperipheralmanagerconnectionlatency).
/// No published measurement of what an iPhone sends for each class was found (Apple's
/// documentation and developer forums, Stack Overflow, GitHub issues and Open Radar were searched),
/// so these figures are neither Apple's nor observed ones: they are the replay's assumption,
/// chosen where the sources that do give numbers agree:
/// - Apple's Accessory Design Guidelines, the rules an iOS central applies to a peripheral's
///   request (quoted in developer.apple.com/forums/thread/773555 and Nordic DevZone): Interval Min
///   ≥ 15 ms and a multiple of 15 ms; Min = Max = 15 ms may be scaled to 30 ms.
/// - Android's three connection priorities, the nearest documented counterpart (AOSP, as Nordic's
///   Android-BLE-Library `ConnectionPriorityRequest` quotes them): high 11.25–15 ms, balanced
///   30–50 ms, low power 100–125 ms.
/// - iPhones as centrals mostly run links at 30 ms (`ConnectionParameters.typical`).
///
/// So `.low` 15 ms, `.medium` 30 ms, `.high` 120 ms: each a multiple of 15 ms inside Android's
/// range for the same class. The request keeps the link's peripheral latency and supervision
/// timeout (what iOS puts there is not known either).
extension CBPeripheralManagerConnectionLatency {
    /// In µs.
    var connectionInterval: Int64 {
        switch self {
        case .low: 15_000
        case .medium: 30_000
        case .high: 120_000
        }
    }
}

/// The system's side of `setDesiredConnectionLatency(_:for:)` on one link, on the virtual clock:
///
/// 1. now: the local host sends an L2CAP Connection Parameter Update Request on the LE signalling
///    channel (CID 0x0005; Core v5.4 Vol 3 Part A 4.20) for the class's interval (Interval Min =
///    Max), the link's peripheral latency and supervision timeout;
/// 2. at the next connection event it goes on air (Number Of Completed Packets);
/// 3. at the connection event after that the central answers (Connection Parameter Update
///    Response, 4.21): accepted (result 0x0000), unless its recording shows it refusing a
///    parameter update (an LE Connection Update Complete with a non-zero status, Vol 4 Part E
///    7.7.65.3): rejected (0x0001), and nothing changes. Accepting, its controller sends the
///    update with the instant 6 connection events on (connEventCounter + 6, Vol 6 Part B 5.1.1);
/// 4. at the instant the link moves to the new interval (LE Connection Update Complete), and its
///    connection events, so the buffer returns that pace `updateValue` and
///    `peripheralManagerIsReady(toUpdateSubscribers:)`, follow it. A recorded update of the
///    central's own that came between its answer and the instant took the link first: the
///    app's is dropped. Recorded updates after the instant keep their recorded times (they
///    are replayed as always) and win from then on.
///
/// One procedure at a time per link (Vol 3 Part A 4.20; Vol 6 Part B 5.1.1): a call while one
/// is under way is kept (the latest) and asked for when it ends. A call for the interval the
/// link already has sends nothing. The request takes no LE ACL buffer of the host's model.
extension CBPeripheralLinkState {
    func requestConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency) {
        guard !parameterUpdateUnderWay else {
            queuedLatency = latency
            return
        }
        guard let link = server.link, link.isUp, let world = manager.replay?.world else { return }
        let current = link.parameters
        let wanted = ConnectionParameters(interval: latency.connectionInterval, latency: current.latency,
                                          supervisionTimeout: current.supervisionTimeout)
        guard wanted.interval != current.interval else { return }
        parameterUpdateUnderWay = true
        signalIdentifier = signalIdentifier == 0xFF ? 1 : signalIdentifier + 1   // 0x00 is never used (Vol 3 Part A 4)
        let id = signalIdentifier
        let interval = UInt16(clamping: wanted.interval / 1_250), timeout = UInt16(clamping: wanted.supervisionTimeout / 10_000)
        let le16 = Self.le16
        trace([0x12, id] + le16(8) + le16(interval) + le16(interval) + le16(UInt16(clamping: wanted.latency)) + le16(timeout),
              on: link, sent: true, world: world)
        world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [weak self] in
            guard let self, link.isUp else { return }
            world.trace.event(HCIPacketBuilder.numberOfCompletedPackets(handle: link.handle, count: 1), at: world.now, controller: link.controller)
            world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [weak self] in
                guard let self, link.isUp else { return }
                let refused = recordedRefusal(on: link)
                trace([0x13, id] + le16(2) + le16(refused ? 1 : 0), on: link, sent: false, world: world)
                guard !refused else { return parameterUpdateEnded() }
                let decided = link.parameters
                world.scheduler.schedule(after: decided.interval.saturatingMultiplied(by: 6)) { [weak self] in
                    guard let self, link.isUp else { return }
                    if link.parameters == decided { world.host.updateParameters(link, wanted) }
                    parameterUpdateEnded()
                }
            }
        }
    }

    /// The procedure ended: a class asked for meanwhile goes next.
    private func parameterUpdateEnded() {
        parameterUpdateUnderWay = false
        if let next = queuedLatency {
            queuedLatency = nil
            requestConnectionLatency(next)
        }
    }

    /// Whether the recorded central this link replays refused a parameter update in its recording
    /// (an LE Connection Update Complete with a non-zero status: 0x3B Unacceptable Connection
    /// Parameters, 0x1A, ...): then it refuses the app's too. A central script, or a recording
    /// with no refusal, accepts.
    private func recordedRefusal(on link: SimulatedLink) -> Bool {
        guard let id = link.behaviourConnectionID,
              let behaviour = link.peripheral.model.behaviours.first(where: { $0.connectionID == id }) else { return false }
        return behaviour.linkEvents.contains { if case .refusedConnectionUpdate = $0 { true } else { false } }
    }

    /// One L2CAP LE signalling command on `link` in the trace: sent by the local host, or received from the central.
    private func trace(_ command: [UInt8], on link: SimulatedLink, sent: Bool, world: ReplayWorld) {
        let size = sent ? world.configuration.aclBufferSize : 27
        for f in HCIPacketBuilder.aclFragments(handle: link.handle, channel: 0x0005, payload: command, fragmentSize: size, fromHost: sent) {
            world.trace.append(f, kind: .acl, direction: sent ? .sent : .received, at: world.now, controller: link.controller)
        }
    }
}
