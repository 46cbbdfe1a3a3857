import BLECore
import Testing
@testable import BLEDecode

/// The decoded fields `timeline -v` / `--json` show for HCI connection events and common
/// commands (`LinkEvent.fields`): bytes built from the spec field by field, then real packets of
/// the shared captures against what tshark 4 shows for them.
@Suite("HCI decoded fields")
struct HCIDecodedFieldsTests {
    static func fields(_ p: DecodedPacket, _ name: String) throws -> [String: String] {
        let l = try #require(p.linkEvents.first { $0.name == name }, "no link event \(name) in \(p.linkEvents.map(\.name))")
        return Dictionary(l.fields, uniquingKeysWith: { a, _ in a })
    }

    /// The record of frame `n` (1-based) of a shared capture, and a decoder that has seen the frames before it.
    static func frame(_ name: String, _ n: Int) throws -> DecodedPacket {
        let capture = try #require(TestCapture.load(name), "\(name) not read")
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: capture.payloadOffsetInRecord))
        for r in capture.records.prefix(n - 1) { _ = decoder.decode(r) }
        return decoder.decode(capture.records[n - 1])
    }

    @Test func enhancedConnectionCompleteV2FromSpec() throws {
        var decoder = PacketDecoder()
        // Core v5.4 Vol 4 Part E 7.7.65.10, LE Enhanced Connection Complete [v2]:
        let bytes: [UInt8] = [0x3E, 34, 0x29]      // LE Meta, length 34, Subevent_Code 0x29
            + [0x00]                                // Status success
            + [0x42, 0x00]                          // Connection_Handle 0x0042
            + [0x01]                                // Role peripheral
            + [0x03]                                // Peer_Address_Type random identity
            + [0x66, 0x55, 0x44, 0x33, 0x22, 0xC1]  // Peer_Address C1:22:33:44:55:66
            + [0x01, 0x02, 0x03, 0x04, 0x05, 0x46]  // Local_Resolvable_Private_Address 46:05:04:03:02:01
            + [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x4F]  // Peer_Resolvable_Private_Address 4F:0E:0D:0C:0B:0A
            + [0x06, 0x00]                          // Connection_Interval 6 (7.5 ms)
            + [0x04, 0x00]                          // Peripheral_Latency 4
            + [0x48, 0x00]                          // Supervision_Timeout 72 (720 ms)
            + [0x05]                                // Central_Clock_Accuracy 0x05 (31-50 ppm)
            + [0x02]                                // Advertising_Handle 0x02
            + [0xFF, 0xFF]                          // Sync_Handle 0xFFFF
        let p = decoder.decode(Rec.evt(bytes))
        #expect(p.problems.isEmpty)
        let l = try #require(p.linkEvents.first)
        #expect(l.name == "LE Enhanced Connection Complete [v2]" && l.status == .success && !l.recordsError)
        #expect(l.fields.map(\.0) == ["handle", "role", "peer_address_type", "peer_address", "local_rpa", "peer_rpa",
                                      "interval", "interval_ms", "latency", "timeout", "timeout_ms",
                                      "central_clock_accuracy", "advertising_handle", "sync_handle"])
        let f = try Self.fields(p, l.name)
        #expect(f["handle"] == "0x0042" && f["role"] == "0x01 peripheral")
        #expect(f["peer_address_type"] == "random-identity" && f["peer_address"] == "C1:22:33:44:55:66")
        #expect(f["local_rpa"] == "46:05:04:03:02:01" && f["peer_rpa"] == "4F:0E:0D:0C:0B:0A")
        #expect(f["interval"] == "6" && f["interval_ms"] == "7.5" && f["latency"] == "4")
        #expect(f["timeout"] == "72" && f["timeout_ms"] == "720" && f["central_clock_accuracy"] == "31-50 ppm")
        #expect(f["advertising_handle"] == "0x02" && f["sync_handle"] == "0xFFFF")
    }

    @Test func failedConnectionCompleteIsNotASecondError() throws {
        var decoder = PacketDecoder()
        // 7.7.65.1 LE Connection Complete, Status 0x3E (Connection Failed to be Established)
        let p = decoder.decode(Rec.leConnectionComplete(status: 0x3E, handle: 0x0040))
        let l = try #require(p.linkEvents.first)
        #expect(l.status == HCIStatusCode(0x3E) && !l.recordsError)
        #expect(try Self.fields(p, "LE Connection Complete")["central_clock_accuracy"] == "31-50 ppm")
    }

    @Test func connectionUpdateCompleteFromSpec() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 7.7.65.3 LE Connection Update Complete:
        let bytes: [UInt8] = [0x3E, 10, 0x03]  // LE Meta, length 10, Subevent_Code 0x03
            + [0x00]                           // Status
            + [0x40, 0x00]                     // Connection_Handle 0x0040
            + [0x27, 0x00]                     // Connection_Interval 39 (48.75 ms)
            + [0x01, 0x00]                     // Peripheral_Latency 1
            + [0x2C, 0x01]                     // Supervision_Timeout 300 (3000 ms)
        let p = decoder.decode(Rec.evt(bytes))
        #expect(try Self.fields(p, "LE Connection Update Complete").sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                == ["handle=0x0040", "interval=39", "interval_ms=48.75", "latency=1", "timeout=300", "timeout_ms=3000"])
    }

    @Test func bredrConnectionCompleteFromSpec() throws {
        var decoder = PacketDecoder()
        // 7.7.3 Connection Complete:
        let bytes: [UInt8] = [0x03, 11]                 // event code, length 11
            + [0x00]                                    // Status
            + [0x0B, 0x00]                              // Connection_Handle 0x000B
            + [0x06, 0x05, 0x04, 0x03, 0x02, 0x01]      // BD_ADDR 01:02:03:04:05:06
            + [0x01]                                    // Link_Type ACL
            + [0x00]                                    // Encryption_Enabled off
        let p = decoder.decode(Rec.evt(bytes))
        let f = try Self.fields(p, "Connect Complete")   // tshark's name for 7.7.3
        #expect(f["handle"] == "0x000B" && f["bd_addr"] == "01:02:03:04:05:06")
        #expect(f["link_type"] == "0x01 ACL" && f["encryption_enabled"] == "0x00 off")
    }

    @Test func extendedCreateConnectionFromSpec() throws {
        var decoder = PacketDecoder()
        // 7.8.66 LE Extended Create Connection [v1], one PHY (LE 1M):
        let params: [UInt8] = [0x00]                    // Initiator_Filter_Policy: peer address
            + [0x01]                                    // Own_Address_Type random
            + [0x01]                                    // Peer_Address_Type random
            + [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0]      // Peer_Address C0:11:22:33:44:55
            + [0x01]                                    // Initiating_PHYs LE 1M
            + [0x60, 0x00]                              // Scan_Interval 96 (60 ms)
            + [0x30, 0x00]                              // Scan_Window 48 (30 ms)
            + [0x18, 0x00]                              // Connection_Interval_Min 24 (30 ms)
            + [0x28, 0x00]                              // Connection_Interval_Max 40 (50 ms)
            + [0x00, 0x00]                              // Max_Latency 0
            + [0xF4, 0x01]                              // Supervision_Timeout 500 (5000 ms)
            + [0x00, 0x00, 0x00, 0x00]                  // Min_CE_Length, Max_CE_Length 0
        let p = decoder.decode(Rec.cmd([0x43, 0x20, UInt8(params.count)] + params))
        #expect(p.problems.isEmpty)
        #expect(p.summary == "Sent LE Extended Create Connection [v1] peer C0:11:22:33:44:55 (random) phys 1M scan interval 60 ms window 30 ms interval 30-50 ms latency 0 timeout 5000 ms")
        let f = try Self.fields(p, "LE Extended Create Connection [v1]")
        #expect(f["peer_address"] == "C0:11:22:33:44:55" && f["initiating_phys"] == "1M")
        #expect(f["1m_scan_interval"] == "96" && f["1m_scan_interval_ms"] == "60" && f["1m_scan_window_ms"] == "30")
        #expect(f["1m_interval_min_ms"] == "30" && f["1m_interval_max_ms"] == "50" && f["1m_timeout_ms"] == "5000")
        #expect(p.commands.first?.peerAddress == BluetoothAddress("C0:11:22:33:44:55"))
    }

    @Test func disconnectionCompleteAndCompletedPacketsFromSpec() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 7.7.19 Number Of Completed Packets: Num_Handles 1, Connection_Handle 0x0040, Num_Completed_Packets 3.
        // No link event (one every few ACL packets would cost the import a row each): the summary says it.
        let n = decoder.decode(Rec.evt([0x13, 5, 0x01, 0x40, 0x00, 0x03, 0x00]))
        #expect(n.linkEvents.isEmpty)
        #expect(n.summary == "Rcvd Number of Completed Packets 0x0040: 3")
        // 7.7.5 Disconnection Complete: Status 0, Connection_Handle 0x0040, Reason 0x13
        let d = decoder.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x13))
        let f = try Self.fields(d, "Disconnect Complete")
        #expect(f["handle"] == "0x0040" && f["reason"] == "0x13 Remote User Terminated Connection")
        #expect(d.linkEvents.first?.recordsError == false)
    }

    @Test func scanParametersAndReadBufferSizeFromSpec() throws {
        var decoder = PacketDecoder()
        // 7.8.64 LE Set Extended Scan Parameters: Own_Address_Type 0x01, Scanning_Filter_Policy 0x00,
        // Scanning_PHYs 0x05 (1M, Coded), then per PHY Scan_Type, Scan_Interval, Scan_Window
        let params: [UInt8] = [0x01, 0x00, 0x05]
            + [0x01, 0x12, 0x00, 0x12, 0x00]   // 1M: active, 18 (11.25 ms), 18
            + [0x00, 0x00, 0x08, 0x00, 0x01]   // Coded: passive, 2048 (1280 ms), 256 (160 ms)
        let s = decoder.decode(Rec.cmd([0x41, 0x20, UInt8(params.count)] + params))
        let f = try Self.fields(s, "LE Set Extended Scan Parameters")
        #expect(f["scanning_phys"] == "1M|Coded" && f["1m_scan_type"] == "0x01 active" && f["1m_scan_interval_ms"] == "11.25")
        #expect(f["coded_scan_type"] == "0x00 passive" && f["coded_scan_interval_ms"] == "1280" && f["coded_scan_window_ms"] == "160")
        // 7.7.14 Command Complete for 7.8.2 LE Read Buffer Size [v2]: Num_HCI_Command_Packets 1,
        // opcode 0x2060, Status 0, LE_ACL_Data_Packet_Length 251, Total_Num_LE_ACL_Data_Packets 15,
        // ISO_Data_Packet_Length 960, Total_Num_ISO_Data_Packets 24
        let c = decoder.decode(Rec.evt([0x0E, 10, 0x01, 0x60, 0x20, 0x00, 0xFB, 0x00, 0x0F, 0xC0, 0x03, 0x18]))
        let r = try Self.fields(c, "Command Complete (LE Read Buffer Size [v2])")
        #expect(r["le_acl_data_packet_length"] == "251" && r["total_num_le_acl_data_packets"] == "15")
        #expect(r["iso_data_packet_length"] == "960" && r["total_num_iso_data_packets"] == "24")
    }

    // MARK: - Real packets; the expected values are what `tshark -r FILE -Y "frame.number==N" -V` shows.

    @Test func yeelockEnhancedConnectionCompleteMatchesTshark() throws {
        // tshark, android-yeelock.btsnoop #442: Status Success, Connection Handle 0x003a, Role Master (0x00),
        // Peer Address Type Public, BD_ADDR 60:c0:bf:1a:19:75, Local RPA 63:8c:ce:17:55:4a,
        // Peer RPA 00:00:00:00:00:00, Connection Interval 36 (45 msec), Latency 0,
        // Supervision Timeout 500 (5 sec), Master Clock Accuracy 251-500 ppm (0x00)
        let f = try Self.fields(try Self.frame("android-yeelock.btsnoop", 442), "LE Enhanced Connection Complete")
        #expect(f["handle"] == "0x003A" && f["role"] == "0x00 central" && f["peer_address_type"] == "public")
        #expect(f["peer_address"] == "60:C0:BF:1A:19:75" && f["local_rpa"] == "63:8C:CE:17:55:4A" && f["peer_rpa"] == "00:00:00:00:00:00")
        #expect(f["interval"] == "36" && f["interval_ms"] == "45" && f["latency"] == "0")
        #expect(f["timeout"] == "500" && f["timeout_ms"] == "5000" && f["central_clock_accuracy"] == "251-500 ppm")
    }

    @Test func yeelockConnectionUpdateCompleteMatchesTshark() throws {
        // tshark, android-yeelock.btsnoop #464: Connection Handle 0x003a, Connection Interval 6 (7.5 msec),
        // Connection Latency 0, Supervision Timeout 500 (5 sec)
        let f = try Self.fields(try Self.frame("android-yeelock.btsnoop", 464), "LE Connection Update Complete")
        #expect(f["handle"] == "0x003A" && f["interval"] == "6" && f["interval_ms"] == "7.5")
        #expect(f["latency"] == "0" && f["timeout"] == "500" && f["timeout_ms"] == "5000")
    }

    @Test func pongbotExtendedCreateConnectionMatchesTshark() throws {
        // tshark, android-pongbot.btsnoop #654: Initiator Filter Policy 0x01 (white list), Own Address Type
        // Random, Peer Address Type Public, BD_ADDR 00:00:00:00:00:00, Initiating PHYs 0x07 (1M, 2M, Coded),
        // each PHY: Scan Interval 2048 (1280 msec), Scan Window 192 (120 msec), Connection Interval Min
        // 24 (30 msec), Max 40 (50 msec), Max Connection Latency 0, Supervision Timeout 500 (5 sec),
        // Min/Max CE Length 0
        let p = try Self.frame("android-pongbot.btsnoop", 654)
        #expect(p.summary == "Sent LE Extended Create Connection [v1] (filter accept list) phys 1M|2M|Coded scan interval 1280 ms window 120 ms interval 30-50 ms latency 0 timeout 5000 ms")
        let f = try Self.fields(p, "LE Extended Create Connection [v1]")
        #expect(f["initiator_filter_policy"] == "0x01" && f["own_address_type"] == "random")
        #expect(f["peer_address_type"] == "public" && f["initiating_phys"] == "1M|2M|Coded")
        for phy in ["1m", "2m", "coded"] {
            #expect(f["\(phy)_scan_interval"] == "2048" && f["\(phy)_scan_interval_ms"] == "1280")
            #expect(f["\(phy)_scan_window"] == "192" && f["\(phy)_scan_window_ms"] == "120")
            #expect(f["\(phy)_interval_min"] == "24" && f["\(phy)_interval_min_ms"] == "30")
            #expect(f["\(phy)_interval_max"] == "40" && f["\(phy)_interval_max_ms"] == "50")
            #expect(f["\(phy)_latency"] == "0" && f["\(phy)_timeout"] == "500" && f["\(phy)_timeout_ms"] == "5000")
            #expect(f["\(phy)_min_ce_length"] == "0" && f["\(phy)_max_ce_length"] == "0")
        }
    }

    @Test func glassesEnhancedConnectionCompleteV2() throws {
        // ios-glasses.pklg #207, LE Enhanced Connection Complete [v2] (tshark 4.0 shows only
        // "Sub Event: Unknown (0x29)"; the bytes: 00 | 45 00 | 00 | 01 | 30 6E C7 CC 64 E4 | 00 x12 |
        // 18 00 | 00 00 | 48 00 | 00 | FF | FF FF)
        let f = try Self.fields(try Self.frame("ios-glasses.pklg", 207), "LE Enhanced Connection Complete [v2]")
        #expect(f["handle"] == "0x0045" && f["role"] == "0x00 central" && f["peer_address_type"] == "random")
        #expect(f["peer_address"] == "E4:64:CC:C7:6E:30" && f["interval_ms"] == "30" && f["timeout_ms"] == "720")
        #expect(f["advertising_handle"] == "0xFF" && f["sync_handle"] == "0xFFFF")
    }

    @Test func yeelockScanParametersAndBufferSizesMatchTshark() throws {
        // tshark, android-yeelock.btsnoop #282 LE Set Scan Parameters: Scan Type Active (0x01), Scan Interval
        // 18 (11.25 msec), Scan Window 18 (11.25 msec), Own Address Type 0x03, Scan Filter Policy 0x00
        let s = try Self.fields(try Self.frame("android-yeelock.btsnoop", 282), "LE Set Scan Parameters")
        #expect(s["scan_type"] == "0x01 active" && s["scan_interval"] == "18" && s["scan_interval_ms"] == "11.25")
        #expect(s["scan_window_ms"] == "11.25" && s["own_address_type"] == "rpa-or-random" && s["scanning_filter_policy"] == "0x00")
        // #5 Read Buffer Size: ACL Data Packet Length 1021, SCO 0, Total Num ACL 26, Total Num SCO 0
        let b = try Self.fields(try Self.frame("android-yeelock.btsnoop", 5), "Command Complete (Read Buffer Size)")
        #expect(b["acl_data_packet_length"] == "1021" && b["synchronous_data_packet_length"] == "0")
        #expect(b["total_num_acl_data_packets"] == "26" && b["total_num_synchronous_data_packets"] == "0")
        // #29 LE Read Buffer Size [v1]: LE ACL Data Packet Length 1021, Total Number LE ACL Data Packets 4
        let le = try Self.fields(try Self.frame("android-yeelock.btsnoop", 29), "Command Complete (LE Read Buffer Size [v1])")
        #expect(le["le_acl_data_packet_length"] == "1021" && le["total_num_le_acl_data_packets"] == "4")
    }
}
