import BLECore
import BLEDecode
import Testing

@Suite("ATT opcodes")
struct ATTOpcodeTests {
    /// Names as `tshark -G values` (Wireshark 4.0.17) prints `btatt.opcode`; 0x20, 0x21 and 0x23
    /// as newer Wireshark (4.2) names them.
    static let wiresharkNames: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request",
        0x0B: "Read Response", 0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
        0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response",
        0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request",
        0x17: "Prepare Write Response", 0x18: "Execute Write Request", 0x19: "Execute Write Response",
        0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication",
        0x1E: "Handle Value Confirmation", 0x20: "Read Multiple Variable Request",
        0x21: "Read Multiple Variable Response", 0x23: "Multiple Handle Value Notification",
        0x52: "Write Command", 0xD2: "Signed Write Command",
    ]

    @Test("every byte has a name; assigned ones as Wireshark spells them")
    func names() {
        for raw in UInt8.min...UInt8.max {
            let op = ATTOpcode(raw)
            if let expected = Self.wiresharkNames[raw] {
                #expect(op.name == expected)
                #expect(op.kind != .unknown)
            } else {
                #expect(op.name == "Unknown (\(hex(raw)))")
                #expect(op.kind == .unknown)
                #expect(op.specName == nil)
            }
        }
        #expect(ATTOpcode.allAssigned.count == Self.wiresharkNames.count)
        #expect(ATTOpcode(0x14).name == "Unknown (0x14)")
    }

    @Test("bit fields: method, command, signature")
    func bits() {
        #expect(ATTOpcode.writeCommand.method == 0x12)
        #expect(ATTOpcode.writeCommand.isCommand)
        #expect(!ATTOpcode.writeCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.signedWriteCommand.method == 0x12)
        #expect(ATTOpcode.signedWriteCommand.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(!ATTOpcode.writeRequest.isCommand)
    }

    static let expectedKinds: [(ATTOpcode, ATTOpcode.Kind)] = [
        (.errorResponse, .response), (.exchangeMTURequest, .request), (.exchangeMTUResponse, .response),
        (.readByGroupTypeRequest, .request), (.writeCommand, .command), (.signedWriteCommand, .command),
        (.handleValueNotification, .notification), (.multipleHandleValueNotification, .notification),
        (.handleValueIndication, .indication), (.handleValueConfirmation, .confirmation),
        (.readMultipleVariableRequest, .request), (.readMultipleVariableResponse, .response),
        (.executeWriteResponse, .response), (ATTOpcode(0x14), .unknown),
    ]

    @Test("classification")
    func kinds() {
        for (op, kind) in Self.expectedKinds { #expect(op.kind == kind, "\(op)") }
    }

    @Test("every request names its response, and the response names it back")
    func pairing() {
        let requests = ATTOpcode.allAssigned.filter { $0.kind == .request }
        #expect(requests.count == 12)
        for request in requests {
            let response = request.responseOpcode
            #expect(response?.kind == .response, "\(request)")
            #expect(response?.requestOpcode == request)
            #expect(response?.name == request.name.replacing("Request", with: "Response"))
        }
        #expect(ATTOpcode.errorResponse.requestOpcode == nil)
        #expect(ATTOpcode.handleValueIndication.responseOpcode == .handleValueConfirmation)
        #expect(ATTOpcode.handleValueConfirmation.requestOpcode == .handleValueIndication)
        #expect(ATTOpcode.writeCommand.responseOpcode == nil)
        #expect(ATTOpcode.handleValueNotification.responseOpcode == nil)
        #expect(ATTOpcode(0x14).responseOpcode == nil)
    }
}
