import BLECore
import BLEDecode

/// The steps of a central script (Docs/replay.md "Central scripts", step reference).
extension ScriptRunner {
    func run(_ step: CentralScript.Step, generation g: Int) {
        switch step {
        case .scan(let services, let name, let address, let allowDuplicates, let timeout):
            wait = .scan(services: services, name: name, address: address ?? script.peripheral.flatMap { BluetoothAddress($0) != nil ? $0 : nil })
            side.startScan(services: services, allowDuplicates: allowDuplicates)
            if let timeout {
                startTimer(g, after: timeout) { [self] in abort("nothing matching the scan was found within \(VirtualDuration.short(timeout))") }
            }
        case .connect(let timeout):
            guard let p = target ?? side.target(named: script.peripheral) else {
                abort(script.peripheral.map { "no peripheral \($0) in the capture to connect to (the script's \"peripheral\")" }
                      ?? "nothing to connect to (scan first, or name a \"peripheral\")")
                return
            }
            target = p
            wait = .connect
            if !p.model.advertising.connectable {
                // As on iOS, connecting to a non-connectable advertiser (a beacon) waits until cancelled.
                note("\(p.model.label) advertises non-connectable: the connection attempt will never complete")
            }
            side.connect(p)
            if let timeout {
                startTimer(g, after: timeout) { [self] in
                    side.cancelConnect(p)
                    abort("no connection within \(VirtualDuration.short(timeout))")
                }
            }
        case .discover(let filter):
            guard let gatt else { abort("not connected"); return }
            discover(gatt, filter: filter, g)
        case .read(let t, let e):
            guard let gatt, let handle = resolve(t) else { return }
            gatt.read(handle) { [self] r in
                guard g == generation else { return }
                judge(r.map { $0 }, expectation: e, what: "read")
                stepDone(g)
            }
        case .write(let t, let value, let withResponse, let e):
            guard let gatt, let handle = resolve(t) else { return }
            gatt.write(handle, value, withResponse: withResponse) { [self] r in
                guard g == generation else { return }
                judge(r.map { [] }, expectation: e, what: withResponse ? "write" : "write without response")
                stepDone(g)
            }
        case .subscribe(let t, let indicate, let e):
            configure(t, value: indicate ? [0x02, 0x00] : [0x01, 0x00], expectation: e, g)
        case .unsubscribe(let t):
            configure(t, value: [0x00, 0x00], expectation: nil, g)
        case .wait(let d):
            world.scheduler.schedule(after: d) { [self] in stepDone(g) }
        case .waitNotifications(let t, let count, let timeout, let value):
            guard link != nil, let handle = resolve(t) else { return }
            wait = .notifications(handle: handle, remaining: count, value: value)
            startTimer(g, after: timeout) { [self] in
                if case .notifications(_, let left, _) = wait {
                    check(false, "\(count - left) of \(count) notifications within \(VirtualDuration.short(timeout))")
                }
                stepDone(g)
            }
        case .expectDisconnect(let e):
            guard link != nil else {
                check(false, "expected a disconnection but the link is already down")
                stepDone(g)
                return
            }
            wait = .disconnect(e)
            startTimer(g, after: e.within) { [self] in
                check(false, "still connected after \(VirtualDuration.short(e.within))")
                stepDone(g)
            }
        case .disconnect:
            guard let link else { check(true, "already disconnected"); stepDone(g); return }
            wait = .disconnecting
            side.disconnect(link)
        case .loop(let count, let steps):
            frames.append(Frame(steps: steps, index: 0, remaining: count, iteration: 1))
            if count == 0 { frames.removeLast() }
            stepDone(g)
        }
    }

    /// The value handle for a target; records a failure (and skips the step) when unknown.
    func resolve(_ t: CentralScript.Target) -> UInt16? {
        guard link != nil else { abort("not connected"); return nil }
        if let h = t.handle { return h }
        if let c = characteristic(t) { return c.valueHandle }
        check(false, "characteristic \(t) was not discovered (add a discover step)")
        stepDone(generation)
        return nil
    }

