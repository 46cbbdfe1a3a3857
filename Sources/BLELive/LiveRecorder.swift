import BLECore

/// Live recording (`blereplay record`, issue 6): live sources feed one stream of capture
/// records into a btsnoop file and a timeline. Placeholder until the sources land.
public enum LiveRecorder {}
