/// Files recorded actions under the anchors they wait for (Docs/replay.md "Anchoring rules"),
/// in order: consecutive actions with the same anchor (a notification stream after one
/// subscription, a central's burst of writes) are gathered and filed with one lookup, not
/// hashed one by one (issue 12). Each anchor's list keeps the order the actions were added in.
struct AnchorFiling<Item> {
    private var anchor: Anchor?
    private var items: [Item] = []

    mutating func add(_ item: Item, to anchor: Anchor, in waiting: inout [Anchor: [Item]]) {
        if let current = self.anchor, current != anchor { flush(into: &waiting) }
        self.anchor = anchor
        items.append(item)
    }

    /// Files what was gathered; call once after the last `add`.
    mutating func flush(into waiting: inout [Anchor: [Item]]) {
        guard let anchor else { return }
        waiting[anchor, default: []].append(contentsOf: items)
        items.removeAll(keepingCapacity: true)
        self.anchor = nil
    }
}
