#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization
import BLECapture

/// A request to end the recording, set from any thread (a signal handler's queue, a test).
///
/// Requests that arrive within `coalescingMilliseconds` of the first are the same request:
/// `timeout(1)` sends SIGTERM to its child and then to the whole process group, and a shell
/// or supervisor often signals both the process and its group, so one "stop" arrives as two
/// signals a few microseconds apart. Only a request after that window is a second one.
public final class StopFlag: Sendable {
    /// Stop requests this close to the first one are the same request.
    public static let coalescingMilliseconds: Int64 = 1000

    /// What a request was.
    public enum Request: Sendable, Equatable {
        /// The first request: finish the recording.
        case first
        /// Part of the first one (within the window): nothing more to do.
        case same
        /// A new request after the window, while the first is being carried out.
        case again
    }

    /// The monotonic millisecond of the first request; `Int64.min` while none.
    private let firstAt = Atomic<Int64>(Int64.min)

    public init() {}

    public var isSet: Bool { firstAt.load(ordering: .acquiring) != Int64.min }

    /// Records a request made now and says what it was.
    @discardableResult
    public func set() -> Request { set(now: Syscall.monotonicMilliseconds()) }

    /// Records a request made at `now` (monotonic milliseconds) and says what it was.
    @discardableResult
    public func set(now: Int64) -> Request {
        let (exchanged, original) = firstAt.compareExchange(expected: Int64.min, desired: now, ordering: .acquiringAndReleasing)
        if exchanged { return .first }
        return now - original < Self.coalescingMilliseconds ? .same : .again
    }
}

/// SIGINT and SIGTERM end the recording cleanly: the signals are ignored at the process level
/// and delivered through `DispatchSource` signal sources that set a `StopFlag`, so the
/// recorder finishes the btsnoop file and the timeline (with its analysis) on its own thread.
/// Signals within `StopFlag.coalescingMilliseconds` of the first are the same request; a
/// signal after that, while the recorder finishes, exits at once (status 130) and the timeline
/// is then consistent up to its last commit, as after SIGKILL.
public final class SignalStop {
    private var sources: [any DispatchSourceSignal] = []
    private let signals: [Int32]

    public init(flag: StopFlag, signals: [Int32] = [SIGINT, SIGTERM]) {
        self.signals = signals
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if flag.set() == .again {
                    _ = write(2, "\nblereplay record: second signal, exiting without finishing\n", 61)
                    _exit(130)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops listening and restores the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for number in signals { signal(number, SIG_DFL) }
    }

    deinit { cancel() }
}
