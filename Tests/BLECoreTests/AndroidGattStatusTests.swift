import Testing
import BLECore

/// The statuses an Android app's BluetoothGattCallback receives, against AOSP's numbers:
/// stack/include/gatt_api.h (`tGATT_STATUS`, `tGATT_DISCONN_REASON`), stack/include/hcidefs.h
/// (`HCI_ERR_*`) and framework/java/android/bluetooth/BluetoothGatt.java (`GATT_*`).
@Suite("Android GATT statuses")
struct AndroidGattStatusTests {
    /// HCI disconnect reason -> onConnectionStateChange status: the reason itself, named as
    /// gatt_api.h names it (GATT_CONN_TIMEOUT = HCI_ERR_CONNECTION_TOUT = 0x08, …).
    @Test(arguments: [
        (UInt8(0x08), 8, "GATT_CONN_TIMEOUT"), (0x13, 19, "GATT_CONN_TERMINATE_PEER_USER"),
        (0x16, 22, "GATT_CONN_TERMINATE_LOCAL_HOST"), (0x22, 34, "GATT_CONN_LMP_TIMEOUT"),
        (0x3E, 62, "GATT_CONN_FAIL_ESTABLISH"), (0x15, 21, "GATT_CONN_TERMINATED_POWER_OFF"),
    ])
    func linkReasonsPassThroughNamed(_ reason: UInt8, _ status: Int, _ name: String) {
        let s = AndroidGattStatus.disconnect(reason: HCIStatusCode(reason))
        #expect(s.status == status)
        #expect(s.name == name)
    }

    /// A reason gatt_api.h does not name still reaches the app, as its number.
    @Test func anUnnamedReasonKeepsItsNumber() {
        let s = AndroidGattStatus.disconnect(reason: HCIStatusCode(0x14))
        #expect(s.status == 20)
        #expect(s.name == nil)
        #expect(s.description == "20")
    }

    /// BluetoothGatt.java's public constants and gatt_api.h's GATT_ERROR.
    @Test func frameworkConstants() {
        #expect(AndroidGattStatus.success.status == 0)
        #expect(AndroidGattStatus.error.status == 133 && AndroidGattStatus.error.name == "GATT_ERROR")
        #expect(AndroidGattStatus.connectionCongested.status == 0x8F)
        #expect(AndroidGattStatus.connectionTimeout.status == 147 && AndroidGattStatus.connectionTimeout.tentative)
        #expect(AndroidGattStatus.failure.status == 0x101)
        #expect(AndroidGattStatus.connCancel.status == 0x100)
        #expect(AndroidGattStatus.connL2CFailure.status == 1)
    }

    /// ATT Error Response -> read/write/descriptor callback status (Core v5.4 Vol 3 Part F 3.4.1.1
    /// codes; BluetoothGatt.java names where it publishes them).
    @Test(arguments: [
        (UInt8(0x02), "GATT_READ_NOT_PERMITTED"), (0x03, "GATT_WRITE_NOT_PERMITTED"),
        (0x05, "GATT_INSUFFICIENT_AUTHENTICATION"), (0x06, "GATT_REQUEST_NOT_SUPPORTED"),
        (0x07, "GATT_INVALID_OFFSET"), (0x08, "GATT_INSUFFICIENT_AUTHORIZATION"),
        (0x0D, "GATT_INVALID_ATTRIBUTE_LENGTH"), (0x0F, "GATT_INSUFFICIENT_ENCRYPTION"),
        (0x01, "GATT_INVALID_HANDLE"), (0x0A, "GATT_NOT_FOUND"), (0xFD, "GATT_CCC_CFG_ERR"),
    ])
    func attErrorsKeepTheirCode(_ code: UInt8, _ name: String) {
        let s = AndroidGattStatus.att(ATTErrorCode(code))
        #expect(s.status == Int(code))
        #expect(s.name == name)
    }

    /// Application errors pass through unnamed: 0x85 is also the stack's GATT_ERROR (133).
    @Test func applicationErrorsPassThroughUnnamed() {
        for code in UInt8(0x80)...0x9F {
            let s = AndroidGattStatus.att(ATTErrorCode(code))
            #expect(s.status == Int(code))
            #expect(s.name == nil)
        }
        #expect(AndroidGattStatus.att(ATTErrorCode(0x85)).status == AndroidGattStatus.error.status)
    }

    /// Names only newer gatt_api.h files give are marked tentative.
    @Test func versionDependentNamesAreTentative() {
        #expect(AndroidGattStatus.att(ATTErrorCode(0x12)).tentative)
        #expect(!AndroidGattStatus.att(ATTErrorCode(0x02)).tentative)
        #expect(AndroidGattStatus.connFailEstablish.tentative)
        #expect(!AndroidGattStatus.connTimeout.tentative)
    }
}
