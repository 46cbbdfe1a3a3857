/// The integer and static-text values last bound to one bulk-insert statement, so each row binds
/// only the parameters that differ from the row before.
///
/// SQLite keeps a statement's bindings across `sqlite3_reset` (sqlite.org/c3ref/reset.html), and
/// consecutive packet rows mostly repeat their direction, kind, layer, connection, controller and
/// flags: each bind skipped saves SQLite's unbind and set (~120 instructions) on the writer thread,
/// the import's slower one. Only a statement whose parameters are bound through one of these (and,
/// for the others, through `run(borrowing:…)`, which unbinds what it binds) may use it: a value bound
/// behind its back would not be seen. Fixed storage (parameters 1...16), no heap: a writer copies it
/// into a local for a row and back after, so the hot path pays no exclusivity checks.
struct RepeatedBindings {
    /// What one parameter holds: `kind` says how to read `bits`.
    private struct Bound: Equatable {
        static let unknown = Bound(kind: 0, bits: 0)
        static let null = Bound(kind: 1, bits: 0)
        static func integer(_ v: Int64) -> Bound { Bound(kind: 2, bits: v) }
        /// A `StaticString`'s first byte, bound with SQLITE_STATIC: literals are NUL-terminated, so
        /// two with the same start are the same text.
        static func staticText(_ p: UnsafeRawPointer) -> Bound { Bound(kind: 3, bits: Int64(Int(bitPattern: p))) }
        var kind: UInt8
        var bits: Int64
    }

    private var bound = InlineArray<17, Bound>(repeating: .unknown)

    @inline(__always) mutating func bindInt(_ v: Int64?, at i: Int32, of s: SQLiteStatement) {
        let value = v.map { Bound.integer($0) } ?? .null
        guard bound[Int(i)] != value else { return }
        bound[Int(i)] = value
        s.bindInt(v, at: i)
    }

    @inline(__always) mutating func bindInt(_ v: Int?, at i: Int32, of s: SQLiteStatement) {
        bindInt(v.map(Int64.init), at: i, of: s)
    }

    /// A literal bound without a copy (`SQLiteStatement.bindStatic`).
    @inline(__always) mutating func bindStatic(_ t: StaticString, at i: Int32, of s: SQLiteStatement) {
        guard t.hasPointerRepresentation else {
            bound[Int(i)] = .unknown
            s.bindStatic(t, at: i)
            return
        }
        let value = Bound.staticText(UnsafeRawPointer(t.utf8Start))
        guard bound[Int(i)] != value else { return }
        bound[Int(i)] = value
        s.bindStatic(t, at: i)
    }
}
