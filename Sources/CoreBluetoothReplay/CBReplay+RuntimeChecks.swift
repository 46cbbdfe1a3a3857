import BLECore
import Foundation

/// What the replay watches for while it runs the app (Docs/replay.md "The runtime model"): work
/// the app scheduled on the wall clock, calls from threads the replay is not running on, delegate
/// methods lost to subclassing, and app code that blocks the replay's thread for good.
extension CBReplay {
    /// What the app did that the replay could not run as iOS would (each noted once).
    public var diagnostics: [CBReplayDiagnostic] { diagnosticLog.list }

    func diagnose(_ kind: CBReplayDiagnostic.Kind, key: String, _ message: String) {
        diagnosticLog.note(CBReplayDiagnostic(kind: kind, time: TimeInterval(stallWatch.virtualMicroseconds) / 1_000_000,
                                              message: message), key: "\(kind.rawValue) \(key)")
    }

    // MARK: Calls from other threads

    /// Whether an API call may act now. While `run` runs, CoreBluetooth is only called from the
    /// app's callbacks and virtual timers, on the thread running the replay; a call from another
    /// thread (a `Task` resumed after `Task.sleep`, a Foundation `Timer`, a `DispatchWorkItem` or a
    /// `qos:`+`flags:` `asyncAfter` on a real queue) comes at a wall-clock moment and would race
    /// the simulation: it is dropped and reported.
    func admits(_ api: String) -> Bool {
        guard stallWatch.isRunning, CBReplay.current !== self else { return true }
        diagnose(.callFromAnotherThread, key: api,
                 "\(api) was called from a thread the replay is not running on (work scheduled on the wall clock: " +
                 "Task.sleep, Timer, DispatchWorkItem, asyncAfter with both qos: and flags:); the call was dropped")
        return false
    }

    // MARK: Foundation timers

    /// After a run: a Foundation `Timer` left on this thread's run loop runs on the wall clock
    /// (`Timer.scheduledTimer` cannot be overloaded: Foundation's has no defaulted parameter).
    /// `limitDate(forMode:)` gives the next timer's fire date (`distantFuture` when none); the main
    /// thread's run loop is not looked at, since a pass through it would run main-queue work.
    func noteRunLoopTimers() {
        guard !Thread.isMainThread, let next = RunLoop.current.limitDate(forMode: .default), next < .distantFuture else { return }
        diagnose(.foundationTimer, key: "run loop",
                 "a Foundation Timer is scheduled on the run loop of the thread running the replay: it runs on the wall clock " +
                 "and never fires during run(for:); schedule with DispatchQueue.asyncAfter(deadline:execute:) or replay.clock")
    }

    // MARK: Delegates in a subclass

    /// Called by the delegate protocols' default implementations: when `delegate` is an instance
    /// of a subclass of the class that conforms, a method only the subclass implements is not
    /// reached (Swift on Linux finds protocol methods at the conforming class; iOS asks the
    /// Objective-C runtime, which finds the subclass's). Reported once per class and method.
    static func noteDefaultCalled(_ delegate: AnyObject, _ method: String, protocolName: String, conforms: (Any.Type) -> Bool) {
        guard let replay = current else { return }
        let type = Swift.type(of: delegate)
        let key = "\(ObjectIdentifier(type).hashValue) \(method)"
        guard replay.checkedDefaults.insert(key).inserted else { return }
        var chain: [Any.Type] = []
        var mirror: Mirror? = Mirror(reflecting: delegate)
        while let m = mirror { chain.append(m.subjectType); mirror = m.superclassMirror }
        guard let base = chain.last(where: conforms), base != chain.first! else { return }
        replay.diagnose(.subclassedDelegate, key: key,
                        "\(method) was called on a \(chain.first!), a subclass of \(base), which conforms to \(protocolName) " +
                        "without implementing it: if \(chain.first!) implements it, that implementation is not called on Linux; " +
                        "declare the method in \(base) (even empty) and override it in the subclass")
    }

    // MARK: Managers created outside `activate`

    static let unboundKey = "CoreBluetoothReplay.CBReplay.unbound"

    /// A manager created where no replay is current (a lazy singleton first touched outside
    /// `activate`) waits, `.unknown` as on iOS before its first state update, for the next replay
    /// activated on this thread (or `adopt`).
    static func park(_ manager: CBCentralManager) {
        let box = Thread.current.threadDictionary[unboundKey] as? UnboundManagers ?? UnboundManagers()
        box.managers.append(WeakManager(manager: manager))
        Thread.current.threadDictionary[unboundKey] = box
        StandardStreams.error("CoreBluetoothReplay: a CBCentralManager was created outside CBReplay.activate; it binds to the " +
                              "next replay activated on this thread (or replay.adopt(manager)) and calls nothing until then")
    }

    /// The same for a `CBPeripheralManager` created where no replay is current.
    static func park(_ manager: CBPeripheralManager) {
        let box = Thread.current.threadDictionary[unboundKey] as? UnboundManagers ?? UnboundManagers()
        box.peripheralManagers.append(WeakPeripheralManager(manager: manager))
        Thread.current.threadDictionary[unboundKey] = box
        StandardStreams.error("CoreBluetoothReplay: a CBPeripheralManager was created outside CBReplay.activate; it binds to the " +
                              "next replay activated on this thread (or replay.adopt(manager)) and calls nothing until then")
    }

    /// Binds the managers parked on this thread to this replay.
    func adoptParked() {
        guard let box = Thread.current.threadDictionary[Self.unboundKey] as? UnboundManagers else { return }
        Thread.current.threadDictionary[Self.unboundKey] = nil
        for w in box.managers { if let m = w.manager { adopt(m) } }
        for w in box.peripheralManagers { if let m = w.manager { adopt(m) } }
    }

    /// Binds `manager` (created outside any replay, or in another one) to this replay: it hears
    /// `peripheralManagerDidUpdateState` at the current virtual instant, as a new manager does.
    public func adopt(_ manager: CBPeripheralManager) {
        guard manager.replay !== self || manager.detached else { return }
        if let old = manager.replay, old !== self, old.peripheralRole?.manager === manager { old.peripheralRole?.manager = nil }
        manager.replay = self
        manager.detached = false
        attach(manager)
    }

    /// Binds `manager` (created outside any replay, or in another one) to this replay: it hears
    /// `centralManagerDidUpdateState` at the current virtual instant, as a new manager does.
    public func adopt(_ manager: CBCentralManager) {
        guard manager.replay !== self || manager.detached else { return }
        if let old = manager.replay, old !== self, old.manager === manager { old.manager = nil }
        manager.replay = self
        manager.detached = false
        attach(manager)
    }
}

final class UnboundManagers {
    var managers: [WeakManager] = []
    var peripheralManagers: [WeakPeripheralManager] = []
}

struct WeakPeripheralManager {
    weak var manager: CBPeripheralManager?
}

struct WeakManager {
    weak var manager: CBCentralManager?
}
