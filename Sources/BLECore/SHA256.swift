#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCrypto

/// SHA-256 (FIPS 180-4), streaming, computed by OpenSSL's libcrypto (which uses the CPU's SHA
/// instructions where it has them). Used to recognise a capture imported twice.
///
/// A value: copying it copies the state (`SHA256_CTX` is a plain C struct), so a copy can be
/// finished without disturbing the original.
public struct SHA256: @unchecked Sendable {
    private var context = SHA256_CTX()

    public init() {
        SHA256_Init(&context)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest. The state is finished: hash again only after a new `init()`.
    public mutating func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        out.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return out
    }

    /// Hex digest of a whole file, read in 1 MiB chunks; nil when it cannot be read.
    public static func hexDigest(ofFile path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var h = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { chunk.withUnsafeBytes { h.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
            if n < chunk.count { break }
        }
        if ferror(f) != 0 { return nil }
        return hexString(h.finalize())
    }
}
