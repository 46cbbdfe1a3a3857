import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLECore
import BLETimeline
import TestSupport

/// What an Android app's BluetoothGattCallback received, on the capture `Scripts/blegen/android.py`
/// builds (frame numbers are read off that file): the Android host behaviours as findings, the
/// `android_status` / `android_name` columns, the platform that picks diagnose's view, and the
/// report columns. The same records as PacketLogger are Apple's: CoreBluetooth's view only.
@Suite("Android host behaviours", .serialized)
struct AndroidHostBehaviourTests {
    /// Writes android-host.btsnoop and android-host.pklg into a scratch directory.
    static func generate() throws -> String {
        let dir = Support.scratch()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-m", "blegen.android", dir]
        p.currentDirectoryURL = Support.packageRoot.appendingPathComponent("Scripts")
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return dir
    }

    func load(_ file: String, in dir: String) throws -> (TimelineStore, CaptureDiagnosis) {
        let store = try Support.timeline([dir + "/" + file], at: dir + "/\(file).db")
        return (store, try #require(try DiagnosisLoader.load(store).first))
    }

    static func findings(_ d: CaptureDiagnosis) -> [Finding] {
        (d.findings + d.connections.flatMap(\.findings)).map(\.finding)
    }

    @Test func androidCaptureNamesTheCallbacks() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let (store, d) = try load("android-host.btsnoop", in: dir)
        #expect(d.platform.platform == .android && d.platform.confirmed)
        let f = Self.findings(d)
        // The stack's own disconnect 30 s after the unanswered Write Request (frame 24).
        let att = try #require(f.first { $0.code == "android-att-timeout-disconnect" })
        #expect(att.evidence == [24, 25, 27])
        #expect(att.android == .connTerminateLocalHost)
        #expect(att.detail.contains("onConnectionStateChange got status 22 GATT_CONN_TERMINATE_LOCAL_HOST"))
        // The direct connect cancelled 30 s after its LE Create Connection (frames 28, 30, 32).
        let direct = try #require(f.first { $0.code == "android-direct-connect-timeout" })
        #expect(direct.evidence == [28, 30, 32])
        #expect(direct.android?.status == 133)
        #expect(direct.detail.contains("147 GATT_CONNECTION_TIMEOUT from Android 15"))
        #expect(!f.contains { $0.code == "connect-cancelled" })
        // The 0x3E attempt: the app saw 133.
        let failed = try #require(f.first { $0.code == "android-connect-failed-133" })
        #expect(failed.evidence == [35])
        #expect(failed.android == .error)
        // The connect answered 95 s later: a background one, never timed out.
        let background = try #require(f.first { $0.code == "android-background-connect" })
        #expect(background.evidence == [36, 38])
        #expect(background.android == .success)
        // Columns, as SQL reads them.
        let rows = try store.database.rows("""
            SELECT packet_id, context, code, android_status, android_name FROM errors WHERE android_status IS NOT NULL ORDER BY packet_id
            """).map { r in "\(r[0].int ?? 0) \(r[1].string ?? "") \(r[2].int ?? 0) \(r[3].int ?? -1) \(r[4].string ?? "-")" }
        #expect(rows == [
            "23 error-response 2 2 GATT_READ_NOT_PERMITTED",
            "27 disconnect 22 22 GATT_CONN_TERMINATE_LOCAL_HOST",
            "32 connection 2 133 GATT_ERROR",
            "35 connection 62 133 GATT_ERROR",
            "39 disconnect 19 19 GATT_CONN_TERMINATE_PEER_USER",
        ])
        // The Attribute Not Found that ends a discovery reaches no callback as an error.
        #expect(try store.database.scalarInt("SELECT count(*) FROM errors WHERE code = 10 AND android_status IS NOT NULL") == 0)
        // A finding without its own status takes its evidence's: the ATT error finding.
        let attError = try #require(f.first { $0.code == "att-error" && $0.evidence == [23] })
        #expect(attError.android?.status == 2)
        #expect(try store.database.scalarInt("SELECT android_status FROM findings WHERE code = 'att-error' AND evidence_packet_ids = '[23]'") == 2)
        // The discovery's Attribute Not Found finding names no Android status.
        #expect(try store.database.scalarInt("SELECT count(*) FROM findings WHERE code = 'att-error' AND evidence_packet_ids = '[15,19]' AND android_status IS NULL") == 1)
    }

    @Test func diagnoseShowsTheViewOfThePlatform() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let (_, android) = try load("android-host.btsnoop", in: dir)
        let androidText = DiagnosisRenderer.text([android])
        #expect(androidText.contains("host: Android"))
        #expect(androidText.contains("Android app: onConnectionStateChange status 22 GATT_CONN_TERMINATE_LOCAL_HOST"))
        #expect(androidText.contains("Android: status 133 GATT_ERROR"))
        #expect(!androidText.contains("CoreBluetooth: "))
        #expect(!androidText.contains("app sees CBError"))

        let (_, apple) = try load("android-host.pklg", in: dir)
        #expect(apple.platform.platform == .apple)
        #expect(!Self.findings(apple).contains { $0.code.hasPrefix("android-") })
        let appleText = DiagnosisRenderer.text([apple])
        #expect(appleText.contains("host: Apple"))
        #expect(appleText.contains("app sees CBError.connectionTimeout"))
        #expect(!appleText.contains("Android"))

        // JSON carries both views whatever the platform, and says which it is.
        let json = DiagnosisRenderer.json([android]).serialized()
        #expect(json.contains("\"platform\":\"android\""))
        #expect(json.contains("\"android_status\":22,\"android_name\":\"GATT_CONN_TERMINATE_LOCAL_HOST\""))
    }

    /// Platform from the facts the import stored: the format, then Android's vendor commands.
    @Test func platformFromFormatAndVendorCommands() {
        #expect(CapturePlatform(format: "pcap", linkType: 201, fromBugreport: false, androidVendorCommands: true) == .android)
        #expect(CapturePlatform(format: "pcap", linkType: 201, fromBugreport: false, androidVendorCommands: false) == .unknown)
        #expect(CapturePlatform(format: "btsnoop", linkType: 2001, fromBugreport: true, androidVendorCommands: false) == .android)
        #expect(CapturePlatform(format: "packetlogger", linkType: 0, fromBugreport: false, androidVendorCommands: true) == .apple)
        // Views: Android's only where more than the format says Android; both where nothing tells.
        let confirmed = CapturePlatform.Inference(platform: .android, evidence: "", confirmed: true)
        let byFormat = CapturePlatform.Inference(platform: .android, evidence: "", confirmed: false)
        let apple = CapturePlatform.Inference(platform: .apple, evidence: "")
        #expect(confirmed.showsAndroidView && !confirmed.showsCoreBluetoothView)
        #expect(byFormat.showsAndroidView && byFormat.showsCoreBluetoothView)
        #expect(!apple.showsAndroidView && apple.showsCoreBluetoothView)
        #expect(CapturePlatform.Inference.unknown.showsAndroidView && CapturePlatform.Inference.unknown.showsCoreBluetoothView)
    }

    /// Every Android LE vendor command the decoder knows is evidence, not only the five the
    /// platform inference once listed: an H4 pcap (LINKTYPE 187: no format says Android) whose
    /// host only configured the Bluetooth Quality Report (`HCI_CONTROLLER_BQR` 0xFD5E, AOSP
    /// hcidefs.h; sub-command 0x00 add, report mask, thresholds) is Android's. It was `.unknown`.
    @Test func anyAndroidVendorCommandIsEvidence() throws {
        #expect(CapturePlatform.androidVendorOpcodes.contains(0xFD5E))
        var c = SpecCapture()
        c.cmd(0, 0xFD5E, [0x00, 0x1F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        c.evt(1, 0x0E, [0x01, 0x5E, 0xFD, 0x00])
        let dir = Support.scratch()
        try c.writePcapH4(to: dir + "/bqr.pcap")
        let store = try Support.timeline([dir + "/bqr.pcap"], at: dir + "/bqr.db")
        let inferred = try CapturePlatform.infer(captureID: 1, from: store.database)
        #expect(inferred.platform == .android && inferred.confirmed)
        #expect(inferred.evidence == "Android's vendor commands (0xFD5E)")
    }

    @Test func reportShowsTheAndroidColumns() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let out = dir + "/report"
        let r = try Tool.run(["report", dir + "/android-host.btsnoop", "-o", out, "--format", "json,md,html,csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("0x16 Connection Terminated By Local Host ×1 (CBError.connectionTimeout; Android 22 GATT_CONN_TERMINATE_LOCAL_HOST)"))
        let json = try Support.json(out + "/report.json")
        let reasons = try #require(json["disconnect_reasons"] as? [[String: Any]])
        let local = try #require(reasons.first { $0["code"] as? Int == 0x16 })
        #expect(local["android_status"] as? Int == 22)
        #expect(local["android_name"] as? String == "GATT_CONN_TERMINATE_LOCAL_HOST")
        let failures = try #require(json["connection_failures"] as? [[String: Any]])
        #expect(failures.contains { $0["code"] as? Int == 0x3E && $0["android_status"] as? Int == 133 })
        let attErrors = try #require(json["att_errors"] as? [[String: Any]])
        #expect(attErrors.contains { $0["code"] as? Int == 2 && $0["android_name"] as? String == "GATT_READ_NOT_PERMITTED" })
        let md = String(decoding: Support.read(out + "/report.md"), as: UTF8.self)
        #expect(md.contains("| Android status | Android name |"))
        #expect(md.contains("| 22 | GATT_CONN_TERMINATE_LOCAL_HOST |"))
        let html = String(decoding: Support.read(out + "/report.html"), as: UTF8.self)
        #expect(html.contains("Android name"))
        #expect(html.contains("GATT_CONN_TERMINATE_PEER_USER"))
    }

    /// Error Responses the app never receives as such (android-callbacks.btsnoop, frames read off
    /// Scripts/blegen/android.py): the Attribute Not Long that ends the stack's Read Blob after a
    /// full Read Response (gatt_cl.cc: GATT_SUCCESS), the Insufficient Authentication and
    /// Encryption BluetoothGatt.java retries twice, the pairing failure that ends a retried read
    /// (gatt_auth.cc: 137 GATT_AUTH_FAIL), and an application error passed through.
    @Test func errorsTheFrameworkRetriesOrTheStackReadsOn() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let (store, _) = try load("android-callbacks.btsnoop", in: dir)
        let rows = try store.database.rows("""
            SELECT packet_id, context, code, android_status, android_name FROM errors ORDER BY packet_id
            """).map { r in "\(r[0].int ?? 0) \(r[1].string ?? "") \(r[2].int ?? 0) \(r[3].int.map(String.init) ?? "-") \(r[4].string ?? "-")" }
        #expect(rows == [
            "13 error-response 11 - -",
            "15 error-response 5 - -",
            "17 pairing-failed 3 137 GATT_AUTH_FAIL",
            "19 error-response 15 - -",
            "21 error-response 15 - -",
            "23 error-response 15 15 GATT_INSUFFICIENT_ENCRYPTION",
            "25 error-response 128 128 -",
            "26 disconnect 19 19 GATT_CONN_TERMINATE_PEER_USER",
            "31 disconnect 8 8 GATT_CONN_TIMEOUT",
            "32 connection 60 - -",
        ])
    }

    /// LE Connection Complete 0x3C Advertising Timeout (frame 32 of android-callbacks.btsnoop,
    /// role byte 0): the phone's directed advertising ended; AOSP's acl_ble_connection_fail tells
    /// no GATT client, so no app saw 133 for it.
    @Test func anAdvertisingTimeoutIsNoFailedConnect() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let (_, d) = try load("android-callbacks.btsnoop", in: dir)
        #expect(!Self.findings(d).contains { $0.code == "android-connect-failed-133" })
    }

    /// The Write Request left unanswered on link A (frame 24): the stack ends a pending operation
    /// with GATT_ERROR when the link closes (gatt_utils.cc gatt_cleanup_upon_disc), so the app's
    /// onCharacteristicWrite got 133 before onConnectionStateChange got 22.
    @Test func aRequestPendingWhenTheLinkClosedGets133() throws {
        let dir = try Self.generate()
        defer { Support.remove(dir) }
        let (_, d) = try load("android-host.btsnoop", in: dir)
        let f = Self.findings(d)
        let timeout = try #require(f.first { $0.code == "att-timeout" && $0.evidence.first == 24 })
        #expect(timeout.android == .error)
        #expect(timeout.detail.contains("onCharacteristicWrite (or onDescriptorWrite) got status 133 GATT_ERROR when the link closed"))
        let closed = try #require(f.first { $0.code == "android-att-timeout-disconnect" })
        #expect(closed.android == .connTerminateLocalHost)
        #expect(closed.detail.contains("got status 133 GATT_ERROR as the link closed (gatt_utils.cc gatt_cleanup_upon_disc); then the app's onConnectionStateChange got status 22"))
        // Link F of android-callbacks.btsnoop: the Read Request (frame 30) pending when the link was lost (31).
        let (_, lost) = try load("android-callbacks.btsnoop", in: dir)
        let timeout08 = try #require(Self.findings(lost).first { $0.evidence.contains(31) && $0.android == .connTimeout })
        #expect(timeout08.detail.contains("An Android app's onCharacteristicRead (or onDescriptorRead) for the phone's Read Request (packet 30) got status 133 GATT_ERROR before onConnectionStateChange"))
    }
}
