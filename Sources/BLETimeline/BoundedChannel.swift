import Dispatch
import Synchronization

/// A first-in first-out queue between two threads with a fixed number of slots: `send` waits
/// while all are taken, `receive` while none is (`DecodePipeline`, the analysis's read-ahead).
public final class BoundedChannel<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    private let filled = DispatchSemaphore(value: 0)
    private let free: DispatchSemaphore

    public init(capacity: Int) { free = DispatchSemaphore(value: capacity) }

    public func send(_ element: Element) {
        free.wait()
        items.withLock { $0.append(element) }
        filled.signal()
    }

    public func receive() -> Element {
        filled.wait()
        let element = items.withLock { $0.removeFirst() }
        free.signal()
        return element
    }
}

/// A boolean one thread sets and another reads.
public final class Flag: Sendable {
    private let state = Mutex(false)
    public init() {}
    public func set() { state.withLock { $0 = true } }
    public var isSet: Bool { state.withLock { $0 } }
}
