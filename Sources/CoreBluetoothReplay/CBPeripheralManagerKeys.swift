/// `CBPeripheralManager` option and restoration keys, with the string values CoreBluetooth uses.

// CBPeripheralManager init options.
public let CBPeripheralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBPeripheralManagerOptionRestoreIdentifierKey = "kCBInitOptionRestoreIdentifier"

// State restoration (peripheralManager(_:willRestoreState:)).
/// The services the system kept published (`[CBMutableService]`).
public let CBPeripheralManagerRestoredStateServicesKey = "kCBRestoredServices"
/// The advertisement data the system kept advertising (`[String: Any]`).
public let CBPeripheralManagerRestoredStateAdvertisementDataKey = "kCBRestoredAdvertisement"

/// `CBPeripheralManagerConnectionLatency` (`setDesiredConnectionLatency(_:for:)`).
public enum CBPeripheralManagerConnectionLatency: Int, Sendable {
    case low = 0
    case medium = 1
    case high = 2
}

/// `CBPeripheralManagerAuthorizationStatus` (deprecated in iOS 13 for `CBManager.authorization`).
public enum CBPeripheralManagerAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorized = 3
}
