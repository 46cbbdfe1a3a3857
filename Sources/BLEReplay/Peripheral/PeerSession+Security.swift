import BLECore
import BLEDecode

/// Which recorded answers apply on a link whose security the host models (SimulatedLink
/// `securityModelled`, CentralHost+Security.swift): before encryption the answers the recording
/// shows before its first Encryption Change, after it those recorded after it, each table
/// counted on its own (the n-th identical request in that state gets the n-th answer recorded in
/// that state). A request the recording made only in the other state gets that state's answer,
/// except a refusal for lack of security once the link is encrypted: that one is unmatched.
extension PeerSession {
    func countRequest(_ pdu: [UInt8]) -> Int {
        let request = PDUBytes.key(pdu)
        requestCounts[request, default: 0] += 1
        guard link.securityModelled else { return requestCounts[request]! }
        let key = PDUBytes.key((link.isEncrypted ? [0x01] : [0x00]) + pdu)
        occasional.securedCounts[key, default: 0] += 1
        return occasional.securedCounts[key]!
    }

    func recordedAnswer(to pdu: [UInt8], occurrence: Int) -> RecordedAnswer? {
        guard let b = behaviour else { return nil }
        guard link.securityModelled else { return b.answers.answer(to: pdu, occurrence: occurrence) }
        let (mine, other) = link.isEncrypted ? (b.encryptedAnswers, b.plainAnswers) : (b.plainAnswers, b.encryptedAnswers)
        if let a = mine.answer(to: pdu, occurrence: occurrence) { return a }
        guard let a = other.answer(to: pdu, occurrence: occurrence) else { return nil }
        if link.isEncrypted, let r = a.response, r.count >= 5, r[0] == ATTOpcode.errorResponse.rawValue,
           CentralHost.requiresSecurity(ATTErrorCode(r[4])) { return nil }
        return a
    }
}
