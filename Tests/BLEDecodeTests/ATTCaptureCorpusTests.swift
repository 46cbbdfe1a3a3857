import BLECore
import BLEDecode
import Testing

/// Real ATT PDUs from ../shared/captures with the Info column Wireshark 4.0.17 shows for them
/// (`tshark -r CAPTURE -Y btatt -T fields -e _ws.col.Info`, PDU bytes from `btl2cap.payload`
/// with the ATT dissector disabled).
///
/// Our summary is Wireshark's without the GATT context Wireshark adds from earlier packets:
/// the parenthesised attribute path, and the handle it copies from a request into its
/// response. So after dropping the direction and the parentheses, ours must be a prefix of
/// Wireshark's. (A one-off run over all 1465 undamaged ATT PDUs of five captures found no
/// other difference than two deliberate ones: 128-bit UUIDs Wireshark calls "Unknown" are
/// printed as UUIDs, and application error codes carry their value.)
@Suite("ATT against Wireshark")
struct ATTCaptureCorpusTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var capture: String
        var hex: String
        var wireshark: String
        var testDescription: String { "\(capture) \(hex.prefix(16))" }
    }

    static let samples: [Sample] = [
        Sample(capture: "android-pongbot.btsnoop", hex: "010801000a", wireshark: "Rcvd Error Response - Attribute Not Found, Handle: 0x0001 (Generic Attribute)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "01081a000a", wireshark: "Sent Error Response - Attribute Not Found, Handle: 0x001a (Unknown: Central Address Resolution)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "020502", wireshark: "Sent Exchange MTU Request, Client Rx MTU: 517"),
        Sample(capture: "sniffle-gatt.pcap", hex: "02f700", wireshark: "Rcvd Exchange MTU Request, Client Rx MTU: 247"),
        Sample(capture: "android-pongbot.btsnoop", hex: "037300", wireshark: "Rcvd Exchange MTU Response, Server Rx MTU: 115"),
        Sample(capture: "sniffle-gatt.pcap", hex: "032400", wireshark: "Sent Exchange MTU Response, Server Rx MTU: 36"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0404000400", wireshark: "Sent Find Information Request, Handles: 0x0004..0x0004"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0404000400", wireshark: "Rcvd Find Information Request, Handles: 0x0004..0x0004"),
        Sample(capture: "android-pongbot.btsnoop", hex: "050104000229", wireshark: "Rcvd Find Information Response, Handle: 0x0004 (Generic Attribute: Service Changed: Client Characteristic Configuration)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "05010c0002290d000129", wireshark: "Rcvd Find Information Response, Handle: 0x000c (Unknown: Unknown: Client Characteristic Configuration), Handle: 0x000d (Unknown: Unknown: Characteristic User Description)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "060100ffff00280018", wireshark: "Rcvd Find By Type Value Request, Primary Service, Handles: 0x0001..0xffff"),
        Sample(capture: "android-pongbot.btsnoop", hex: "060100ffff0028a8de01b00791cea31a49a5f600fb0f44", wireshark: "Rcvd Find By Type Value Request, Primary Service, Handles: 0x0001..0xffff"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0714001a00", wireshark: "Sent Find By Type Value Response"),
        Sample(capture: "android-lock-pairing.btsnoop", hex: "0701000400", wireshark: "Rcvd Find By Type Value Response"),
        Sample(capture: "android-pongbot.btsnoop", hex: "080100ffff002a", wireshark: "Sent Read By Type Request, Device Name, Handles: 0x0001..0xffff"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0814001a000328", wireshark: "Rcvd Read By Type Request, Characteristic, Handles: 0x0014..0x001a"),
        Sample(capture: "android-pongbot.btsnoop", hex: "09020700", wireshark: "Rcvd Read By Type Response, Attribute List Length: 1"),
        Sample(capture: "android-pongbot.btsnoop", hex: "090409000000", wireshark: "Rcvd Read By Type Response, Attribute List Length: 1"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0aa400", wireshark: "Rcvd Read Request, Handle: 0x00a4 (Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0a5200", wireshark: "Sent Read Request, Handle: 0x0052 (Unknown: Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0b01", wireshark: "Sent Read Response, Handle: 0x00a4 (Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "0bac2f264581824be591e02992e6b40ebb", wireshark: "Rcvd Read Response, Handle: 0x0052 (Unknown: Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "100100ffff0028", wireshark: "Sent Read By Group Type Request, Primary Service, Handles: 0x0001..0xffff"),
        Sample(capture: "android-pongbot.btsnoop", hex: "110601000400011805000d0000180e000e000a18", wireshark: "Rcvd Read By Group Type Response, Attribute List Length: 3, Generic Attribute, Generic Access, Device Information"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1106010005000018", wireshark: "Rcvd Read By Group Type Response, Attribute List Length: 1, Generic Access"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1228000100", wireshark: "Sent Write Request, Handle: 0x0028 (Unknown: Unknown: Client Characteristic Configuration)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "12270011", wireshark: "Sent Write Request, Handle: 0x0027 (Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "13", wireshark: "Rcvd Write Response, Handle: 0x0028 (Unknown: Unknown: Client Characteristic Configuration)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "13", wireshark: "Sent Write Response, Handle: 0x00a2 (Unknown: Unknown: Client Characteristic Configuration)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1801", wireshark: "Sent Execute Write Request, Immediately Write All"),
        Sample(capture: "android-pongbot.btsnoop", hex: "19", wireshark: "Rcvd Execute Write Response"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1b170068df1fbc4fda113783a7d7d3915889", wireshark: "Rcvd Handle Value Notification, Handle: 0x0017 (Unknown: Device Name: Characteristic)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1b1700c9022bdf5390300199fa46258e237529c7890900", wireshark: "Rcvd Handle Value Notification, Handle: 0x0017 (Unknown: Device Name: Characteristic)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1e", wireshark: "Sent Handle Value Confirmation, Handle: 0x000b (Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "52420047", wireshark: "Sent Write Command, Handle: 0x0042 (Unknown: Unknown: Unknown)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "5242008100000808", wireshark: "Sent Write Command, Handle: 0x0042 (Unknown: Unknown: Unknown)"),
        Sample(capture: "android-lock-pairing.btsnoop", hex: "01123f0005",
               wireshark: "Rcvd Error Response - Insufficient Authentication, Handle: 0x003f (Unknown: Unknown)"),
        Sample(capture: "sniffle-gatt.pcap", hex: "010a030002",
               wireshark: "Rcvd Error Response - Read Not Permitted, Handle: 0x0003 (Unknown: Unknown: Service Changed)"),
        Sample(capture: "android-pongbot.btsnoop", hex: "1d0b00001f1a1d12160a14d3013035dac39340347f0ad968424fa32a2a15411802220101",
               wireshark: "Rcvd Handle Value Indication, Handle: 0x000b (Unknown: Unknown)"),
    ]

    /// Drops `Sent `/`Rcvd `, every ` (…)` group, and case.
    static func normalized(_ info: String) -> String {
        var text = Substring(info)
        for prefix in ["Sent ", "Rcvd ", "UnknownDirection "] where text.hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
        var out = ""
        var depth = 0
        var previous: Character = "x"
        for c in text {
            if c == "(" && previous == " " { depth += 1; out.removeLast() } else if depth > 0 { if c == ")" { depth -= 1 } } else { out.append(c) }
            previous = c
        }
        return out.lowercased()
    }

    @Test("decodes, re-encodes, and reads as Wireshark does", arguments: samples)
    func sample(_ s: Sample) throws {
        let raw = bytes(hex: s.hex)
        let pdu = try ATTPDU(decoding: raw[...])
        #expect(pdu.encoded() == raw)
        let ours = Self.normalized(pdu.summary), theirs = Self.normalized(s.wireshark)
        #expect(theirs.hasPrefix(ours), "ours: \(ours) | Wireshark: \(theirs)")
    }

    @Test("the normalisation")
    func normalization() {
        #expect(Self.normalized("Rcvd Write Response, Handle: 0x0028 (Unknown: Unknown: Client Characteristic Configuration)")
                == "write response, handle: 0x0028")
        #expect(Self.normalized("Sent Read By Type Request, Characteristic, Handles: 0x0001..0xffff")
                == "read by type request, characteristic, handles: 0x0001..0xffff")
    }
}
