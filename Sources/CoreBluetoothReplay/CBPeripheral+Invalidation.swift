import Foundation

/// Attributes a disconnection invalidated.
///
/// Apple, `centralManager(_:didDisconnectPeripheral:error:)`: "All services, characteristics, and
/// characteristic descriptors a peripheral become invalidated after it disconnects"; a Service
/// Changed invalidates the services it names (`peripheral(_:didModifyServices:)`). An app that
/// keeps such an object and uses it on the next connection, without discovering again, gets no
/// callback on iOS (nordicsemi/IOS-CoreBluetooth-Mock issue 98, on native CoreBluetooth: no
/// `didUpdateValueFor` after `readValue` on a characteristic cached across a reconnection;
/// Wolox/WLXBluetoothDevice issue 27). The replay drops such a request the same way and notes it
/// in `CBReplay.diagnostics` (`.ignoredAsIOSDoes`), where it used to send it on the old handle.
extension CBPeripheral {
    /// Whether `attribute` is one of this peripheral's discovered attributes now: a service in
    /// `services` (or included in one of them), a characteristic of such a service, a descriptor
    /// of such a characteristic.
    func isCurrent(_ attribute: CBAttribute) -> Bool {
        switch attribute {
        case let s as CBService:
            guard let services else { return false }
            return Self.contains(services, s, depth: 0)
        case let c as CBCharacteristic:
            guard let s = c.service, isCurrent(s) else { return false }
            return s.characteristics?.contains { $0 === c } ?? false
        case let d as CBDescriptor:
            guard let c = d.characteristic, isCurrent(c) else { return false }
            return c.descriptors?.contains { $0 === d } ?? false
        default:
            return true
        }
    }

    /// Every discovered service: those in `services`, then those they include (`includedServices`,
    /// depth first), each once. A secondary service is reachable only so (Core v5.4 Vol 3 Part G
    /// 2.6.2, 4.5.1), and its characteristics notify as any other's.
    var discoveredServices: [CBService] {
        var out: [CBService] = []
        func walk(_ list: [CBService], depth: Int) {
            for s in list where !out.contains(where: { $0 === s }) {
                out.append(s)
                if depth < 8, let included = s.includedServices { walk(included, depth: depth + 1) }
            }
        }
        walk(services ?? [], depth: 0)
        return out
    }

    private static func contains(_ list: [CBService], _ service: CBService, depth: Int) -> Bool {
        for s in list {
            if s === service { return true }
            if depth < 8, let included = s.includedServices, contains(included, service, depth: depth + 1) { return true }
        }
        return false
    }
}

extension CBReplay {
    /// A request about an attribute a disconnection (or a Service Changed) invalidated: dropped,
    /// as iOS gives it no callback, and noted once per method.
    func invalidated(_ attribute: CBAttribute, of peripheral: CBPeripheral, _ api: String) {
        noteIgnored(key: "invalidated \(api)",
                    "\(api) was called with \(attribute.uuid.uuidString), a \(type(of: attribute)) that is not among " +
                    "\(peripheral.identifier.uuidString)'s discovered attributes now: Apple documents every service, " +
                    "characteristic and descriptor as invalidated when the peripheral disconnects (and a Service Changed " +
                    "invalidates the services it names); iOS gives such a request no callback, and the replay dropped it. " +
                    "Discover again on each connection and use the new objects")
    }
}
