import CoreBluetoothReplay
import Foundation
import Testing

/// CoreBluetooth's names and numbers (REFERENCE.md "CoreBluetooth CBError.Code", "CBATTError.Code").
@Suite struct APIShapeTests {
    @Test func cbErrorRawValuesAreApples() {
        #expect(CBError.Code.unknown.rawValue == 0)
        #expect(CBError.Code.outOfSpace.rawValue == 4)
        #expect(CBError.Code.connectionTimeout.rawValue == 6)
        #expect(CBError.Code.peripheralDisconnected.rawValue == 7)
        #expect(CBError.Code.connectionFailed.rawValue == 10)
        #expect(CBError.Code.operationNotSupported.rawValue == 13)
        #expect(CBError.Code.leGattNearBackgroundNotificationLimit.rawValue == 18)
        let e: Error = CBError(.connectionTimeout)
        #expect((e as NSError).domain == "CBErrorDomain")
        #expect((e as NSError).code == 6)
        if case CBError.connectionTimeout = e {} else { Issue.record("catch-style pattern did not match") }
        #expect((e as? CBError)?.code == CBError.connectionTimeout)
    }

    @Test func cbATTErrorKeepsEveryCode() {
        #expect(CBATTError.Code.insufficientAuthentication.rawValue == 5)
        #expect(CBATTError.Code.insufficientResources.rawValue == 0x11)
        let app = CBATTError(rawATTError: 0x80)
        #expect(app.errorCode == 0x80)
        #expect((app as NSError).domain == "CBATTErrorDomain")
        let e: Error = CBATTError(.insufficientEncryption)
        if case CBATTError.insufficientEncryption = e {} else { Issue.record("pattern did not match") }
    }

    @Test func uuidsPrintAsCoreBluetoothDoes() {
        #expect(CBUUID(string: "180d").uuidString == "180D")
        #expect(CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB").uuidString == "180D")
        #expect(CBUUID(string: "7a3e0001-1111-2222-3333-444455556666").uuidString == "7A3E0001-1111-2222-3333-444455556666")
        #expect(CBUUID(string: "180D") == CBUUID(data: Data([0x18, 0x0D])))
        #expect(CBUUID(string: "2A37").data == Data([0x2A, 0x37]))
        #expect(Set([CBUUID(string: "180D"), CBUUID(string: "180d")]).count == 1)
        #expect(CBUUID(nsuuid: UUID(uuidString: "0000180D-0000-1000-8000-00805F9B34FB")!).uuidString == "180D")
    }

    @Test func enumsAndOptionsMatchApple() {
        #expect(CBManagerState.poweredOn.rawValue == 5 && CBManagerState.unauthorized.rawValue == 3)
        #expect(CBPeripheralState.connected.rawValue == 2 && CBPeripheralState.disconnecting.rawValue == 3)
        #expect(CBCharacteristicWriteType.withoutResponse.rawValue == 1)
        #expect(CBCharacteristicProperties([.notify, .read]).rawValue == 0x12)
        #expect(CBCharacteristicProperties.indicateEncryptionRequired.rawValue == 0x200)
        #expect(CBAdvertisementDataLocalNameKey == "kCBAdvDataLocalName")
        #expect(CBCentralManagerScanOptionAllowDuplicatesKey == "kCBScanOptionAllowDuplicates")
        #expect(CBCentralManagerOptionRestoreIdentifierKey == "kCBInitOptionRestoreIdentifier")
        #expect(CBCentralManagerRestoredStatePeripheralsKey == "kCBRestoredPeripherals")
        #expect(CBConnectPeripheralOptionNotifyOnDisconnectionKey == "kCBConnectOptionNotifyOnDisconnection")
    }

    /// Outside a replay a manager is `.unknown` (iOS's state before the first update), bound to
    /// no replay, and calls nothing until a replay activates on its thread.
    @Test func managerOutsideAReplayWaitsUnbound() {
        let m = CBCentralManager(delegate: nil, queue: nil)
        #expect(m.state == .unknown)
        #expect(m.replay == nil)
        m.scanForPeripherals(withServices: nil)
        #expect(!m.isScanning)
    }
}
