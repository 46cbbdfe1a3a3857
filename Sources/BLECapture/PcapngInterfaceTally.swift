import BLECore

/// What a pcapng whose interfaces differ in link type says about how it was read, as notes:
/// the packets of each interface whose link type BLECapture does not read (skipped, yet counted
/// as frames, so frame numbers stay Wireshark's), and a controller number that an H4 interface
/// (187/201: its Interface ID) and an adapter of a Linux monitor interface (254: its index) share.
struct PcapngInterfaceTally {
    /// Packets skipped per interface: its link type, how many, the first one's block.
    private var skipped: [UInt32: (linkType: PcapLinkType, count: Int, offset: Int)] = [:]
    /// Controllers numbered by an H4 interface (its Interface ID), with the interface's link type.
    private var interfaceControllers: [UInt16: PcapLinkType] = [:]
    /// Controllers numbered by a Linux monitor interface's adapter index.
    private var monitorControllers: Set<UInt16> = []
    /// Controllers both number, with where the second kind first appeared.
    private var shared: [(controller: UInt16, linkType: PcapLinkType, offset: Int)] = []

    /// A packet of `interface`, of `linkType`, whose block starts at `offset`, not read.
    mutating func skip(interface: UInt32, linkType: PcapLinkType, offset: Int) {
        skipped[interface, default: (linkType, 0, offset)].count += 1
    }

    /// A packet read as `linkType` (HCI): the controller it names. 0xFFFF, the monitor's "no
    /// adapter" (system notes), names none.
    mutating func saw(_ record: CaptureRecord, linkType: PcapLinkType) {
        let controller = record.controllerIndex
        if linkType == .bluetoothLinuxMonitor {
            guard controller != 0xFFFF, monitorControllers.insert(controller).inserted else { return }
            if let h4 = interfaceControllers[controller] { shared.append((controller, h4, record.fileOffset)) }
        } else if interfaceControllers[controller] == nil {
            interfaceControllers[controller] = linkType
            if monitorControllers.contains(controller) { shared.append((controller, linkType, record.fileOffset)) }
        }
    }

    /// One note per skipped interface, then one per shared controller.
    var notes: [CaptureWarning] {
        let skips = skipped.sorted { $0.key < $1.key }.map { interface, skip in
            CaptureWarning(offset: skip.offset, message: "pcapng interface \(interface) is \(skip.linkType), not "
                + "Bluetooth HCI or LE link layer: its \(skip.count) packet\(skip.count == 1 ? "" : "s") were not read "
                + "(still counted as frames, so frame numbers are Wireshark's)")
        }
        let shares = shared.map { controller, linkType, offset in
            CaptureWarning(offset: offset, message: "controller \(controller) is both pcapng interface \(controller) "
                + "(\(linkType)) and adapter hci\(controller) of a \(PcapLinkType.bluetoothLinuxMonitor) interface: "
                + "their connection handles are tracked as one controller's (--controller \(controller) selects both)")
        }
        return skips + shares
    }
}
