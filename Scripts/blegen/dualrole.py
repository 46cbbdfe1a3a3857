"""A phone that is central and peripheral at once, and a dual-mode peer, as the phone's HCI
log shows them (times explicit, in milliseconds, like blegen.scenarios).

    python3 -m blegen.dualrole OUTDIR        (run from Scripts/)

  dual-role.btsnoop   the phone connects to a watch as central (handle 0x0040, role 0) and
                      discovers its server; meanwhile a laptop connects to the phone (0x0041,
                      role 1, Core v5.4 Vol 4 Part E 7.7.65.1) and discovers the phone's server;
                      the watch also reads the phone's server over 0x0040 (GATT both ways);
                      the watch link ends 0x08, the laptop ends its link 0x13
  dual-mode.btsnoop   a headset on BR/EDR (Connection Complete 7.7.3, handle 0x000B) and on LE
                      (0x0040) with the same public address; the LE link ends 0x13, then the
                      BR/EDR one 0x08
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci
from .scenarios import Log, _rbgt_rsp, central_discovery, connect, power_on

WATCH = "D8:3A:11:52:0C:41"
LAPTOP = "7C:04:D0:1E:22:93"
HEADSET = "00:1B:66:A1:B2:C3"


def served(log: Log, t: float, h: int, req: bytes, rsp: bytes) -> float:
    """A remote client's request (rx) and the phone's server's answer (tx)."""
    log.att_rx(t, h, req)
    log.att_tx(t + 2, h, rsp)
    return t + 15


def phone_server(log: Log, t: float, h: int) -> float:
    """The phone's server discovered by a remote client: 1800 at 0x0001-0x0003, 180F at 0x0004-0x0006."""
    t = served(log, t, h, att.read_by_group_type_req(0x0001, 0xFFFF), _rbgt_rsp([(0x0001, 0x0003, 0x1800), (0x0004, 0x0006, 0x180F)]))
    t = served(log, t, h, att.read_by_group_type_req(0x0007, 0xFFFF), att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, 0x0007, att.ATTRIBUTE_NOT_FOUND))
    t = served(log, t, h, att.read_by_type_req(0x0004, 0x0006, att.CHARACTERISTIC),
               bytes([att.READ_BY_TYPE_RSP, 7]) + struct.pack("<HBHH", 0x0005, 0x12, 0x0006, 0x2A19))
    t = served(log, t, h, att.read_req(0x0006), att.read_rsp(b"\x55"))
    return t


def dual_role() -> bytes:
    log = Log()
    t = power_on(log)
    connect(log, 100, 0x0040, WATCH, role=0)
    t = central_discovery(log, 150, 0x0040, firmware="2.1.0")
    connect(log, t + 10, 0x0041, LAPTOP, role=1)
    t = served(log, t + 30, 0x0041, att.exchange_mtu_req(185), att.exchange_mtu_rsp(247))
    t = phone_server(log, t, 0x0041)
    # the watch, a client too, reads the phone's battery level over the same link
    t = served(log, t, 0x0040, att.read_req(0x0006), att.read_rsp(b"\x54"))
    for i in range(3):
        log.att_rx(t + i * 20, 0x0040, att.notification(0x0010, bytes([70 + i])))   # the watch's server
        log.att_tx(t + i * 20 + 5, 0x0041, att.notification(0x0006, bytes([0x54 - i])))  # the phone's server
    t += 100
    log.evt(t + 4000, hci.disconnection_complete(0x0040, 0x08))
    log.evt(t + 4500, hci.disconnection_complete(0x0041, 0x13))
    return log.btsnoop()


def dual_mode() -> bytes:
    log = Log()
    t = power_on(log)
    log.evt(t + 10, hci.event(0x03, struct.pack("<BH6sBB", 0, 0x000B, hci.addr_bytes(HEADSET), 1, 0)))
    log.add(t + 20, hci.acl(0x000B, hci.PB_FIRST_FLUSHABLE, struct.pack("<HH", 8, 0x0001) + bytes([0x02, 0x01, 0x04, 0x00, 0x19, 0x00, 0x40, 0x00])), True)
    log.evt(t + 100, hci.le_connection_complete(0, 0x0040, 0, 0, HEADSET, 24, 0, 400))
    t = central_discovery(log, t + 150, 0x0040, firmware="3.0")
    log.cmd(t, hci.disconnect(0x0040, 0x13))
    log.evt(t + 1, hci.command_status(hci.DISCONNECT))
    log.evt(t + 60, hci.disconnection_complete(0x0040, 0x16))
    log.evt(t + 3000, hci.disconnection_complete(0x000B, 0x08))
    return log.btsnoop()


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    (out / "dual-role.btsnoop").write_bytes(dual_role())
    (out / "dual-mode.btsnoop").write_bytes(dual_mode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
