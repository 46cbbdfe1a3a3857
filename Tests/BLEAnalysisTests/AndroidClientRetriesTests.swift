import Testing
@testable import BLEAnalysis

/// `AndroidClientRetries.walk` against AOSP's behaviour: BluetoothGatt.java retries a read or
/// write answered 5 or 15 twice (`AUTH_RETRY_STATE_NO_MITM`, `AUTH_RETRY_STATE_MITM`) before the
/// callback gets it; gatt_auth.cc ends a retried request whose pairing failed with 137
/// `GATT_AUTH_FAIL`; gatt_cl.cc ends a read with `GATT_SUCCESS` when the Read Blob that follows a
/// full Read Response is answered 0x0B Attribute Not Long.
@Suite("Android client retries")
struct AndroidClientRetriesTests {
    static func req(_ opcode: Int, _ handle: Int, _ outcome: String, _ code: Int? = nil, at packet: Int64) -> AndroidClientRetries.Step {
        .request(opcode: opcode, handle: handle, outcome: outcome, errorCode: code, responsePacket: packet)
    }

    @Test func onlyTheThirdAuthErrorReachesTheCallback() {
        let v = AndroidClientRetries.walk([
            Self.req(0x12, 0x0C, "error", 0x0F, at: 2), Self.req(0x12, 0x0C, "error", 0x05, at: 4),
            Self.req(0x12, 0x0C, "error", 0x0F, at: 6), Self.req(0x0A, 0x0C, "error", 0x05, at: 8),
            Self.req(0x0C, 0x0C, "ok", at: 10),
        ])
        // The fourth starts a new retry round: the third was handed over and reset the state.
        #expect(v.notDelivered == [2, 4, 8])
        #expect(v.authFail.isEmpty)
    }

    @Test func aSuccessResetsTheRetryState() {
        let v = AndroidClientRetries.walk([
            Self.req(0x0A, 0x0C, "error", 0x05, at: 2), Self.req(0x0A, 0x0C, "ok", at: 4),
            Self.req(0x0A, 0x0E, "error", 0x05, at: 6), Self.req(0x0A, 0x0E, "error", 0x05, at: 8),
            Self.req(0x0A, 0x0E, "error", 0x05, at: 10),
        ])
        #expect(v.notDelivered == [2, 6, 8])
    }

    /// No retry in the capture (another request next, or nothing): the error reached the app.
    @Test func anErrorNotRetriedWasDelivered() {
        let v = AndroidClientRetries.walk([
            Self.req(0x0A, 0x2A, "error", 0x05, at: 2), Self.req(0x0A, 0x2C, "error", 0x05, at: 4),
            Self.req(0x12, 0x2C, "error", 0x05, at: 6),
        ])
        #expect(v.notDelivered.isEmpty)
    }

    @Test func aPairingFailureAfterARetriedErrorIsAuthFail() {
        let v = AndroidClientRetries.walk([
            Self.req(0x0A, 0x0A, "error", 0x05, at: 2), .securityFailure(packet: 3),
            // Not after a retried error: no callback was waiting for it.
            .securityFailure(packet: 5),
        ])
        #expect(v.notDelivered == [2])
        #expect(v.authFail == [3])
    }

    @Test func attributeNotLongAfterAFullReadIsSuccess() {
        let v = AndroidClientRetries.walk([
            Self.req(0x0A, 0x08, "ok", at: 2), Self.req(0x0C, 0x08, "error", 0x0B, at: 4),
            // A Read Blob the app asked for (no Read before it): 11 GATT_NOT_LONG reaches it.
            Self.req(0x0C, 0x09, "error", 0x0B, at: 6),
        ])
        #expect(v.notDelivered == [4])
    }

    @Test func otherRequestsDoNotTouchTheState() {
        // Discovery and MTU exchange are not read or write callbacks; their errors are theirs.
        let v = AndroidClientRetries.walk([
            Self.req(0x02, 0, "error", 0x06, at: 2), Self.req(0x08, 1, "error", 0x05, at: 4),
            Self.req(0x0A, 0x0A, "error", 0x80, at: 6),
        ])
        #expect(v.notDelivered.isEmpty)
    }
}
