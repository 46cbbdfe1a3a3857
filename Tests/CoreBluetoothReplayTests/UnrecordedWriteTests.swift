import BLECore
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Writes the recording never made, answered from the GATT database (`--unmatched database`,
/// CoreBluetoothReplay's default): the server refuses what the characteristic's properties do
/// not permit, as it refuses a read without the Read property (Core v5.4 Vol 3 Part G 3.3.1.1:
/// the properties say how the value may be used; Vol 3 Part F 3.4.5.1 and 3.4.6.1: Write Not
/// Permitted (0x03) for an attribute that cannot be written; Vol 3 Part G 3.3.1: a characteristic
/// declaration is read-only).
@Suite struct UnrecordedWriteTests {
    /// heart-rate-healthy's Body Sensor Location (2A38, properties 0x02: read only), which the
    /// recording never wrote: a short write and a long write (Prepare Write) both get CBATTError
    /// writeNotPermitted (3), and a later read still gives the recorded value 01.
    @Test func aWriteToAReadOnlyCharacteristicIsRefused() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        app.ready = { app, p in
            guard let c = app.characteristic("2A38") else { return }
            p.writeValue(Data([0x05]), for: c, type: .withResponse)
            p.writeValue(Data(repeating: 0x05, count: 600 - 88), for: c, type: .withResponse)
            p.readValue(for: c)
        }
        replay.run(for: 5)
        let errors = app.errors["2A38"] ?? []
        #expect(errors.map { ($0 as NSError).domain } == [CBATTErrorDomain, CBATTErrorDomain])
        #expect(errors.map { ($0 as NSError).code } == [3, 3])
        #expect(app.values["2A38"] == [Data([0x01])])
    }

    /// The emulator itself: a Write Request to a characteristic declaration or to a value without
    /// the Write property is Write Not Permitted; to a value with it, accepted; a Write Command to
    /// a value without Write Without Response changes nothing.
    @Test func theEmulatorRefusesWhatThePropertiesDoNotPermit() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let db = try #require(replay.peripheral("Pulse HRM")?.model.gatt)
        var server = GATTServerEmulator(database: db, serverRxMTU: 247)
        let readOnly = try #require(db.characteristics.first { $0.uuid == BluetoothUUID(uint16: 0x2A38) })
        func write(_ handle: UInt16) -> [UInt8] { server.answer([0x12, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x07]) }
        #expect(write(readOnly.valueHandle) == [0x01, 0x12, UInt8(readOnly.valueHandle & 0xFF), UInt8(readOnly.valueHandle >> 8), 0x03])
        #expect(write(readOnly.declarationHandle) == [0x01, 0x12, UInt8(readOnly.declarationHandle & 0xFF),
                                                      UInt8(readOnly.declarationHandle >> 8), 0x03])
        server.command([0x52, UInt8(readOnly.valueHandle & 0xFF), UInt8(readOnly.valueHandle >> 8), 0x07])
        #expect(server.written[readOnly.valueHandle] == nil)
        // The CCCD of 2A37 (a descriptor) and a value with the Write property are written.
        let cccd = try #require(db.descriptors.first { $0.uuid == BluetoothUUID(uint16: 0x2902) })
        #expect(write(cccd.handle) == [0x13])
    }
}
