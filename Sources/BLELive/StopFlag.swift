#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization

/// A request to end the recording, set from any thread (a signal handler's queue, a test).
public final class StopFlag: Sendable {
    private let requests = Atomic<Int>(0)

    public init() {}

    public var isSet: Bool { requests.load(ordering: .acquiring) > 0 }

    /// Records a request; returns how many there have been (1 for the first).
    @discardableResult
    public func set() -> Int {
        requests.add(1, ordering: .acquiringAndReleasing).newValue
    }
}

/// SIGINT and SIGTERM end the recording cleanly: the signals are ignored at the process level
/// and delivered through `DispatchSource` signal sources that set a `StopFlag`, so the
/// recorder finishes the btsnoop file and the timeline (with its analysis) on its own thread.
/// A second signal while it finishes exits at once (status 130); the timeline is then
/// consistent up to its last commit, as after SIGKILL.
public final class SignalStop {
    private var sources: [any DispatchSourceSignal] = []
    private let signals: [Int32]

    public init(flag: StopFlag, signals: [Int32] = [SIGINT, SIGTERM]) {
        self.signals = signals
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if flag.set() > 1 {
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
