import BLECore
import BLEReplay

/// A central script (Docs/replay.md "Central scripts") as the remote central of the app's own
/// GATT server (Docs/peripheral.md "A central script as the remote central"): the phone or the
/// watch that reads, writes and subscribes to what the app's `CBPeripheralManager` publishes,
/// with behaviour nobody recorded. The recorded remote centrals stay away while it runs.
extension CBReplay {
    /// Runs `script` as the remote central from now until it finishes (or its `limit` of virtual
    /// time passes), and returns its checks, as `blereplay replay --central` does: the result
    /// renders with `ScriptReport.text`, `.json` and `.junit` as the command's. The script's
    /// `inject` faults act on this central (`stop-reading`, a disconnect after the n-th PDU it
    /// received, …). Create the app (its CBPeripheralManager) first, in `activate`.
    public func runCentralScript(_ script: CentralScript) -> ScriptResult {
        let central = ScriptedRemoteCentral(world: world, driver: peripheralSide.driver)
        world.add(faults: script.faults)
        let runner = ScriptRunner(world: world, script: script, side: central)
        central.runner = runner
        runner.start()
        run(until: Double(world.now.saturatingAdding(script.limit)) / 1_000_000)
        return ScriptReplay.finish(runner, world: world, capture: session.fileName)
    }
}
