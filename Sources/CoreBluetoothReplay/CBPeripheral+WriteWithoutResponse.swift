import BLECore
import BLEReplay
import Foundation

/// Writes without response, flow-controlled as iOS does it.
///
/// Every `writeValue(_:for:type: .withoutResponse)` adds to a count of pending writes and makes
/// `canSendWriteWithoutResponse` false; when the host has handed the write to the controller (the
/// Write Command's last ACL fragment took a controller buffer, at once when one is free, else at
/// the Number Of Completed Packets that frees one), the count drops and, once nothing is pending,
/// `canSendWriteWithoutResponse` is true again and the delegate hears
/// `peripheralIsReady(toSendWriteWithoutResponse:)` (Apple, `canSendWriteWithoutResponse`: "If
/// this value is false, flushing all current writes sets the value to true. This also results in
/// a call to the delegate's peripheralIsReady(toSendWriteWithoutResponse:)"). So an app that writes once per callback
/// without ever reading `canSend` streams, and `while canSend { write }` sends one write per
/// callback. The hand-over is noted in an event of its own (never inside the app's call,
/// CBPeripheral+Delivery.swift): a write handed over at once is followed by the callback in the
/// next event at the same virtual instant.
extension CBPeripheral {
    func writeWithoutResponse(_ data: Data, for characteristic: CBCharacteristic, link: SimulatedLink, gatt: GATTClient) {
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            // iOS: "WARNING: Characteristic <…> does not specify the Write Without Response
            // property - ignoring response-less write" (nothing is sent, no callback).
            replay.noteIgnored(key: "writeWithoutResponse \(characteristic.uuid.uuidString)",
                               "WARNING: Characteristic \(characteristic.uuid.uuidString) does not specify the Write Without Response " +
                               "property - ignoring response-less write (nothing was sent, as on iOS)")
            return
        }
        // Longer than one Write Command carries (ATT MTU - 3, Core v5.4 Vol 3 Part F 3.4.5.3): iOS
        // sends the first maximumWriteValueLength(for: .withoutResponse) bytes and drops the rest
        // (react-native-ble-manager issue 509: 255 bytes written at ATT MTU 185, "only 182 byte sent";
        // react-native-ble-plx issue 458: 140 bytes arrive whole, of 141 "loss last byte"). Apple
        // documents nothing; never silent here: noted in `diagnostics` (`.writeTruncated`).
        let maximum = maximumWriteValueLength(for: .withoutResponse)
        if data.count > maximum {
            replay.diagnose(.writeTruncated, key: "\(characteristic.uuid.uuidString) \(data.count)",
                            "a \(data.count)-byte write without response to \(characteristic.uuid.uuidString) was cut to its first " +
                            "\(maximum) bytes, as iOS cuts it: maximumWriteValueLength(for: .withoutResponse) is \(maximum) " +
                            "(ATT MTU \(link.mtu) - 3); \(data.count - maximum) bytes were not sent. Split the value, or write with " +
                            "response (a long write)")
        }
        pendingWritesWithoutResponse += 1
        gatt.write(characteristic.gatt.valueHandle, Array(data.prefix(maximum)), withResponse: false) { [self] result in
            if case .failure = result {
                // Nothing was sent (the host refused the Write Command). Said, never silent.
                replay.diagnose(.writeNotSent, key: "\(characteristic.uuid.uuidString) \(data.count)",
                                "a \(data.count)-byte write without response to \(characteristic.uuid.uuidString) was not sent: " +
                                "maximumWriteValueLength(for: .withoutResponse) is \(maximumWriteValueLength(for: .withoutResponse)) " +
                                "(ATT MTU \(link.mtu) - 3); split the value, or write with response (a long write)")
            }
            // The hand-over is reported in an event of its own, as iOS reports it after the call
            // returned: the app sees `canSend` false right after every write.
            replay.world.scheduler.schedule(after: 0) { [self] in
                guard self.link === link, pendingWritesWithoutResponse > 0 else { return }
                pendingWritesWithoutResponse -= 1
                guard pendingWritesWithoutResponse == 0 else { return }
                deliver(on: link) { [self] d in d.peripheralIsReady(toSendWriteWithoutResponse: self) }
            }
        }
    }
}
