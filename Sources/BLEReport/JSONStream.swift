import BLECore

/// Writes a pretty-printed JSON document piece by piece, byte for byte what
/// `JSON.serialized(pretty: true)` makes of the whole, so that a document with one entry per
/// link is never held at once: arrays and objects are opened, filled and closed in turn, and the
/// text goes to `sink` in blocks of about 64 KiB.
public struct JSONStream {
    private let sink: (String) -> Void
    private var pending = ""
    /// For each open container, how many members it has so far.
    private var open: [Int] = []

    public init(sink: @escaping (String) -> Void) { self.sink = sink }

    /// Opens an array: a member of the open object under `key`, an item of the open array, or the document.
    public mutating func openArray(key: String? = nil) { member(key); pending += "["; open.append(0) }

    /// Opens an object, as `openArray` does.
    public mutating func openObject(key: String? = nil) { member(key); pending += "{"; open.append(0) }

    /// A whole value, as `openArray` places it.
    public mutating func value(_ v: JSON, key: String? = nil) {
        member(key)
        // Pretty JSON has line breaks only between members (a string's own are escaped): the
        // value's, moved `open.count` levels in.
        let text = v.serialized(pretty: true)
        pending += open.isEmpty ? text : text.replacingNewlines(with: "\n" + String(repeating: "  ", count: open.count))
        if pending.utf8.count > 1 << 16 { flush() }
    }

    /// Closes the innermost open array or object (`[]`/`{}` when it stayed empty).
    public mutating func close(array: Bool) {
        let members = open.removeLast()
        if members > 0 { pending += "\n" + String(repeating: "  ", count: open.count) }
        pending += array ? "]" : "}"
    }

    /// Writes what is pending.
    public mutating func flush() {
        if !pending.isEmpty { sink(pending) }
        pending = ""
    }

    private mutating func member(_ key: String?) {
        guard let members = open.last else { return }
        if members > 0 { pending += "," }
        open[open.count - 1] = members + 1
        pending += "\n" + String(repeating: "  ", count: open.count)
        if let key { pending += JSON.quote(key) + ": " }
    }
}

/// Writes lines joined by "\n", what `lines.map(TextFormat.printable).joined(separator: "\n")`
/// makes of them all (a line break inside a line, from a device name, is escaped), in blocks
/// of about 64 KiB: a text with one block per link is never held at once.
public struct LineStream {
    private let sink: (String) -> Void
    private var pending = ""
    private var first = true

    public init(sink: @escaping (String) -> Void) { self.sink = sink }

    public mutating func line(_ s: String) {
        if !first { pending += "\n" }
        first = false
        // One line each: a name from the air with a line break or an escape sequence stays on it.
        pending += TextFormat.printable(s)
        if pending.utf8.count > 1 << 16 { flush() }
    }

    public mutating func lines(_ list: [String]) { for s in list { line(s) } }

    public mutating func flush() {
        if !pending.isEmpty { sink(pending) }
        pending = ""
    }
}

extension String {
    /// The string with each "\n" replaced by `replacement`.
    func replacingNewlines(with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for piece in split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if piece.offset > 0 { out += replacement }
            out += piece.element
        }
        return out
    }
}
