"""Security functions for SMP, pure standard library (Core v5.4 Vol 3 Part H 2.2).

Only what the sample captures need: AES-128 (e), AES-CMAC, c1 and s1 (LE legacy pairing),
f4 (LE Secure Connections confirm values) and P-256 public keys. Byte order follows the SMP
wire: every 16-byte value and address is least significant octet first, as in Bumble's
`bumble/crypto`, against which `Scripts/blegen/selftest.py` checks these.

Not constant-time and not for real keys: it makes sample captures, nothing else.
"""

from __future__ import annotations

# --- AES-128 (FIPS-197), encryption only --------------------------------------------------

def _xtime(a: int) -> int:
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def _make_sbox() -> bytes:
    sbox = [0] * 256
    p = q = 1
    while True:
        p = p ^ _xtime(p)  # multiply p by 3
        q ^= q << 1        # divide q by 3
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        x = q ^ ((q << 1) | (q >> 7)) ^ ((q << 2) | (q >> 6)) ^ ((q << 3) | (q >> 5)) ^ ((q << 4) | (q >> 4))
        sbox[p] = (x ^ 0x63) & 0xFF
        if p == 1:
            break
    sbox[0] = 0x63
    return bytes(sbox)


_SBOX = _make_sbox()
_X2 = bytes(_xtime(i) & 0xFF for i in range(256))


def _expand_key(key: bytes) -> list[list[int]]:
    words = [list(key[i:i + 4]) for i in range(0, 16, 4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = t[1:] + t[:1]
            t = [_SBOX[b] for b in t]
            t[0] ^= rcon
            rcon = _xtime(rcon) & 0xFF
        words.append([a ^ b for a, b in zip(words[i - 4], t)])
    return [sum(words[r * 4:r * 4 + 4], []) for r in range(11)]


def aes128_encrypt(key: bytes, block: bytes) -> bytes:
    """AES-128 of one block, both in the usual (big-endian, FIPS-197) byte order."""
    rk = _expand_key(key)
    s = [b ^ k for b, k in zip(block, rk[0])]
    for rnd in range(1, 11):
        s = [_SBOX[b] for b in s]
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]  # ShiftRows (column-major state)
        if rnd != 10:
            out = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                t = a[0] ^ a[1] ^ a[2] ^ a[3]
                out += [a[i] ^ t ^ _X2[a[i] ^ a[(i + 1) % 4]] for i in range(4)]
            s = out
        s = [b ^ k for b, k in zip(s, rk[rnd])]
    return bytes(s)


def e(key: bytes, data: bytes) -> bytes:
    """Security function e (Vol 3 Part H 2.2.1) on little-endian (SMP wire order) values."""
    return aes128_encrypt(key[::-1], data[::-1])[::-1]


def aes_cmac(key: bytes, message: bytes) -> bytes:
    """AES-CMAC (RFC 4493), big-endian in and out."""
    def shift(b: bytes) -> bytes:
        v = (int.from_bytes(b, "big") << 1) & ((1 << 128) - 1)
        if b[0] & 0x80:
            v ^= 0x87
        return v.to_bytes(16, "big")

    k1 = shift(aes128_encrypt(key, bytes(16)))
    k2 = shift(k1)
    n = max(1, (len(message) + 15) // 16)
    last = message[16 * (n - 1):]
    if len(last) == 16:
        last = bytes(a ^ b for a, b in zip(last, k1))
    else:
        last = last + b"\x80" + bytes(15 - len(last))
        last = bytes(a ^ b for a, b in zip(last, k2))
    x = bytes(16)
    for i in range(n - 1):
        x = aes128_encrypt(key, bytes(a ^ b for a, b in zip(x, message[16 * i:16 * i + 16])))
    return aes128_encrypt(key, bytes(a ^ b for a, b in zip(x, last)))


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def c1(k: bytes, r: bytes, preq: bytes, pres: bytes, iat: int, rat: int, ia: bytes, ra: bytes) -> bytes:
    """Legacy confirm value (Vol 3 Part H 2.2.3); preq/pres are the 7-byte SMP PDUs as sent."""
    p1 = bytes([iat, rat]) + preq + pres
    p2 = ra + ia + bytes(4)
    return e(k, _xor(e(k, _xor(r, p1)), p2))


def s1(k: bytes, r1: bytes, r2: bytes) -> bytes:
    """Legacy short-term key (Vol 3 Part H 2.2.4): r1 = Srand, r2 = Mrand."""
    return e(k, r2[0:8] + r1[0:8])


def f4(u: bytes, v: bytes, x: bytes, z: int) -> bytes:
    """LE Secure Connections confirm value (Vol 3 Part H 2.2.6), wire order in and out."""
    return aes_cmac(x[::-1], u[::-1] + v[::-1] + bytes([z]))[::-1]


# --- P-256 --------------------------------------------------------------------------------

_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
_A = _P - 3
_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
      0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def _add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0] and (p[1] + q[1]) % _P == 0:
        return None
    if p == q:
        lam = (3 * p[0] * p[0] + _A) * pow(2 * p[1], -1, _P) % _P
    else:
        lam = (q[1] - p[1]) * pow(q[0] - p[0], -1, _P) % _P
    x = (lam * lam - p[0] - q[0]) % _P
    return x, (lam * (p[0] - x) - p[1]) % _P


def p256_public_key(private: int) -> tuple[bytes, bytes]:
    """(X, Y) of d*G, each 32 bytes little-endian as the Pairing Public Key PDU carries them."""
    d = private % (_N - 1) + 1
    result, addend = None, _G
    while d:
        if d & 1:
            result = _add(result, addend)
        addend = _add(addend, addend)
        d >>= 1
    x, y = result
    return x.to_bytes(32, "little"), y.to_bytes(32, "little")
