import Foundation
import Synchronization

/// Something the app did that the replay could not run as iOS would, in virtual time
/// (Docs/replay.md "The runtime model"), or that iOS would only have written to the system log
/// (an "API MISUSE" call it dropped, a write or advertising keys it ignored; Docs/replay.md "How
/// iOS behaves"): `CBReplay.diagnostics` lists them, each once, so a test can assert there are
/// none (`#expect(replay.diagnostics.isEmpty)`).
public struct CBReplayDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A `DispatchWorkItem` was created in the app's code: Dispatch runs work items on the
        /// wall clock (`asyncAfter(deadline:execute: DispatchWorkItem)` cannot be overloaded).
        case dispatchWorkItem
        /// A GCD timer source (`DispatchSource.makeTimerSource(queue:)`) was created in the app's
        /// code: Dispatch fires it on the wall clock, not in virtual time.
        case dispatchSourceTimer
        /// A Foundation `Timer` was left scheduled on the replay thread's run loop: it runs on the
        /// wall clock, and the run loop does not run during `run(for:)`.
        case foundationTimer
        /// The app called CoreBluetooth from a thread the replay was not running on, while it ran
        /// (a `Task` after `Task.sleep`, a `Timer`, a real Dispatch queue): the call was dropped.
        case callFromAnotherThread
        /// A delegate method the conforming class does not implement was called on an instance of
        /// a subclass: a method only the subclass implements is not found on Linux.
        case subclassedDelegate
        /// A command iOS refuses with "API MISUSE: … can only accept this command while in the
        /// powered on state" in its log, or a peripheral's with "… can only accept commands while
        /// in the connected state", and drops (no callback): the replay dropped it too.
        case apiMisuse
        /// Something iOS logs and ignores while carrying out the rest of the call: a write without
        /// response to a characteristic without that property (not sent), advertising keys other
        /// than the local name and the service UUIDs (left out). The replay did the same.
        case ignoredAsIOSDoes
        /// A write without response the host could not send as one Write Command: nothing was sent.
        case writeNotSent
        /// A write without response longer than `maximumWriteValueLength(for: .withoutResponse)`:
        /// it does not fit one Write Command (Core v5.4 Vol 3 Part F 3.4.5.3), and, as iOS does
        /// (public reports; Apple documents nothing), only its first that-many bytes were sent.
        case writeTruncated
        /// A second `CBCentralManager` was created while one was active: the replay runs one at a
        /// time (Docs/replay.md "Known limits"), so the earlier one hears nothing more.
        case secondCentralManager
        /// A second `CBPeripheralManager` was created while one was active: the replay runs one
        /// at a time (Docs/peripheral.md "One peripheral manager at a time"), so the earlier one
        /// hears nothing more and its services and advertising are gone.
        case secondPeripheralManager
        /// `respond(to:withResult:)` was called for a request that awaits no answer from it: a
        /// second time, or with a request other than the first of a `didReceiveWrite` array. Apple: respond exactly once per `didReceiveRead` /
        /// `didReceiveWrite`, with the first request. The replay ignored the call.
        case respondMisuse
        /// A published characteristic has `.broadcast` or `.extendedProperties`, which Apple does
        /// not allow on a local characteristic (`CBMutableCharacteristic.properties`: "you can't use
        /// the broadcast and extendedProperties characteristic properties when creating a mutable
        /// characteristic"). What iOS then does was not established; the replay declares the
        /// characteristic without them, since the system publishes neither descriptor they
        /// require (Core v5.4 Vol 3 Part G 3.3.1.1, 3.3.3.1).
        case notAllowedLocally
    }

    public let kind: Kind
    /// The virtual time (seconds) at which it was noticed.
    public let time: TimeInterval
    public let message: String

    public var description: String { "t+\(String(format: "%.6f", time)) s (replay) \(kind.rawValue): \(message)" }
}

/// The replay's diagnostics, appended from any thread (a wall-clock timer may call in).
final class DiagnosticLog: Sendable {
    private let state = Mutex<(list: [CBReplayDiagnostic], keys: Set<String>)>(([], []))

    /// Appends `diagnostic` unless one with the same `key` was already noted.
    func note(_ diagnostic: CBReplayDiagnostic, key: String) {
        state.withLock { s in
            if s.keys.insert(key).inserted { s.list.append(diagnostic) }
        }
    }

    var list: [CBReplayDiagnostic] { state.withLock { $0.list } }
}
