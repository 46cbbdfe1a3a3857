import BLECore

/// Vendor-specific commands (OGF 0x3F) and their Command Complete events.
///
/// Core v5.4 Vol 4 Part E 5.4.1 leaves a vendor command's parameters and return parameters to
/// the vendor. The command is named by its definer where known (`HCIVendorCommand`), with the
/// sub-opcode its definer sends first; its Command Complete (7.7.14) keeps the first return byte
/// as an `HCIVendorReturn`, never as an HCI status. A Command Status (7.7.15) for a vendor
/// opcode is the spec's event and its Status the spec's code: it is decoded as any other.
extension PacketDecoder {
    /// Summary detail of a vendor command: ": " and the sub-opcode's name, for a known command
    /// that has sub-opcodes (its first parameter); "" otherwise.
    mutating func vendorCommandDetail(_ opcode: HCIOpcode, _ r: ByteReader) -> String {
        if HCIVendorCommand.isAndroid(opcode) { androidVendorHost = true }
        guard let known = HCIVendorCommand.known(opcode), let sub = r.peekUInt8(),
              let name = known.subOpcodeName(sub) else { return "" }
        return ": " + name
    }

    /// A vendor event (0xFF, 7.7.70): its sub-event named as an Android host reads it, once the
    /// host sent Android's vendor commands: " (name)", or "".
    func vendorEventDetail(_ r: ByteReader) -> String {
        guard androidVendorHost, let code = r.peekUInt8(), let name = AndroidVendorEvent(rawValue: code).name else { return "" }
        return " (" + name + ")"
    }

    /// A vendor command's Command Complete: Num_HCI_Command_Packets and Command_Opcode read;
    /// `r` at the vendor's return parameters.
    mutating func vendorCommandComplete(_ opcode: HCIOpcode, _ r: ByteReader, _ c: ConnectionRef?,
                                        _ d: inout PacketDraft) {
        let known = HCIVendorCommand.known(opcode)
        var label = opcode.name
        // The definer echoes the sub-opcode after the first return byte (AOSP reads status, subcode).
        if let known, let sub = r.peekUInt8(at: 1), let name = known.subOpcodeName(sub) { label += ": " + name }
        d.summary += " (" + label + ")"
        let result = r.peekUInt8().map { HCIVendorReturn(firstByte: $0, isStatus: known?.firstReturnIsStatus ?? false) }
        if let result, result.firstByte != 0 { d.summary += " " + result.name }
        d.events.append(.commandResult(HCICommandResult(opcode: opcode.rawValue, name: opcode.name, status: nil,
                                                        isCommandStatus: false, connection: c, vendorReturn: result)))
    }
}
