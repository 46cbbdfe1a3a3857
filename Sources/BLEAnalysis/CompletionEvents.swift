import BLETimeline

/// One capture's Number Of Completed Packets entries (Core v5.4 Vol 4 Part E 7.7.19), read from
/// its packet rows as `AcknowledgedPackets` asks for them and kept in frame order, so that each
/// frame range is read once per analysis.
///
/// Each link lost to a supervision timeout reads the credits of its controller between its first
/// packet and its end. Read by a scan of that range, every link's packets in it were stepped
/// through once per lost link: forty concurrent links lost at the end of a 500,000-record capture
/// took 18 G instructions, quadratic in links and records (issue 12). Read here, the events are
/// found once and each link steps only through its own packets (the `packet_connection` index).
///
/// Bounded: at most `capacity` entries (24 bytes each) are kept; past that `entries` answers nil
/// and the caller reads its range from the packet rows as before.
final class CompletionEvents {
    struct Entry {
        let frame: UInt32
        /// The event's completed packets for the handle (its entries for the handle summed).
        let count: UInt32
        let controller: UInt16
        let handle: UInt16
        let ts: Int64
    }

    static let capacity = 1 << 20
    private let db: SQLiteDatabase
    private let captureID: Int64
    private let limit: Int
    /// The entries of the frames in `covered`, in frame order.
    private var stored: [Entry] = []
    /// The frame ranges read so far: disjoint, in order. Only what links asked for is read (a
    /// short link's range, not the capture between two of them).
    private var covered: [Range<Int>] = []
    private var overflowed = false

    init(db: SQLiteDatabase, captureID: Int64, capacity: Int = CompletionEvents.capacity) {
        self.db = db
        self.captureID = captureID
        limit = capacity
    }

    /// The entries for `handle` of `controller` whose events have frames in `frames`, in frame
    /// order (events that completed none of the handle's packets left out); nil when the
    /// capture holds more than `capacity` entries in the frames asked for so far.
    func entries(controller: Int, handle: Int, frames: Range<Int>) throws -> [Entry]? {
        guard !overflowed else { return nil }
        try cover(frames)
        guard !overflowed else { return nil }
        var out: [Entry] = []
        for e in stored[firstIndex(atOrAfter: frames.lowerBound)...] {
            if Int(e.frame) >= frames.upperBound { break }
            if Int(e.controller) == controller, Int(e.handle) == handle { out.append(e) }
        }
        return out
    }

    /// Reads the frames of `frames` not read yet.
    private func cover(_ frames: Range<Int>) throws {
        guard !frames.isEmpty else { return }
        var gaps: [Range<Int>] = []
        var from = frames.lowerBound
        for known in covered where known.upperBound > from && known.lowerBound < frames.upperBound {
            if known.lowerBound > from { gaps.append(from..<known.lowerBound) }
            from = max(from, known.upperBound)
        }
        if from < frames.upperBound { gaps.append(from..<frames.upperBound) }
        for gap in gaps {
            let read = try read(gap, alongside: stored.count)
            if overflowed {
                stored = []
                covered = []
                return
            }
            // A gap lies between ranges already read: its entries go between theirs.
            stored.insert(contentsOf: read, at: firstIndex(atOrAfter: gap.lowerBound))
            covered.append(gap)
        }
        covered.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for r in covered {
            if let last = merged.last, last.upperBound >= r.lowerBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        covered = merged
    }

    /// The index of the first stored entry with a frame at or after `frame`.
    private func firstIndex(atOrAfter frame: Int) -> Int {
        var low = 0, high = stored.count
        while low < high {
            let mid = (low + high) / 2
            if Int(stored[mid].frame) < frame { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The entries of the events with frames in `frames`, found as `AcknowledgedPackets`' scan
    /// finds them (kind `evt`, raw bytes that are `CompletedPacketsEvent`'s, entries from them).
    private func read(_ frames: Range<Int>, alongside kept: Int) throws -> [Entry] {
        let s = try db.prepare("""
            SELECT frame, ts_us, controller_index, raw FROM packet
            WHERE rowid >= \(PacketKey.sql(capture: "?1", frame: "?2")) AND rowid < \(PacketKey.sql(capture: "?1", frame: "?3"))
            AND kind = 'evt' AND \(CompletedPacketsEvent.storedRow)
            ORDER BY rowid
            """)
        try s.bind([.integer(captureID), .integer(Int64(frames.lowerBound)), .integer(Int64(frames.upperBound))])
        var out: [Entry] = []
        while try s.step() {
            let frame = UInt32(truncatingIfNeeded: s.int(0)), ts = s.int64(1)
            let controller = UInt16(truncatingIfNeeded: s.int(2))
            var counts: [(handle: UInt16, count: UInt32)] = []
            for e in CompletedPacketsEvent.entries(s.blob(3) ?? []) {
                if let i = counts.firstIndex(where: { $0.handle == e.handle }) {
                    counts[i].count &+= UInt32(e.count)
                } else {
                    counts.append((e.handle, UInt32(e.count)))
                }
            }
            for c in counts where c.count > 0 {
                out.append(Entry(frame: frame, count: c.count, controller: controller, handle: c.handle, ts: ts))
            }
            if kept + out.count > limit {
                overflowed = true
                return []
            }
        }
        return out
    }
}