    func characteristic(_ t: CentralScript.Target) -> GATTClient.Characteristic? {
        characteristics.first { entry in
            entry.characteristic.uuid == t.characteristic && (t.service == nil || entry.service.uuid == t.service)
        }?.characteristic
    }

    func judge(_ r: Result<[UInt8], GATTFailure>, expectation e: CentralScript.Expectation?, what: String) {
        switch r {
        case .success(let value):
            if let code = e?.attError {
                check(false, "\(what) succeeded, expected ATT error \(code)")
            } else if e?.fails == true {
                check(false, "\(what) succeeded, expected it to fail")
            } else if let expected = e?.value, expected != value {
                check(false, "value \(hexString(value)), expected \(hexString(expected))")
            } else {
                check(true, value.isEmpty ? "\(what) ok" : "\(what) ok, value \(hexString(value))")
            }
        case .failure(.att(let code, _)):
            if let expected = e?.attError {
                check(code == expected, code == expected ? "ATT error \(code) as expected" : "ATT error \(code), expected \(expected)")
            } else {
                check(e?.fails == true, "ATT error \(code)")
            }
        case .failure(let f):
            check(e?.fails == true, "\(what) failed: \(f)")
        }
    }

    func configure(_ t: CentralScript.Target, value: [UInt8], expectation e: CentralScript.Expectation?, _ g: Int) {
        guard let gatt, let handle = resolve(t) else { return }
        let write = { [self] (cccd: UInt16) in
            gatt.write(cccd, value, withResponse: true) { [self] r in
                guard g == generation else { return }
                judge(r.map { [] }, expectation: e, what: value == [0, 0] ? "unsubscribe" : "subscribe")
                stepDone(g)
            }
        }
        if let d = descriptors[handle]?.first(where: { $0.uuid == BluetoothUUID(uint16: 0x2902) }) {
            write(d.handle)
        } else if let c = characteristics.first(where: { $0.characteristic.valueHandle == handle })?.characteristic {
            gatt.discoverDescriptors(of: c) { [self] r in
                guard g == generation else { return }
                let list = (try? r.get()) ?? []
                descriptors[handle] = list
                if let d = list.first(where: { $0.uuid == BluetoothUUID(uint16: 0x2902) }) {
                    write(d.handle)
                } else {
                    check(false, "\(t) has no Client Characteristic Configuration descriptor")
                    stepDone(g)
                }
            }
        } else {
            write(handle &+ 1)   // a raw handle: its CCCD is taken to follow it
        }
    }

    /// All primary services (kept when in `filter`), their characteristics and descriptors.
    func discover(_ gatt: GATTClient, filter: [BluetoothUUID]?, _ g: Int) {
        gatt.discoverPrimaryServices { [self] r in
            guard g == generation else { return }
            guard case .success(let all) = r else {
                if case .failure(let f) = r { check(false, "service discovery failed: \(f)") }
                stepDone(g)
                return
            }
            services = all.filter { filter == nil || filter!.contains($0.uuid) }
            var pending = services.count
            if pending == 0 {
                let wanted = filter?.map(\.uuidString).joined(separator: ",") ?? ""
                check(filter == nil || filter!.isEmpty, wanted.isEmpty ? "\(all.count) services" : "\(all.count) services, none of \(wanted)")
                stepDone(g)
                return
            }
            for s in services {
                gatt.discoverCharacteristics(of: s) { [self] r in
                    guard g == generation else { return }
                    let list = (try? r.get()) ?? []
                    characteristics += list.map { (s, $0) }
                    for c in list {
                        pending += 1
                        gatt.discoverDescriptors(of: c) { [self] r in
                            guard g == generation else { return }
                            descriptors[c.valueHandle] = (try? r.get()) ?? []
                            pending -= 1
                            if pending == 0 { discovered(g) }
                        }
                    }
                    pending -= 1
                    if pending == 0 { discovered(g) }
                }
            }
        }
    }

    private func discovered(_ g: Int) {
        check(true, "\(services.count) services, \(characteristics.count) characteristics: "
              + services.map(\.uuid.uuidString).joined(separator: ", "))
        stepDone(g)
    }
}
