/// A BR/EDR link supervision timeout (Core v5.4 Vol 4 Part E 7.3.42, 7.7.46): a count of
/// baseband slots of 0.625 ms, 0x0001-0xFFFF (up to 40.9 s); 20 s (0x7D00) unless changed.
public enum LinkSupervisionTimeout {
    /// The spec's default, when no Write Link Supervision Timeout changed it (7.3.42).
    public static let defaultMilliseconds = 20_000

    /// `slots` x 0.625 ms as a decimal number of milliseconds, exact: "5040", "0.625".
    public static func milliseconds(slots: UInt16) -> String {
        HCIConnectionFields.thousandths(Int(slots) * 625)
    }
}
