#!/usr/bin/env python3
"""Second opinion on a btsnoop H4 capture: parse every record with Bumble (pip install
bumble==0.0.236) and require that each HCI packet, each reassembled ATT PDU and each SMP PDU
parses and serializes back to the same bytes. tshark is the first opinion (tshark_counts.py).

    check_with_bumble.py [--allow-truncated] FILE...
        exit 1 when a packet does not round-trip, or (without --allow-truncated) when the capture
        ends inside an L2CAP frame, which the bench captures may do since they end at N records
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blegen.btsnoop import read_records  # noqa: E402

try:
    from bumble import att, hci, smp
except ImportError:
    sys.exit("bumble is not installed: pip install bumble==0.0.236")


def check(path: str) -> int:
    problems = 0
    pending: dict[tuple[int, int], bytes] = {}
    counts = {"hci": 0, "att": 0, "smp": 0, "signaling": 0}
    for n, (_, flags, pkt) in enumerate(read_records(path), start=1):
        try:
            parsed = hci.HCI_Packet.from_bytes(pkt)
            if bytes(parsed) != pkt:
                raise ValueError(f"re-serialized as {bytes(parsed).hex()}")
            if "Unknown" in type(parsed).__name__ or "unknown" in str(parsed)[:60].lower():
                raise ValueError(f"bumble does not know it: {parsed}")
            counts["hci"] += 1
            if isinstance(parsed, hci.HCI_AclDataPacket):
                key = (parsed.connection_handle, flags & 1)
                if parsed.pb_flag in (hci.HCI_ACL_PB_FIRST_NON_FLUSHABLE, hci.HCI_ACL_PB_FIRST_FLUSHABLE):
                    if key in pending:
                        raise ValueError("new L2CAP frame before the last one completed")
                    pending[key] = parsed.data
                else:
                    pending[key] = pending[key] + parsed.data
                frame = pending[key]
                length = int.from_bytes(frame[0:2], "little")
                if len(frame) > length + 4:
                    raise ValueError("ACL fragments overrun the L2CAP length")
                if len(frame) == length + 4:
                    del pending[key]
                    cid, payload = int.from_bytes(frame[2:4], "little"), frame[4:]
                    if cid == 4:
                        pdu = att.ATT_PDU.from_bytes(payload)
                        if bytes(pdu) != payload:
                            raise ValueError(f"ATT {pdu} re-serialized as {bytes(pdu).hex()}")
                        counts["att"] += 1
                    elif cid == 6:
                        cmd = smp.SMP_Command.from_bytes(payload)
                        if bytes(cmd) != payload:
                            raise ValueError(f"SMP {cmd} re-serialized as {bytes(cmd).hex()}")
                        counts["smp"] += 1
                    elif cid == 5:
                        counts["signaling"] += 1
        except Exception as exc:  # noqa: BLE001 - report any failure with the frame number
            problems += 1
            print(f"{path}: frame {n}: {pkt.hex()}: {type(exc).__name__}: {exc}")
            if problems > 10:
                break
    if pending:
        note = f"{path}: L2CAP frames left incomplete at the end (handle, direction): {sorted(pending)}"
        if ALLOW_TRUNCATED:
            print(note + " (allowed: --allow-truncated)")
        else:
            problems += 1
            print(note)
    print(f"{path}: {counts['hci']} HCI packets, {counts['att']} ATT, {counts['smp']} SMP, "
          f"{counts['signaling']} signalling; {'OK' if not problems else f'{problems} problem(s)'}")
    return problems


def check_crypto() -> None:
    """blegen.crypto (pure Python) must agree with bumble.crypto on the functions the captures use."""
    import random

    from bumble import crypto as reference

    from blegen import crypto
    rng = random.Random(1)

    def rnd(n: int) -> bytes:
        return bytes(rng.getrandbits(8) for _ in range(n))

    for _ in range(20):
        k, r, preq, pres, ia, ra = rnd(16), rnd(16), rnd(7), rnd(7), rnd(6), rnd(6)
        assert crypto.c1(k, r, preq, pres, 1, 0, ia, ra) == reference.c1(k, r, preq, pres, 1, 0, ia, ra)
        r2 = rnd(16)
        assert crypto.s1(k, r, r2) == reference.s1(k, r, r2)
        u, v, z = rnd(32), rnd(32), rng.choice((0, 0x80, 0x81))
        assert crypto.f4(u, v, r, z) == reference.f4(u, v, r, bytes([z]))
    d = rng.getrandbits(255)
    key = reference.EccKey.from_private_key_bytes((d % (crypto._N - 1) + 1).to_bytes(32, "big"))
    assert crypto.p256_public_key(d) == (key.x[::-1], key.y[::-1])
    print("blegen.crypto agrees with bumble.crypto (c1, s1, f4, P-256)")


ALLOW_TRUNCATED = False


def main() -> int:
    global ALLOW_TRUNCATED
    args = sys.argv[1:]
    if "--allow-truncated" in args:
        ALLOW_TRUNCATED = True
        args.remove("--allow-truncated")
    check_crypto()
    return 1 if sum(check(p) for p in args) else 0


if __name__ == "__main__":
    sys.exit(main())
