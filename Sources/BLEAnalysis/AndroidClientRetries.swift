import BLECore

/// The ATT Error Responses an Android app never receives as such, and the security failures it
/// receives instead, found by walking the phone's GATT client requests on one link in order.
///
/// From AOSP (packages/modules/Bluetooth):
/// - framework/java/android/bluetooth/BluetoothGatt.java, `onCharacteristicRead`,
///   `onCharacteristicWrite`, `onDescriptorRead`, `onDescriptorWrite`: a status of 5
///   `GATT_INSUFFICIENT_AUTHENTICATION` or 15 `GATT_INSUFFICIENT_ENCRYPTION` is not handed to the
///   app while `mAuthRetryState != AUTH_RETRY_STATE_MITM`: the framework sends the request again
///   with `AUTHENTICATION_NO_MITM`, then `AUTHENTICATION_MITM`, and only the third such error
///   reaches the callback; any status it hands over resets the state to `AUTH_RETRY_STATE_IDLE`.
/// - system/stack/gatt/gatt_auth.cc `gatt_security_check_start` / `gatt_sec_check_complete`: the
///   retried request first makes the stack encrypt or pair; when that fails the operation ends
///   with `GATT_AUTH_FAIL` (0x89, 137), and that is the status the callback gets.
/// - system/stack/gatt/gatt_cl.cc `gatt_process_error_rsp`: a 0x0B Attribute Not Long answering
///   the Read Blob the stack sends after a Read Response that filled the ATT_MTU
///   (`first_read_blob_after_read`) ends the read with `GATT_SUCCESS`.
public enum AndroidClientRetries {
    /// One event of the phone's GATT client on a link, in capture order.
    public enum Step: Sendable, Equatable {
        /// A request the phone sent and how it ended (`att_transaction`, direction 'tx').
        case request(opcode: Int, handle: Int?, outcome: String, errorCode: Int?, responsePacket: Int64?)
        /// An SMP Pairing Failed or an Encryption Change with a failure status on the link.
        case securityFailure(packet: Int64)
    }

    /// What the walk decided, by packet.
    public struct Verdicts: Sendable, Equatable {
        /// Error Responses no callback received: the framework retried, or the stack read on.
        public var notDelivered: Set<Int64> = []
        /// Security failures that ended a retried read or write: the callback got 137 `GATT_AUTH_FAIL`.
        public var authFail: Set<Int64> = []
        public init() {}
    }

    /// The requests whose outcome reaches `onCharacteristicRead/Write` or `onDescriptorRead/Write`:
    /// Read (0x0A), Read Blob (0x0C), Write (0x12), Prepare Write (0x16) (Core v5.4 Vol 3 Part F 3.4.4, 3.4.5, 3.4.6).
    static let readWriteOpcodes: Set<Int> = [0x0A, 0x0C, 0x12, 0x16]
    /// `AUTH_RETRY_STATE_MITM`: the retries BluetoothGatt.java makes before it hands the error over.
    static let retries = 2

    /// Whether a request is a read (Read, Read Blob) or a write (Write, Prepare Write): the
    /// framework's retry of a read is a Read Request again, of a write a Write or Prepare Write.
    static func isRead(_ opcode: Int) -> Bool { opcode == 0x0A || opcode == 0x0C }

    /// Walks one link's steps (in capture order).
    public static func walk(_ steps: [Step]) -> Verdicts {
        var walker = Walker()
        for step in steps { walker.add(step) }
        return walker.verdicts
    }

    /// The walk of one link, a step at a time, so a capture's requests (hundreds of thousands on
    /// a busy link) are never held at once.
    ///
    /// A 5 or 15 is taken as retried only when the capture shows the retry: the next read or
    /// write the phone sends is the same kind of request to the same handle, or a pairing or
    /// encryption failure comes first. Otherwise (another request next, or nothing) the error
    /// reached the app: a host that is not Android's, or a capture that ended first.
    public struct Walker: Sendable {
        public private(set) var verdicts = Verdicts()
        private var retryState = 0
        private var retried: (packet: Int64, read: Bool, handle: Int?)?
        private var previous: (opcode: Int, handle: Int?, ok: Bool)?

        public init() {}

        public mutating func add(_ step: Step) {
            switch step {
            case .securityFailure(let packet):
                guard let r = retried else { return }
                verdicts.notDelivered.insert(r.packet)
                verdicts.authFail.insert(packet)
                retried = nil
                retryState = 0
            case let .request(opcode, handle, outcome, errorCode, responsePacket):
                guard readWriteOpcodes.contains(opcode) else { return }
                if let r = retried {
                    if r.read == isRead(opcode) && r.handle == handle {
                        verdicts.notDelivered.insert(r.packet)
                    } else {
                        retryState = 0
                    }
                    retried = nil
                }
                defer { previous = (opcode, handle, outcome == "ok") }
                guard outcome == "ok" || outcome == "error" else { return }
                if outcome == "error", let code = errorCode, let packet = responsePacket {
                    if code == 0x0B, opcode == 0x0C, let p = previous, p.opcode == 0x0A, p.ok, p.handle == handle {
                        verdicts.notDelivered.insert(packet)
                        retryState = 0
                        return
                    }
                    if (code == 0x05 || code == 0x0F) && retryState < retries {
                        retried = (packet, isRead(opcode), handle)
                        retryState += 1
                        return
                    }
                }
                retryState = 0
            }
        }
    }
}
