import BLECore

/// What many recorded connections lack, held apart from a behaviour (issue 17): parameter
/// updates, a Server Rx MTU, long reads, a pairing, recorded values (read only with `--unmatched
/// database`) and the answers split by encryption. Inline, its fields made a behaviour 208 bytes;
/// apart, a behaviour without any of it holds a nil reference instead (136 bytes), and a peer's
/// one-behaviour list fits a smaller allocation. Every link of a capture of many links holds one
/// behaviour to the end of the run.
extension PeerBehaviour {
    struct Occasional: Sendable {
        var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)] = []
        var linkEvents: [RecordedLinkEvent] = []
        var serverRxMTU: Int?
        var longReads: [[UInt8]: [Int: [UInt8]]] = [:]
        var security: SecurityOutcome = .notRecorded
        var valueHistory = ValueHistory()
        var plainAnswers = AnswerTable()
        var encryptedAnswers = AnswerTable()

        /// Nothing in it: the behaviour holds no box.
        var isEmpty: Bool {
            parameterUpdates.isEmpty && linkEvents.isEmpty && serverRxMTU == nil && longReads.isEmpty && security == .notRecorded
                && valueHistory.isEmpty && plainAnswers.isEmpty && encryptedAnswers.isEmpty
        }
    }

    /// Immutable, so behaviours copied from one another share it; a change makes a new one
    /// (`updateOccasional`), which happens while the behaviour is extracted, not during a run.
    final class OccasionalBox: Sendable {
        let fields: Occasional
        init(_ fields: Occasional) { self.fields = fields }

        var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)] { fields.parameterUpdates }
        var linkEvents: [RecordedLinkEvent] { fields.linkEvents }
        var serverRxMTU: Int? { fields.serverRxMTU }
        var longReads: [[UInt8]: [Int: [UInt8]]] { fields.longReads }
        var security: SecurityOutcome { fields.security }
        var valueHistory: ValueHistory { fields.valueHistory }
        var plainAnswers: AnswerTable { fields.plainAnswers }
        var encryptedAnswers: AnswerTable { fields.encryptedAnswers }
    }
}
