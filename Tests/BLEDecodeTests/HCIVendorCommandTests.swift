import Testing
import BLECore
@testable import BLEDecode

/// Vendor-specific commands (OGF 0x3F, Core v5.4 Vol 4 Part E 5.4.1): named by their definer,
/// and their Command Complete's first return byte kept as the vendor's, never as an HCI status.
/// Bytes as AOSP sends and parses them (`hcidefs.h`, `btm_ble_adv_filter.cc` / `btm_flt_update_cb`).
@Suite struct HCIVendorCommandTests {
    @Test func androidAdvertisingFilterIsNamedWithItsSubOpcode() throws {
        var decoder = PacketDecoder()
        // 57 FD opcode 0xFD57 (OGF 0x3F, OCF 0x157: HCI_BLE_ADV_FILTER) | 03 length |
        // 01 APCF sub-opcode Feature Select | 01 action (delete) | 00 filter index
        let command = decoder.decode(Rec.cmd(hx("57 FD 03 01 01 00")))
        #expect(command.summary == "Sent Android LE Advertising Filter: Feature Select")
        #expect(command.commands.first?.name == "Android LE Advertising Filter")
        #expect(command.commands.first?.opcode == 0xFD57)
    }

    /// APCF sub-opcode 0xFF reads the controller's extended APCF features (Android's HCI
    /// requirements, "LE_APCF_Command": 0xFF APCF Read Extended Features).
    @Test func androidAdvertisingFilterReadExtendedFeaturesIsNamed() throws {
        var decoder = PacketDecoder()
        // 57 FD opcode 0xFD57 | 01 length | FF APCF sub-opcode Read Extended Features
        let command = decoder.decode(Rec.cmd(hx("57 FD 01 FF")))
        #expect(command.summary == "Sent Android LE Advertising Filter: Read Extended Features")
    }

