/// One ATT bearer of the central's client on a link (Core v5.4 Vol 3 Part F 3.3.2): one request
/// outstanding, later ones queued, and its own 30 s transaction timeout (3.3.3).
///
/// A link has several: the fixed channel 0x0004 (key nil), each Enhanced ATT bearer (an L2CAP
/// Enhanced Credit Based channel for SPSM 0x0027, Vol 3 Part G 5.4; Part A 4.25, 4.26), and on
/// BR/EDR the channel for PSM 0x001F (Part G 5.1). They are named as the timeline names them:
/// by the Source CID of the side that requested the channel (`RecordedPDU.bearer`). A timeout
/// closes its own bearer only: "no more attribute protocol requests, commands, indications or
/// notifications shall be sent to the target device on this ATT bearer" (3.3.3); the others
/// go on.
struct ATTClientBearer {
    struct Request {
        var pdu: [UInt8]
        var transmitted: (() -> Void)?
        var completion: ((ATTResult) -> Void)?
    }

    var outstanding: Request?
    var timeout: Scheduler.EventID?
    var queue: [Request] = []
    /// An ATT transaction timed out on this bearer: no further request may be sent on it.
    var closed = false
}
