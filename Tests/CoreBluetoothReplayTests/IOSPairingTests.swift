import CoreBluetoothReplay
import Foundation
import Testing

/// The system's pairing, modelled from the recording (Docs/replay.md "Security"). iOS answers an
/// Insufficient Authentication (0x05) or Insufficient Encryption (0x0F) by pairing and sending
/// the request again; the app sees the value, or an error when pairing fails.
///
/// auth-errors.btsnoop (tshark): Read 0x0015 -> 0x05 (frame 125), Read 0x0017 -> 0x0F (128),
/// Pairing Request (135), Encryption Change (146), Read 0x0015 -> 2a 00 00 00 (157), Read 0x0017
/// -> 11 22 ... 88 (160). pairing-failed.btsnoop: Read 0x0015 -> 0x05 (123), Pairing Request
/// (124), Pairing Failed 0x04 Confirm Value Failed (139), 8.22 s after the request.
@Suite struct IOSPairingTests {
    @Test func insufficientAuthenticationAndEncryptionPairThenGiveTheValuesRecordedAfterEncryption() throws {
        let replay = try CBReplay(capture: Samples.capture("auth-errors.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Acme Meter")
        var readAt: TimeInterval?
        app.ready = { app, p in
            guard readAt == nil, let a = app.characteristic("7A3E0020-52C1-4B8E-9E4A-2F6C3B1D0E55"),
                  let b = app.characteristic("7A3E0021-52C1-4B8E-9E4A-2F6C3B1D0E55") else { return }
            readAt = app.clock.now
            p.readValue(for: a)
            p.readValue(for: b)
        }
        replay.run(for: 30)
        #expect(app.errors.isEmpty)
        #expect(app.values["7A3E0020-52C1-4B8E-9E4A-2F6C3B1D0E55"] == [Data([0x2A, 0, 0, 0])])
        #expect(app.values["7A3E0021-52C1-4B8E-9E4A-2F6C3B1D0E55"] == [Data([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])])
        // Pairing took what it took in the recording: Pairing Request 3.572434 s -> Encryption
        // Change 6.601880 s = 3.029446 s, so the first value comes at least that long after the read.
        let first = try #require(app.log.first { $0.contains("value 7A3E0020") })
        let t = try #require(Double(first.split(separator: " ")[0]))
        #expect(t - readAt! >= 3.029446)
        // The written capture shows LE Enable Encryption and a successful Encryption Change.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pairing-\(UUID().uuidString).btsnoop").path
        try replay.writeCapture(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.windows(ofCount: 4).contains { $0.elementsEqual([0x01, 0x19, 0x20, 0x1C]) })   // LE Enable Encryption, 28 bytes
        #expect(bytes.windows(ofCount: 4).contains { $0.elementsEqual([0x04, 0x08, 0x04, 0x00]) })   // Encryption Change, status 0
    }

    @Test func failedPairingGivesTheRefusalAsIOSDoes() throws {
        let replay = try CBReplay(capture: Samples.capture("pairing-failed.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Acme Lock")
        var readAt: TimeInterval?
        app.ready = { app, p in
            guard readAt == nil, let c = app.characteristic("7A3E0010-52C1-4B8E-9E4A-2F6C3B1D0E55") else { return }
            readAt = app.clock.now
            p.readValue(for: c)
        }
        replay.run(for: 30)
        let e = try #require(app.errors["7A3E0010-52C1-4B8E-9E4A-2F6C3B1D0E55"]?.first)
        #expect((e as NSError).domain == CBATTErrorDomain)
        #expect((e as NSError).code == 5)
        #expect(app.values["7A3E0010-52C1-4B8E-9E4A-2F6C3B1D0E55"] == nil)
        let line = try #require(app.log.first { $0.contains("value 7A3E0010") })
        let t = try #require(Double(line.split(separator: " ")[0]))
        // Pairing Request 3.405514 s -> Pairing Failed 11.623912 s.
        #expect(t - readAt! >= 8.218398)
    }
}

extension Array {
    /// Every run of `n` consecutive elements.
    func windows(ofCount n: Int) -> [ArraySlice<Element>] {
        count < n ? [] : (0...(count - n)).map { self[$0..<($0 + n)] }
    }
}

/// On a real Android capture (../shared/captures/android-lock-pairing.btsnoop, tshark): Write
/// Request 0x003F `02 50` (frame 756) -> 0x05 Insufficient Authentication (758), Pairing Request
/// (759, LE Secure Connections with passkey), Encryption Change (1008) 25.231652 s later, the same
/// write (1045) -> Write Response (1047). The app's write succeeds after the recorded pairing.
@Suite struct IOSPairingRealCaptureTests {
    static let path = "\(Samples.packageRoot)/../shared/captures/android-lock-pairing.btsnoop"

    @Test(.enabled(if: FileManager.default.fileExists(atPath: path)))
    func aWriteRefusedForAuthenticationSucceedsAfterTheRecordedPairing() throws {
        let replay = try CBReplay(capture: Self.path)
        let app = DiscoveringApp(replay: replay, target: nil)
        app.targetIdentifier = CBReplay.identifier(for: try #require(replay.peripheral("FF:B8:37:72:4F:F8")).model)
        var wroteAt: TimeInterval?
        app.ready = { app, p in
            guard wroteAt == nil, let c = app.characteristic("FD47416A-95FB-4206-88B5-B4A8045F75DD") else { return }
            wroteAt = app.clock.now
            p.writeValue(Data([0x02, 0x50]), for: c, type: .withResponse)
        }
        replay.run(for: 120)
        let start = try #require(wroteAt)
        // The first recorded connection failed to be established (0x3E, frame 570): didFailToConnect, then the app retries.
        #expect(app.log.first?.hasSuffix("fail 10") == true)
        let line = try #require(app.log.first { $0.contains("wrote FD47416A-95FB-4206-88B5-B4A8045F75DD") })
        #expect(line.hasSuffix("wrote FD47416A-95FB-4206-88B5-B4A8045F75DD"))   // no error
        let t = try #require(Double(line.split(separator: " ")[0]))
        #expect(t - start >= 25.231652)
    }
}
