import BLETimeline

extension RecordingClock {
    /// What the replay says about the clock, when it moved any record (nil otherwise).
    public var note: String? {
        var parts: [String] = []
        if stepsBack > 0, let s = largestStep {
            parts.append("steps back at \(stepsBack) record(s) (the largest step \(VirtualDuration.short(s.by)), at packet \(s.frame))")
        }
        if absurd > 0 { parts.append("has \(absurd) record(s) with an absurd timestamp") }
        guard !parts.isEmpty else { return nil }
        let resetText = resets > 0
            ? "; where it was set back by more than \(VirtualDuration.short(Self.resetStep)) (\(resets) time(s)), the records after it keep their spacing, shifted by the step"
            : ""
        return "the capture's clock " + parts.joined(separator: " and ")
            + ": the replay takes each such record as simultaneous with the latest record before it\(resetText), so no time or duration here runs backwards"
    }
}
