#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Runs a body over `0..<count` on `jobs` threads of its own and returns the results in index order.
///
/// Plain POSIX threads rather than Dispatch's pool: each job blocks while the importer's own
/// decoding thread (on Dispatch) fills it, so the workers must not use up Dispatch's threads.
/// Work is handed out one index at a time, so a long capture does not hold up the short ones.
public enum WorkerPool {
    public static func map<T: Sendable>(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        map(count: count, jobs: jobs, state: {}) { _, index in body(index) }
    }

    /// `map` where each worker thread first makes a state of its own (a database connection, a
    /// scratch buffer) and hands it to every body it runs; with one job, the caller's thread makes
    /// it and runs every body.
    public static func map<State, T: Sendable>(count: Int, jobs: Int, state: @escaping @Sendable () -> State,
                                               _ body: @escaping @Sendable (inout State, Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        let workers = max(1, min(jobs, count))
        if workers == 1 {
            var local = state()
            return (0..<count).map { body(&local, $0) }
        }
        let shared = Shared<T>(count: count)
        let threads = (0..<workers).map { _ in
            spawn {
                var local = state()
                while true {
                    let index = shared.next.add(1, ordering: .relaxed).oldValue
                    guard index < count else { return }
                    let value = body(&local, index)
                    shared.results.withLock { $0[index] = value }
                }
            }
        }
        for t in threads { join(t) }
        return shared.results.withLock { results in results.map { $0! } }
    }

    /// State the workers share: the next index to take and the results so far.
    final class Shared<T: Sendable>: Sendable {
        let next = Atomic<Int>(0)
        let results: Mutex<[T?]>
        init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
    }

    /// A thread's body, handed to `pthread_create` through an unmanaged pointer.
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        return thread
    }

    static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }

    /// Online processors: the default number of jobs.
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
