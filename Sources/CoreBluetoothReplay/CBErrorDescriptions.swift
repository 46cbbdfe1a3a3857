/// The `localizedDescription` texts CoreBluetooth gives its errors (English), so logs and
/// user-facing messages read as on iOS (Docs/replay.md "Error texts": where each text was seen).
enum CBErrorDescriptions {
    static func cbError(_ code: Int) -> String {
        switch code {
        case 0: "Unknown error."
        case 1: "The specified parameters are invalid."
        case 2: "The specified attribute handle is invalid."
        case 3: "The device is not connected."
        case 4: "The device has run out of space to complete the intended operation."
        case 5: "The operation was cancelled."
        case 6: "The connection has timed out unexpectedly."
        case 7: "The specified device has disconnected from us."
        case 8: "The specified UUID is not allowed for this operation."
        case 9: "The peripheral is already advertising."
        case 10: "Failed to connect to peripheral."
        case 11: "The system has reached the connection limit."
        case 12: "Unknown device."
        case 13: "The operation is not supported."
        case 14: "Peer removed pairing information"
        case 15: "Encryption timed out"
        case 16: "Too many LE paired devices"
        default: "Unknown error."
        }
    }

    static func attError(_ code: Int) -> String {
        switch code {
        case 0: "The request has succeeded."
        case 1: "The handle is invalid."
        case 2: "Reading is not permitted."
        case 3: "Writing is not permitted."
        case 4: "The command is invalid."
        case 5: "Authentication is insufficient."
        case 6: "The request is not supported."
        case 7: "The offset is invalid."
        case 8: "Authorization is insufficient."
        case 9: "The prepare queue is full."
        case 10: "The attribute could not be found."
        case 11: "The attribute is not long."
        case 12: "The encryption key size is insufficient."
        case 13: "The value's length is invalid."
        case 14: "Unlikely error."
        case 15: "Encryption is insufficient."
        case 16: "The group type is not supported."
        case 17: "Resources are insufficient."
        default: "Unknown ATT error."
        }
    }
}
