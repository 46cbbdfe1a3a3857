import CPostgres

/// Where the warehouse is: a libpq connection string (`host=db port=5432 dbname=fleet`) or URI
/// (`postgresql://user:secret@db:5432/fleet`), PostgreSQL documentation 34.1.1 "Connection Strings".
///
/// The password it may hold is never printed: every message that leaves this module goes
/// through `redact`, and a string libpq cannot parse is never echoed.
public struct WarehouseURL: Sendable {
    /// The text as given (holds the password: never print it).
    let conninfo: String
    /// The password given in it, if any.
    let password: String?
    /// Host and port as given (libpq's defaults when absent).
    public let host: String
    public let port: String

    /// The environment variable that supplies the URL when `--warehouse` is not given.
    public static let environmentVariable = "BLEREPLAY_WAREHOUSE"

    public init(_ text: String) throws(WarehouseError) {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            var reason = "libpq could not parse it"
            if let error {
                reason = Self.withoutQuotedText(String(cString: error)).trimmingNewlines
                PQfreemem(error)
            }
            throw WarehouseError(.badURL, "the warehouse URL is neither a libpq connection string nor a URI (\(reason))")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var i = 0
        while let keyword = options[i].keyword {
            if let value = options[i].val { values[String(cString: keyword)] = String(cString: value) }
            i += 1
        }
        conninfo = text
        password = values["password"].flatMap { $0.isEmpty ? nil : $0 }
        let hosts = values["host"] ?? values["hostaddr"] ?? ""
        host = hosts.isEmpty ? "the local Unix socket" : hosts
        port = values["port"].flatMap { $0.isEmpty ? nil : $0 } ?? "5432"
    }

    /// `message` with the password, wherever it appears, replaced by `***`.
    public func redact(_ message: String) -> String {
        guard let password, !password.isEmpty else { return message }
        var out = message.replacing(password, with: "***")
        // A URI carries it percent-encoded too.
        let encoded = Self.percentEncoded(password)
        if encoded != password { out = out.replacing(encoded, with: "***") }
        return out
    }

    /// libpq quotes the fragment it choked on; that fragment may be the password.
    static func withoutQuotedText(_ s: String) -> String {
        var out = ""
        var quoted = false
        for c in s {
            if c == "\"" {
                if !quoted { out += "\"…\"" }
                quoted.toggle()
            } else if !quoted {
                out.append(c)
            }
        }
        return out
    }

    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let c = Character(Unicode.Scalar(b))
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    var trimmingNewlines: String {
        var s = Substring(self)
        while s.last == "\n" || s.last == " " { s = s.dropLast() }
        return String(s)
    }

    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
