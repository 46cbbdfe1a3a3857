import BLECore
import BLEDecode
import BLEAnalysis

/// Reads the recording never made (Docs/replay.md "Values the recording never showed"), with
/// `--unmatched database`: a Read Request gets, in this order,
///
/// 0. a characteristic without the Read property: Read Not Permitted, as its server answers;
///    a Client Characteristic Configuration descriptor of a link not encrypted (a client that is
///    not bonded), what this central wrote to it on this link, else the default 0x0000: each
///    client has its own configuration, reset at each connection with a non-bonded client (Core
///    v5.4 Vol 3 Part G 3.3.3.3), so never what the recorded central had written;
/// 1. what the central wrote to the attribute on this link (the emulator keeps it);
/// 2. the value this recorded connection shows for it at this moment (ValueHistory: the latest
///    value the peripheral sent for it in any response, notification or indication, or an
///    accepted write, at or before the same offset from the connection start), never a later
///    one, never another connection's; a long one is served whole, its Read Blob Requests
///    answered from it;
/// 3. the GATT database's value (the last one the recording shows, over all connections);
/// 4. for a characteristic value or descriptor no recording ever showed, the policy
///    `ReplayConfiguration.unrecordedValues` (an ATT error by default), noted in
///    `ReplayWorld.unrecordedReads`: never an empty value presented as real.
extension PeerSession {
    enum UnrecordedRead {
        case answer([UInt8])
        case silent
    }

    func unrecordedRead(_ pdu: [UInt8]) -> UnrecordedRead? {
        guard pdu.count == 3, pdu[0] == ATTOpcode.readRequest.rawValue else { return nil }
        let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        if emulator.written[handle] != nil { return nil }
        let db = emulator.database
        if !link.isEncrypted, isClientConfiguration(handle, in: db) {
            return .answer([ATTOpcode.readResponse.rawValue] + (occasionalState?.cccdValues[handle] ?? [0x00, 0x00]))
        }
        if let c = db.characteristics.first(where: { $0.valueHandle == handle }), c.properties & 0x02 == 0 {
            // Not readable (Core v5.4 Vol 3 Part G 3.3.1.1): the server refuses, whatever it holds.
            return .answer(ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: .readRequest, attributeHandle: handle,
                                                                 errorCode: .readNotPermitted)).encoded())
        }
        if let v = behaviour?.valueHistory.value(of: handle, at: link.relative(world.scheduler.now)) {
            // A long value: the Read Blob Requests that follow get the rest of it (and not of one
            // read before).
            occasional.longValues[handle] = v.count > link.mtu - 1 ? v : nil
            return .answer([ATTOpcode.readResponse.rawValue] + v.prefix(link.mtu - 1))
        }
        if db.values[handle] != nil { return nil }
        let isValue = db.characteristics.contains { $0.valueHandle == handle } || db.descriptors.contains { $0.handle == handle }
        guard isValue else { return nil }
        world.unrecordedReads.append(ReplayWorld.UnmatchedRequest(time: world.scheduler.now, linkHandle: link.handle,
                                                                  peripheral: peripheral.model.key, pdu: pdu))
        switch world.configuration.unrecordedValues {
        case .error(let code):
            return .answer(ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: .readRequest, attributeHandle: handle,
                                                                 errorCode: code)).encoded())
        case .strict:
            world.noteUnmatched(pdu, link: link)
            return .silent
        case .empty:
            return .answer([ATTOpcode.readResponse.rawValue])
        }
    }
}

extension PeerSession {
    /// Whether `handle` is a Client Characteristic Configuration descriptor (2902) of the
    /// peripheral's database, or one its recorded central subscribed through.
    func isClientConfiguration(_ handle: UInt16, in db: GATTDatabase) -> Bool {
        let cccd = BluetoothUUID(uint16: 0x2902)
        return db.descriptors.contains { $0.handle == handle && $0.uuid == cccd }
            || peripheral.model.extractor.cccdOwners[handle] != nil
    }
}
