import BLECore
import BLEDecode

/// The ATT client bearer of a remote central that a script plays against the local GATT server
/// (`ScriptedRemoteCentral`): its PDUs go to the local host as the peer's (`CentralHost.deliver`),
/// and the local server's answers and notifications come back to it.
///
/// The rules are the client's in Core v5.4 Vol 3 Part F 3.3.2-3.3.3, as the local central's
/// bearer keeps them (`CentralHost+ATT`): one request outstanding, later ones queued; a request
/// goes out at the link's next connection event; no answer within 30 s fails the transaction and
/// closes the bearer, and the central's host then drops the link (0x13 at its next connection
/// event), as iOS, Android and BlueZ centrals do.
public final class RemoteCentralBearer: ATTClientTransport {
    unowned let world: ReplayWorld
    struct Request {
        var pdu: [UInt8]
        var transmitted: (() -> Void)?
        var completion: ((ATTResult) -> Void)?
    }
    private var outstanding: Request?
    private var queue: [Request] = []
    private var timeout: Scheduler.EventID?
    private var closed = false
    /// A notification or indication of the local server (the peer's host confirms indications).
    var onValue: ([UInt8]) -> Void = { _ in }

    init(world: ReplayWorld) {
        self.world = world
    }

    public func send(_ pdu: [UInt8], on link: SimulatedLink, transmitted: (() -> Void)?, completion: ((ATTResult) -> Void)?) {
        guard link.isUp, !pdu.isEmpty else { completion?(.disconnected); return }
        if ATTOpcode(pdu[0]).kind == .request {
            guard !closed else { completion?(.disconnected); return }
            let r = Request(pdu: pdu, transmitted: transmitted, completion: completion)
            if outstanding == nil { start(r, on: link) } else { queue.append(r) }
        } else {
            world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [self] in
                guard link.isUp else { return }
                world.host.deliver(pdu, on: link)
                transmitted?()
            }
        }
    }

    private func start(_ r: Request, on link: SimulatedLink) {
        outstanding = r
        world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [self] in
            guard link.isUp else { return }
            world.host.deliver(r.pdu, on: link)
            r.transmitted?()
            world.scheduler.cancel(timeout)
            timeout = world.scheduler.schedule(after: CentralHost.attTimeout) { [self] in timedOut(link) }
        }
    }

    private func timedOut(_ link: SimulatedLink) {
        guard link.isUp, let r = outstanding else { return }
        outstanding = nil
        timeout = nil
        closed = true
        let queued = queue
        queue = []
        r.completion?(.timeout)
        for q in queued { q.completion?(.disconnected) }
        if world.configuration.disconnectOnATTTimeout {
            world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [self] in
                world.host.peerTerminated(link, reason: HCIStatusCode(0x13))
            }
        }
    }

    /// A PDU of the local server reached the remote central.
    func received(_ pdu: [UInt8], on link: SimulatedLink) {
        guard !pdu.isEmpty else { return }
        let op = ATTOpcode(pdu[0])
        switch op.kind {
        case .response:
            guard let r = outstanding, CentralHost.answers(pdu, request: r.pdu) else { return }
            world.scheduler.cancel(timeout)
            timeout = nil
            outstanding = nil
            if let next = queue.first {
                queue.removeFirst()
                start(next, on: link)
            }
            if op == .errorResponse, case .errorResponse(let e)? = try? ATTPDU(decoding: pdu[...]) {
                r.completion?(.error(e))
            } else {
                r.completion?(.response(pdu))
            }
        case .notification, .indication:
            onValue(pdu)
        default:
            break
        }
    }

    /// The link is gone: the outstanding and queued requests fail.
    func linkDown() {
        world.scheduler.cancel(timeout)
        timeout = nil
        let failed = (outstanding.map { [$0] } ?? []) + queue
        outstanding = nil
        queue = []
        for r in failed { r.completion?(.disconnected) }
    }
}
