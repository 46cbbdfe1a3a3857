"""A capture whose client breaks ATT's sequential protocol (Core v5.4 Vol 3 Part F 3.3.2: a
client shall not send a request before the response to its previous one has arrived), with
the responses in each order and with Error Responses (3.4.1.1), which name the request opcode
and handle in error. Made for the transaction matcher's tests.

    python3 -m blegen.overlap OUTDIR        (run from Scripts/)

writes OUTDIR/att-overlap.btsnoop and OUTDIR/att-overlap.json: per link (its HCI handle) the
request frames and the frame that answers each (null: none in the capture), by construction.
Frame numbers are 1-based, as Wireshark counts them.

  0x0040  Write Request, then Read Request before its response; Write Response, Read Response
  0x0041  the same, answered the other way round: Read Response, then Write Response
  0x0042  two Write Requests to different handles; the Error Response naming the second
          (Write Not Permitted) comes first, then the Write Response to the first
  0x0043  a well-behaved client: Read, its response, Write, its response (no overlap)
  0x0044  the deadlock: Write Request, Read By Group Type Request at once; the Error Response
          names the write; the discovery is never answered; the client retries both, unanswered,
          until the capture ends (no disconnection)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import att
from .scenarios import Log, SENSOR, connect, host_disconnect, power_on

WRITE_NOT_PERMITTED = 0x03
CONTROL, CCCD, NAME = 0x0012, 0x0010, 0x0003


def build() -> tuple[bytes, dict[str, dict[str, int | None]]]:
    log = Log()
    power_on(log)
    expected: dict[str, dict[str, int | None]] = {}
    t = 100.0

    def link(h: int) -> dict[str, int | None]:
        nonlocal t
        connect(log, t, h, SENSOR)
        t += 50
        pairs: dict[str, int | None] = {}
        expected[f"0x{h:04X}"] = pairs
        return pairs

    # 0x0040: responses in request order
    h = 0x0040
    pairs = link(h)
    w = log.att_tx(t, h, att.write_req(CONTROL, b"\x01"))
    r = log.att_tx(t + 2, h, att.read_req(NAME))
    pairs[str(w)] = log.att_rx(t + 30, h, att.write_rsp())
    pairs[str(r)] = log.att_rx(t + 60, h, att.read_rsp(b"Pulse"))
    host_disconnect(log, t + 200, h)
    t += 400

    # 0x0041: responses the other way round
    h = 0x0041
    pairs = link(h)
    w = log.att_tx(t, h, att.write_req(CONTROL, b"\x01"))
    r = log.att_tx(t + 2, h, att.read_req(NAME))
    pairs[str(r)] = log.att_rx(t + 30, h, att.read_rsp(b"Pulse"))
    pairs[str(w)] = log.att_rx(t + 60, h, att.write_rsp())
    host_disconnect(log, t + 200, h)
    t += 400

    # 0x0042: the Error Response names the second write's handle and comes first
    h = 0x0042
    pairs = link(h)
    w1 = log.att_tx(t, h, att.write_req(CCCD, b"\x01\x00"))
    w2 = log.att_tx(t + 2, h, att.write_req(CONTROL, b"\x01"))
    pairs[str(w2)] = log.att_rx(t + 30, h, att.error_rsp(att.WRITE_REQ, CONTROL, WRITE_NOT_PERMITTED))
    pairs[str(w1)] = log.att_rx(t + 60, h, att.write_rsp())
    host_disconnect(log, t + 200, h)
    t += 400

    # 0x0043: well-behaved
    h = 0x0043
    pairs = link(h)
    r = log.att_tx(t, h, att.read_req(NAME))
    pairs[str(r)] = log.att_rx(t + 30, h, att.read_rsp(b"Pulse"))
    w = log.att_tx(t + 60, h, att.write_req(CONTROL, b"\x01"))
    pairs[str(w)] = log.att_rx(t + 90, h, att.write_rsp())
    host_disconnect(log, t + 200, h)
    t += 400

    # 0x0044: the deadlock, left open when the capture ends
    h = 0x0044
    pairs = link(h)
    w = log.att_tx(t, h, att.write_req(CONTROL, b"\x00"))
    d = log.att_tx(t + 4, h, att.read_by_group_type_req(0x0001, 0xFFFF, 0x2801))
    pairs[str(w)] = log.att_rx(t + 30, h, att.error_rsp(att.WRITE_REQ, CONTROL, WRITE_NOT_PERMITTED))
    pairs[str(d)] = None
    for k in range(1, 4):
        w = log.att_tx(t + k * 300, h, att.write_req(CONTROL, b"\x00"))
        d = log.att_tx(t + k * 300 + 4, h, att.read_by_group_type_req(0x0001, 0xFFFF, 0x2801))
        pairs[str(w)] = None
        pairs[str(d)] = None
    return log.btsnoop(), expected


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    capture, expected = build()
    (out / "att-overlap.btsnoop").write_bytes(capture)
    (out / "att-overlap.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(out / "att-overlap.btsnoop")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
