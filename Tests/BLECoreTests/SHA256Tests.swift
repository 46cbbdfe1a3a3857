#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import BLECore

/// `SHA256` (OpenSSL's libcrypto behind the same API): the FIPS 180-2 / NIST CAVP vectors, fed
/// whole and in pieces that straddle the 64-byte block, and `hexDigest(ofFile:)` across its 1 MiB reads.
@Suite("SHA-256 from libcrypto")
struct SHA256Tests {
    static func digest(_ pieces: [[UInt8]]) -> String {
        var h = SHA256()
        for p in pieces { h.update(p) }
        return hexString(h.finalize())
    }

    /// FIPS 180-2 appendix B.3: one million 'a', fed in 1,000 pieces of 1,000 bytes (not block-aligned).
    @Test func millionA() {
        let piece = [UInt8](repeating: 0x61, count: 1000)
        #expect(Self.digest(Array(repeating: piece, count: 1000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// NIST CAVP SHA256ShortMsg: an 8-bit message (Len = 8, Msg = d3) and a 448-bit one that fills
    /// the padding block exactly; the same digest whether fed byte by byte or whole.
    @Test func shortMessages() {
        #expect(Self.digest([[0xd3]]) == "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1")
        let abc = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let want = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        #expect(Self.digest([abc]) == want)
        #expect(Self.digest(abc.map { [$0] }) == want)
        #expect(Self.digest([[]]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// A value: a copy goes on from the state it was copied at, the original is untouched.
    @Test func copiesAreIndependent() {
        var a = SHA256()
        a.update(Array("ab".utf8))
        var b = a
        b.update(Array("c".utf8))
        a.update(Array("x".utf8))
        #expect(hexString(b.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hexString(a.finalize()) == Self.digest([Array("abx".utf8)]))
    }

    /// A file of 2.5 MiB of 'a' (three reads, the last partial) hashes as the bytes do; a missing file is nil.
    @Test func fileDigest() throws {
        var template = Array("/tmp/blereplay-sha-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        let path = String(cString: template)
        defer { unlink(path) }
        let bytes = [UInt8](repeating: 0x61, count: 5 << 19)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(written == bytes.count)
        #expect(SHA256.hexDigest(ofFile: path) == Self.digest([bytes]))
        #expect(SHA256.hexDigest(ofFile: path + ".missing") == nil)
    }
}