    @Test func vendorStatusIsNotAnHCIStatus() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.cmd(hx("57 FD 03 01 01 00")))
        // 0E 07 Command Complete | 01 Num_HCI_Command_Packets | 57 FD opcode | then the vendor's
        // return parameters as AOSP reads them: 17 status (0x17, not HCI "Repeated Attempts") |
        // 01 sub-opcode Feature Select | 01 action | 0D available filter slots
        let complete = decoder.decode(Rec.evt(hx("0E 07 01 57 FD 17 01 01 0D")))
        #expect(complete.summary == "Rcvd Command Complete (Android LE Advertising Filter: Feature Select) vendor status 0x17")
        let r = try #require(complete.commandResults.first)
        #expect(r.status == nil)
        #expect(r.vendorReturn == HCIVendorReturn(firstByte: 0x17, isStatus: true))
        #expect(r.vendorReturn?.isFailure == true)
        #expect(!complete.summary.contains("Repeated Attempts"))
        // Success: 00, no suffix, nothing failed.
        _ = decoder.decode(Rec.cmd(hx("57 FD 03 01 01 00")))
        let ok = decoder.decode(Rec.evt(hx("0E 07 01 57 FD 00 01 01 0D")))
        #expect(ok.summary == "Rcvd Command Complete (Android LE Advertising Filter: Feature Select)")
        #expect(ok.commandResults.first?.vendorReturn?.isFailure == false)
    }

    @Test func unknownVendorCommandKeepsItsOCFAndAnUndocumentedByte() throws {
        var decoder = PacketDecoder()
        // 17 FC opcode 0xFC17 (OGF 0x3F, OCF 0x017) | 09 length | 9 parameter bytes
        let command = decoder.decode(Rec.cmd(hx("17 FC 09 16 03 02 01 00 04 02 01 00")))
        #expect(command.summary == "Sent Vendor 0xFC17 (OCF 0x017)")
        // 0E 04 | 01 | 17 FC | 01 first return byte: nobody here documents what it is
        let complete = decoder.decode(Rec.evt(hx("0E 04 01 17 FC 01")))
        #expect(complete.summary == "Rcvd Command Complete (Vendor 0xFC17 (OCF 0x017)) vendor-defined return 0x01")
        let r = try #require(complete.commandResults.first)
        #expect(r.status == nil && r.vendorReturn == HCIVendorReturn(firstByte: 0x01, isStatus: false))
        #expect(r.vendorReturn?.isFailure == false)
        // 0E 03 | 01 | 17 FC: no return parameters at all, nothing to keep
        let empty = decoder.decode(Rec.evt(hx("0E 03 01 17 FC")))
        #expect(empty.commandResults.first?.vendorReturn == nil && empty.commandResults.first?.status == nil)
    }

    @Test func commandStatusOfAVendorCommandIsTheSpecsStatus() throws {
        var decoder = PacketDecoder()
        // 54 FD opcode 0xFD54 HCI_BLE_MULTI_ADV | 02 | 05 sub-opcode Enable | 01
        let command = decoder.decode(Rec.cmd(hx("54 FD 02 05 01")))
        #expect(command.summary == "Sent Android LE Multi Advertising: Enable")
        // 0F 04 Command Status (7.7.15, the spec's event) | 01 Status Unknown HCI Command |
        // 01 Num_HCI_Command_Packets | 54 FD
        let status = decoder.decode(Rec.evt(hx("0F 04 01 01 54 FD")))
        #expect(status.summary == "Rcvd Command Status (Android LE Multi Advertising) status 0x01 Unknown HCI Command")
        let r = try #require(status.commandResults.first)
        #expect(r.isCommandStatus && r.status == .unknownHCICommand && r.vendorReturn == nil)
    }

    @Test(arguments: [
        (UInt16(0xFD53), "Android LE Get Vendor Capabilities", true), (0xFD54, "Android LE Multi Advertising", true),
        (0xFD56, "Android LE Batch Scan", true), (0xFD57, "Android LE Advertising Filter", true),
        (0xFD58, "Android LE Track Advertiser", false), (0xFD59, "Android LE Energy Info", true),
        (0xFD5A, "Android LE Extended Scan Parameters", false), (0xFD5B, "Android Controller Debug Info", false),
        (0xFD5D, "Android A2DP Offload", false), (0xFD5E, "Android Bluetooth Quality Report", true),
        (0xFD5F, "Android Dynamic Audio Buffer", false), (0xFC57, "Broadcom Set ACL Priority", false),
    ])
    func aospVendorOpcodes(opcode: UInt16, name: String, statusFirst: Bool) {
        let op = HCIOpcode(opcode)
        #expect(op.isVendorSpecific && op.ogf == 0x3F)
        #expect(op.name == name)
        #expect(HCIVendorCommand.known(op)?.firstReturnIsStatus == statusFirst)
    }

    @Test func vendorEventIsNamedAsAnAndroidHostReadsIt() {
        // FF 05 vendor event (7.7.70) | 58 sub-event HCI_VSE_SUBCODE_BQR_SUB_EVT | 01 Quality_Report_Id
        // (monitor mode) | 02 03 04: the rest of the report
        let bqr = hx("FF 05 58 01 02 03 04")
        // A host that sent no Android vendor command: another vendor's event may start with 0x58.
        var other = PacketDecoder()
        #expect(other.decode(Rec.evt(bqr)).summary == "Rcvd Vendor event")
        // An Android host: 5E FD HCI_CONTROLLER_BQR | 07 | 01 Report_Action add | 1F 00 00 00 mask | 00 00 interval
        var android = PacketDecoder()
        _ = android.decode(Rec.cmd(hx("5E FD 07 01 1F 00 00 00 00 00")))
        let named = android.decode(Rec.evt(bqr))
        #expect(named.summary == "Rcvd Vendor event (Android Bluetooth Quality Report)")
        #expect(named.events.isEmpty && named.problems.isEmpty)
        // A sub-event AOSP does not define stays unnamed: FF 02 | 90 | 12
        #expect(android.decode(Rec.evt(hx("FF 02 90 12"))).summary == "Rcvd Vendor event")
        // 0x54-0x57 as hcidefs.h defines them
        #expect(AndroidVendorEvent.batchScanThreshold.name == "Android LE Batch Scan Threshold")
        #expect(AndroidVendorEvent.multiAdvertisingStateChange.name == "Android LE Multi Advertising State Change")
        #expect(AndroidVendorEvent.advertisementTracking.name == "Android LE Advertisement Tracking")
        #expect(AndroidVendorEvent.debugInfo.name == "Android Controller Debug Info")
    }

    @Test func everyPrefixOfAVendorCommandCompleteDecodes() {
        let event = hx("0E 07 01 57 FD 17 01 01 0D")
        for n in 0...event.count {
            var decoder = PacketDecoder()
            let d = decoder.decode(Rec.evt(Array(event.prefix(n))))
            // Whatever is cut, no HCI status is ever made from the vendor's bytes.
            #expect(d.commandResults.allSatisfy { $0.status == nil }, "prefix \(n)")
            if n >= 6 { #expect(d.commandResults.first?.vendorReturn?.firstByte == 0x17, "prefix \(n)") }
        }
    }
}
