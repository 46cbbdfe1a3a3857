import BLECore
import BLEReplay
import Foundation

/// `CBMutableService`: a service of the app's own GATT server (`CBPeripheralManager.add(_:)`).
/// Its handles are assigned when it is added (Docs/peripheral.md "Handles").
open class CBMutableService: CBService {
    public init(type UUID: CBUUID, primary isPrimary: Bool) {
        super.init(localType: UUID, isPrimary: isPrimary)
    }

    override open var includedServices: [CBService]? {
        get { super.includedServices }
        set { super.includedServices = newValue }
    }

    override open var characteristics: [CBCharacteristic]? {
        get { super.characteristics }
        set {
            super.characteristics = newValue
            for c in newValue ?? [] { c.service = self }
        }
    }
}

/// `CBMutableCharacteristic`. A non-nil `value` is cached: the system answers reads of it and
/// the characteristic must be read-only; nil sends every read and write to the delegate
/// (Docs/peripheral.md "Cached values").
open class CBMutableCharacteristic: CBCharacteristic {
    open var permissions: CBAttributePermissions
    /// The centrals subscribed now (empty, never nil, once the service is published).
    open internal(set) var subscribedCentrals: [CBCentral]? = []

    public init(type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions) {
        self.permissions = permissions
        super.init(localType: UUID, properties: properties, value: value)
    }

    override open var properties: CBCharacteristicProperties {
        get { super.properties }
        set { super.properties = newValue }
    }

    override open var value: Data? {
        get { super.value }
        set { super.value = newValue }
    }

    override open var descriptors: [CBDescriptor]? {
        get { super.descriptors }
        set {
            super.descriptors = newValue
            for d in newValue ?? [] { d.characteristic = self }
        }
    }

    /// Value handle, CCCD handle and last handle in the published database (0 until added).
    var valueHandle: UInt16 = 0
    var cccdHandle: UInt16?
    /// The value the system cached when the characteristic was published (`add(_:)`), nil for a
    /// dynamic one. Whether reads and writes reach the app is decided then: an app that later
    /// keeps its latest value in `value` (Apple's guide does, in `didReceiveWrite`) still hears
    /// them (CBLocalDatabase.add).
    var cachedValue: Data?

    override open var description: String {
        "<CBMutableCharacteristic: \(uuid.uuidString), value handle \(hex(valueHandle, width: 4)), properties 0x\(String(properties.rawValue, radix: 16)), permissions 0x\(String(permissions.rawValue, radix: 16))>"
    }
}

/// `CBMutableDescriptor`: iOS publishes Characteristic User Description (2901, a String) and
/// Characteristic Presentation Format (2904, Data) descriptors; the system owns the CCCD (2902).
open class CBMutableDescriptor: CBDescriptor {
    /// Traps, as iOS raises an NSInternalInconsistencyException in this initializer, when the
    /// value is not of the type its descriptor takes: a String for Characteristic User
    /// Description (2901, Core v5.4 Vol 3 Part G 3.3.3.2: UTF-8 text), a Data for Characteristic
    /// Presentation Format (2904, 3.3.3.5: seven octets). Apple, `CBMutableDescriptor`: the value
    /// types are CBUUID's (an NSString for 2901, an NSData for 2904); an app passing another type
    /// crashes on the iPhone, so the replay stops the test where the app would stop.
    public init(type UUID: CBUUID, value: Any?) {
        switch UUID.bluetoothUUID.uint16 {
        case 0x2901?: precondition(value is String, Self.userDescriptionTakesAString)
        case 0x2904?: precondition(value is Data, Self.presentationFormatTakesData)
        default: break
        }
        super.init(localType: UUID, value: value)
    }

    static let userDescriptionTakesAString = "A Characteristic User Description (2901) descriptor's value must be a String (iOS raises NSInternalInconsistencyException)"
    static let presentationFormatTakesData = "A Characteristic Presentation Format (2904) descriptor's value must be a Data (iOS raises NSInternalInconsistencyException)"

    /// Handle in the published database (0 until added).
    var localHandle: UInt16 = 0

    /// The bytes a read of it returns.
    var bytes: [UInt8] {
        switch value {
        case let s as String: Array(s.utf8)
        case let d as Data: Array(d)
        case let n as NSNumber: [UInt8(truncatingIfNeeded: n.intValue), UInt8(truncatingIfNeeded: n.intValue >> 8)]
        default: []
        }
    }
}
