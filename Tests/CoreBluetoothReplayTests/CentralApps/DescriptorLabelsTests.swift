import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `DescriptorLabels` against SpecCapture.descriptorLabels(). Apple, `CBUUID`: the value of a
/// `CBUUIDCharacteristicUserDescriptionString` descriptor is an NSString, of a
/// `CBUUIDCharacteristicFormatString` descriptor an NSData. A descriptor longer than MTU - 1 is
/// read whole (Read Long Characteristic Descriptors, Core v5.4 Vol 3 Part G 4.12.2: Read Blob
/// from the offset reached until a part shorter than MTU - 1). A value written and then read
/// back reads as written (Core v5.4 Vol 3 Part F 3.4.5.1, 3.4.4.3).
@Suite struct DescriptorLabelsTests {
    @Test func userDescriptionAndFormatAreReadWholeAsCoreBluetoothTypesThem() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString).btsnoop").path
        try SpecCapture.descriptorLabels().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = DescriptorLabels(replay: replay, newLabel: "Kitchen shelf")
        replay.run(for: 5)
        #expect(app.log.first == "descriptors FFE1: 2901,2904", "\(app.log)")
        #expect(app.values.count == 3, "\(app.values)")
        guard app.values.count == 3 else { return }
        #expect(app.values[0].0 == "2901" && app.values[0].1 as? String == SpecCapture.longUserDescription)
        #expect(app.values[1].0 == "2904" && app.values[1].1 as? Data == Data(SpecCapture.presentationFormat))
        #expect(app.log.contains("wrote 2901 0"))
        // Read back after the write: what the app wrote (the recording read 0x0004 but never
        // wrote it; its recorded answer predates this write).
        #expect(app.values[2].0 == "2901" && app.values[2].1 as? String == "Kitchen shelf", "\(app.values[2])")
        // On the air: the long read's Read Blob at offset 22 (MTU 23 - 1), then the write.
        let sent = try #require(replay.world.host.allLinks.first).log.filter(\.fromCentral).map(\.bytes)
        #expect(sent.contains([0x0C, 0x04, 0x00, 0x16, 0x00]))
        #expect(sent.contains([0x12, 0x04, 0x00] + Array("Kitchen shelf".utf8)))
        #expect(replay.diagnostics.isEmpty, "\(replay.diagnostics)")
    }
}
