import BLECore
import BLEDecode

/// Why the host's pairing or encryption failed.
public enum SecurityFailure: Error, Sendable, Equatable {
    /// SMP Pairing Failed with this reason (Core v5.4 Vol 3 Part H 3.5.5).
    case pairingFailed(reason: UInt8)
    /// Encryption Change with this HCI status (0x06 PIN or Key Missing: the peer lost its keys).
    case encryptionFailed(status: UInt8)
    /// The recording shows no pairing on this connection: what the peer would do is unknown, so
    /// the refusal stands.
    case notRecorded
}

/// The system's pairing, as iOS does it for an app (Docs/replay.md "Security"): a request
/// refused with Insufficient Authentication, Insufficient Encryption or Insufficient Encryption
/// Key Size (Core v5.4 Vol 3 Part F 3.4.1.1; Part C 10.3.2: the client may then pair or
/// encrypt and retry) makes the host pair with the peripheral; the peripheral's side is what the
/// recording shows for this link's behaviour (PeerBehaviour.security): encrypted after the
/// recorded delay, or Pairing Failed with the recorded reason, or an Encryption Change failure.
extension CentralHost {
    /// ATT errors that ask the client for more security.
    public static func requiresSecurity(_ code: ATTErrorCode) -> Bool {
        [0x05, 0x0C, 0x0F].contains(code.rawValue)
    }

    /// Pairs (or encrypts with a recorded key) on `link`; concurrent callers share one pairing.
    public func secure(_ link: SimulatedLink, _ completion: @escaping (Result<Void, SecurityFailure>) -> Void) {
        guard link.isUp else { completion(.failure(.notRecorded)); return }
        if link.isEncrypted { completion(.success(())); return }
        if link.pairingWaiters != nil { link.pairingWaiters!.append(completion); return }
        link.pairingWaiters = [completion]
        let outcome = link.peripheral.behaviourOn(link)?.security ?? .notRecorded
        func finish(_ r: Result<Void, SecurityFailure>) {
            let waiters = link.pairingWaiters ?? []
            link.pairingWaiters = nil
            for w in waiters { w(r) }
        }
        switch outcome {
        case .notRecorded:
            scheduler.schedule(after: 0) { finish(.failure(.notRecorded)) }
        case .encrypted(let after):
            scheduler.schedule(after: after) { [self] in
                guard link.isUp else { finish(.failure(.notRecorded)); return }
                traceEncryption(link, status: 0)
                link.isEncrypted = true
                finish(.success(()))
            }
        case .pairingFailed(let reason, let after):
            scheduler.schedule(after: after) { [self] in
                guard link.isUp else { finish(.failure(.notRecorded)); return }
                // SMP Pairing Failed from the peripheral (Vol 3 Part H 3.5.5), on the SMP channel 0x0006.
                for f in HCIPacketBuilder.aclFragments(handle: link.handle, channel: 0x0006, payload: [0x05, reason],
                                                       fragmentSize: 27, fromHost: false) {
                    trace.append(f, kind: .acl, direction: .received, at: now, controller: link.controller)
                }
                finish(.failure(.pairingFailed(reason: reason)))
            }
        case .encryptionFailed(let status, let after):
            scheduler.schedule(after: after) { [self] in
                guard link.isUp else { finish(.failure(.notRecorded)); return }
                traceEncryption(link, status: status)
                finish(.failure(.encryptionFailed(status: status)))
            }
        }
    }

    /// LE Enable Encryption (Vol 4 Part E 7.8.24) with its Command Status, then Encryption
    /// Change (7.7.8: status, handle, enabled 0x01 AES-CCM).
    private func traceEncryption(_ link: SimulatedLink, status: UInt8) {
        let h = [UInt8(link.handle & 0xFF), UInt8(link.handle >> 8)]
        trace.command(HCIPacketBuilder.command(0x2019, h + [UInt8](repeating: 0, count: 26)), at: now, controller: link.controller)
        trace.event(HCIPacketBuilder.commandStatus(0x2019), at: now, controller: link.controller)
        trace.event(HCIPacketBuilder.event(0x08, [status] + h + [status == 0 ? 0x01 : 0x00]), at: now, controller: link.controller)
    }
}

extension SimulatedPeripheral {
    /// The recorded behaviour this peripheral follows on `link`.
    func behaviourOn(_ link: SimulatedLink) -> PeerBehaviour? { session(on: link)?.behaviour }
}
