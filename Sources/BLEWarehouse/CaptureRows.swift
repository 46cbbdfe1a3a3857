import BLECore
import BLEReport

/// One capture's facts as the warehouse's rows (WarehouseSchema), every value as the text
/// PostgreSQL reads for its column type (nil is NULL).
enum CaptureRows {
    static func text(_ v: Int?) -> String? { v.map(String.init) }
    static func text(_ v: Int64?) -> String? { v.map(String.init) }
    static func text(_ v: Bool) -> String { v ? "t" : "f" }

    /// Parameters of the `capture` row, in `captureColumns` order.
    static func capture(_ f: CaptureFacts, outcome: InputOutcome, bytes: CaptureBytes?) -> [String?] {
        let warnings = JSON.array(outcome.warnings.map { .string(WarehouseText.storable($0)) }).serialized()
        return [f.sha256, f.label, f.input, outcome.kind ?? "capture", outcome.status.rawValue, outcome.reason, warnings,
                outcome.formatDescription, f.captureName, f.capturePath, f.formatDescription, text(f.records),
                text(f.firstTimestamp), text(f.lastTimestamp), f.status, text(f.malformedPackets), text(f.bredrLinks),
                f.phone?.manufacturer, f.phone?.model, f.phone?.androidVersion, f.phone?.buildFingerprint,
                text(bytes?.size), bytes?.headDigest, bytes.map { "{" + $0.prefixDigests.joined(separator: ",") + "}" }]
    }

    static let captureColumns = ["sha256", "label", "input", "input_kind", "input_status", "input_reason", "input_warnings",
                                 "input_format", "capture_name", "capture_path", "format_description", "records",
                                 "first_ts_us", "last_ts_us", "status", "malformed_packets", "bredr_links",
                                 "phone_manufacturer", "phone_model", "android_version", "build_fingerprint",
                                 "size_bytes", "head_sha256", "prefix_sha256"]

    static let connectionColumns = ["capture_id", "id", "handle", "peer_address", "status", "completed_ts_us", "start_ts_us",
                                    "end_ts_us", "began_before_capture", "open_at_end", "established", "duration_us",
                                    "disconnect_reason", "disconnect_cb_error", "name", "manufacturer", "model", "firmware_revision",
                                    "local_role"]

    static func connections(_ f: CaptureFacts, id: String) -> [[String?]] {
        f.connections.map { c in
            [id, text(c.id), text(c.handle), c.peerAddress, text(c.status), text(c.completedAt), text(c.start), text(c.end),
             text(c.beganBeforeCapture), text(c.openAtEnd), text(c.established), text(c.observedDuration),
             text(c.disconnectReason), c.disconnectCBError, c.identity.name, c.identity.manufacturer, c.identity.model,
             c.identity.firmwareRevision, c.localRole]
        }
    }

    static let deviceColumns = ["capture_id", "address", "name", "manufacturer", "model", "firmware_revision"]

    static func devices(_ f: CaptureFacts, id: String) -> [[String?]] {
        f.devices.sorted { $0.key < $1.key }.map { address, d in [id, address, d.name, d.manufacturer, d.model, d.firmwareRevision] }
    }

    static let errorColumns = ["capture_id", "ordinal", "kind", "ts_us", "packet_id", "connection_id", "code", "name", "cb_error",
                               "opcode", "opcode_name", "handle", "characteristic", "descriptor", "detail", "android_status", "android_name"]

    static func errors(_ f: CaptureFacts, id: String) -> [[String?]] {
        f.events.enumerated().map { i, e in
            [id, text(i), e.kind.rawValue, text(e.timestamp), text(e.packetID), text(e.connectionID), text(e.code), e.name,
             e.cbError, text(e.opcode), e.opcodeName, text(e.handle), e.characteristic, e.descriptor, e.detail,
             text(e.android?.status), e.android?.name]
        }
    }

    static let transactionColumns = ["capture_id", "ordinal", "connection_id", "request_packet_id", "response_packet_id",
                                     "request_ts_us", "opcode", "opcode_name", "requester", "handle", "latency_us", "outcome",
                                     "error_code"]

    static func transactions(_ d: CaptureDetails?, id: String) -> [[String?]] {
        (d?.transactions ?? []).enumerated().map { i, t in
            [id, text(i), text(t.connectionID), text(t.requestPacketID), text(t.responsePacketID), text(t.requestTimestamp),
             text(t.opcode), t.opcodeName, t.requester, text(t.handle), text(t.latency), t.outcome, text(t.errorCode)]
        }
    }

    static let findingColumns = ["capture_id", "ordinal", "connection_id", "severity", "code", "title", "detail",
                                 "evidence_packet_ids", "cb_error", "android_status", "android_name"]

    static func findings(_ d: CaptureDetails?, id: String) -> [[String?]] {
        (d?.findings ?? []).enumerated().map { i, x in
            [id, text(i), text(x.connectionID), x.severity, x.code, x.title, x.detail, x.evidencePacketIDs, x.cbError,
             text(x.androidStatus), x.androidName]
        }
    }
}
