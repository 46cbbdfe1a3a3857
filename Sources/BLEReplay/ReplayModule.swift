/// BLEReplay: a discrete-event simulation of recorded peripherals and a central host stack.
///
/// See DESIGN.md "Replay semantics" and Docs/replay.md.
public enum ReplayModule {}
