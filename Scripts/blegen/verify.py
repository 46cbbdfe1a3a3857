"""Host-stack invariants of an H4 btsnoop capture, checked without any third-party decoder:

  - timestamps never go back;
  - ACL data only on a handle between its LE (Enhanced) Connection Complete and its
    Disconnection Complete;
  - per handle and direction, L2CAP frames are not interleaved and fragments never overrun the
    L2CAP length; host fragments are at most the LE ACL buffer size (LE Read Buffer Size);
  - Number Of Completed Packets never returns more packets than were sent on a handle, and the
    host never has more packets outstanding than the controller has buffers.

    python3 -m blegen.verify FILE...   (from Scripts/), or verify(path) -> list of problems
"""

from __future__ import annotations

import struct
import sys

from .btsnoop import read_records


def verify(path: str, allow_truncated: bool = False) -> list[str]:
    problems: list[str] = []
    last_ts = None
    acl_len, acl_num = 27, 8
    open_handles: set[int] = set()
    pending: dict[tuple[int, int], int] = {}  # (handle, received) -> bytes still expected
    outstanding: dict[int, int] = {}

    def bad(n: int, msg: str) -> None:
        if len(problems) < 20:
            problems.append(f"{path}: frame {n}: {msg}")

    for n, (ts, flags, pkt) in enumerate(read_records(path), start=1):
        if last_ts is not None and ts < last_ts:
            bad(n, "timestamp goes back")
        last_ts = ts
        kind = pkt[0]
        if kind == 0x04:
            code = pkt[1]
            if code == 0x0E and struct.unpack_from("<H", pkt, 4)[0] == 0x2002 and pkt[6] == 0:
                acl_len, acl_num = struct.unpack_from("<HB", pkt, 7)
            elif code == 0x3E and pkt[3] in (0x01, 0x0A) and pkt[4] == 0x00:
                h = struct.unpack_from("<H", pkt, 5)[0]
                if h in open_handles:
                    bad(n, f"connection complete for handle 0x{h:04X} that is already open")
                open_handles.add(h)
                outstanding[h] = 0
            elif code == 0x05 and pkt[3] == 0x00:
                h = struct.unpack_from("<H", pkt, 4)[0]
                if h not in open_handles:
                    bad(n, f"disconnection of handle 0x{h:04X} that is not open")
                open_handles.discard(h)
                outstanding.pop(h, None)
                pending.pop((h, 0), None)
                pending.pop((h, 1), None)
            elif code == 0x13:
                for i in range(pkt[3]):
                    h, c = struct.unpack_from("<HH", pkt, 4 + 4 * i)
                    if h not in outstanding or outstanding[h] < c:
                        bad(n, f"Number Of Completed Packets returns {c} for handle 0x{h:04X} "
                               f"with {outstanding.get(h, 0)} outstanding")
                    else:
                        outstanding[h] -= c
        elif kind == 0x02:
            hf, length = struct.unpack_from("<HH", pkt, 1)
            h, pb = hf & 0x0FFF, (hf >> 12) & 0x3
            received = flags & 1
            data = pkt[5:]
            if len(data) != length:
                bad(n, "ACL length does not match")
            if h not in open_handles:
                bad(n, f"ACL on handle 0x{h:04X} that is not open")
            if not received:
                if length > acl_len:
                    bad(n, f"host fragment of {length} bytes exceeds the LE ACL buffer size {acl_len}")
                outstanding[h] = outstanding.get(h, 0) + 1
                if sum(outstanding.values()) > acl_num:
                    bad(n, f"{sum(outstanding.values())} ACL packets outstanding, controller has {acl_num} buffers")
            key = (h, received)
            if pb in (0b00, 0b10):
                if pending.get(key):
                    bad(n, "new L2CAP frame before the previous one completed")
                if len(data) < 4:
                    bad(n, "first fragment shorter than the L2CAP header")
                    continue
                pending[key] = struct.unpack_from("<H", data, 0)[0] + 4 - len(data)
            elif pb == 0b01:
                if not pending.get(key):
                    bad(n, "continuation without a first fragment")
                    continue
                pending[key] -= len(data)
            if pending.get(key, 0) < 0:
                bad(n, "fragments overrun the L2CAP length")
    left = {k: v for k, v in pending.items() if v}
    if left and not allow_truncated:
        problems.append(f"{path}: L2CAP frames incomplete at the end: {sorted(left)}")
    return problems


def main() -> int:
    args = sys.argv[1:]
    allow = "--allow-truncated" in args
    args = [a for a in args if a != "--allow-truncated"]
    failed = 0
    for p in args:
        problems = verify(p, allow)
        print("\n".join(problems) if problems else f"{p}: host-stack invariants hold")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
