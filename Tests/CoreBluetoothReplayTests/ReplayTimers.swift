import CoreBluetoothReplay
import Foundation

/// The example app's clock, backed by the replay's virtual clock.
struct ReplayTimers: HeartRateClock {
    let clock: CBReplayClock
    var now: TimeInterval { clock.now }
    func schedule(after seconds: TimeInterval, _ work: @escaping () -> Void) { clock.schedule(after: seconds, work) }
}

enum Samples {
    static var packageRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }
    static func capture(_ name: String) -> String { "\(packageRoot)/Captures/\(name)" }
}

extension HeartRateCentral.Event {
    var time: TimeInterval {
        switch self {
        case .connected(let t), .disconnected(let t, _), .failedToConnect(let t, _), .reconnectScheduled(let t, _),
             .reconnecting(let t), .heartRate(let t, _): t
        }
    }
}
