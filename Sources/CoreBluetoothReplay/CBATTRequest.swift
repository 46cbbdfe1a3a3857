import BLEReplay
import Foundation

/// `CBCentral`: a remote central connected to the app's GATT server (one object per remote
/// device, across its connections).
open class CBCentral: CBPeer {
    /// Its current (or last) link's server side, for the MTU.
    weak var server: LocalServerLink?

    override init(identifier: UUID) {
        super.init(identifier: identifier)
    }

    /// The ATT MTU in force (23 until the central exchanges one, Core v5.4 Vol 3 Part F 3.4.2).
    var mtu: Int { server?.mtu ?? 23 }

    /// The most a single notification or indication can carry: the ATT MTU minus the 3-byte
    /// Handle Value Notification header (Core v5.4 Vol 3 Part F 3.4.7.1), and never more than an
    /// attribute value can hold, 512 octets (Vol 3 Part F 3.2.9): an ATT MTU of 516 or more
    /// (517 is common) leaves room for more than any value.
    open var maximumUpdateValueLength: Int { min(mtu - 3, Self.maximumAttributeValueLength) }

    /// The longest attribute value, 512 octets (Core v5.4 Vol 3 Part F 3.2.9).
    static let maximumAttributeValueLength = 512

    override open var description: String { "<CBCentral: \(identifier.uuidString), MTU \(mtu)>" }
}

/// `CBATTRequest`: one read or write of a characteristic of the app's server, as
/// `peripheralManager(_:didReceiveRead:)` and `(_:didReceiveWrite:)` hand it over.
open class CBATTRequest: NSObject {
    public let central: CBCentral
    public let characteristic: CBCharacteristic
    /// Where in the value the read starts (Read Blob) or the write goes (Prepare Write).
    public let offset: Int
    /// A write's bytes; for a read, the app sets the value from `offset` on.
    open var value: Data?
    /// `respond(to:withResult:)` answered it.
    var answered = false

    init(central: CBCentral, characteristic: CBCharacteristic, offset: Int, value: Data?) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.value = value
        super.init()
    }
}
