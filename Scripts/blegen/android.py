"""Captures of Android host behaviours (Docs/android.md "Android host behaviours"), for the
findings that name the callback an Android app got.

    python3 -m blegen.android OUTDIR        (run from Scripts/)

Every timestamp is explicit (milliseconds from the start of the file, `scenarios.Log`), so the
expected frame numbers and delays can be read off this file. The same records are written
twice: as the btsnoop H4 log an Android phone keeps, and as a PacketLogger file (an Apple host
would not behave so, but the twin shows the diagnosis choosing the view by platform).

  android-host.btsnoop / android-host.pklg
    power on, with Android's LE Get Vendor Capabilities (0xFD53, hcidefs.h
    HCI_BLE_VENDOR_CAP_OCF) answered
    link A (handle 0x0040, SENSOR): connected, a Read Request answered with 0x02 Read Not
      Permitted, then a Write Request never answered: 30 s later the host sends HCI Disconnect
      (the stack's gatt_rsp_timeout) and the controller reports 0x16
    attempt B (PEER_B): LE Create Connection, LE Create Connection Cancel 30 s later (the
      direct-connect timeout), LE Connection Complete 0x02
    attempt C (PEER_C): LE Create Connection, LE Connection Complete 0x3E 2 s later
    link D (handle 0x0041, SENSOR): LE Create Connection answered 95 s later (a background
      connect), then the peer ends it with 0x13
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci
from .scenarios import PEER_B, PEER_C, SENSOR, Log, central_discovery, power_on

LE_GET_VENDOR_CAPABILITIES = 0xFD53   # hcidefs.h HCI_BLE_VENDOR_CAP_OCF (0x0153 | OGF 0x3F)


def _create(log: Log, t: float, peer: str) -> int:
    frame = log.cmd(t, hci.le_create_connection(1, peer, 1, 24, 24, 0, 400))
    log.evt(t + 0.5, hci.command_status(hci.LE_CREATE_CONNECTION))
    return frame


def android_host() -> Log:
    log = Log()
    t = power_on(log)
    log.cmd(t, hci.command(LE_GET_VENDOR_CAPABILITIES))
    log.evt(t + 1, hci.command_complete(LE_GET_VENDOR_CAPABILITIES, b"\x00" + bytes(14)))
    # Link A: an ATT error, then an ATT timeout and the stack's own disconnect.
    a = 0x0040
    _create(log, 60, SENSOR)
    log.evt(100, hci.le_connection_complete(0, a, 0, 1, SENSOR, 24, 0, 400))
    t = central_discovery(log, 150, a, firmware=None)
    log.att_tx(t, a, att.read_req(0x0012))
    log.att_rx(t + 20, a, att.error_rsp(att.READ_REQ, 0x0012, 0x02))          # Read Not Permitted
    t += 50
    log.att_tx(t, a, att.write_req(0x0012, b"\x01"))                         # never answered
    log.cmd(t + 30_000 + 2, hci.disconnect(a, 0x13))
    log.evt(t + 30_000 + 2.5, hci.command_status(hci.DISCONNECT))
    log.evt(t + 30_000 + 60, hci.disconnection_complete(a, 0x16))
    t += 31_000
    # Attempt B: the 30 s direct-connect timeout.
    _create(log, t, PEER_B)
    log.cmd(t + 30_000, hci.le_create_connection_cancel())
    log.evt(t + 30_000 + 0.5, hci.command_complete(hci.LE_CREATE_CONNECTION_CANCEL, b"\x00"))
    log.evt(t + 30_000 + 2, hci.le_connection_complete(0x02, 0, 0, 0, "00:00:00:00:00:00", 0, 0, 0))
    t += 31_000
    # Attempt C: failed to be established.
    _create(log, t, PEER_C)
    log.evt(t + 2_000, hci.le_connection_complete(0x3E, 0, 0, 1, PEER_C, 24, 0, 400))
    t += 3_000
    # Link D: a background connect that waited 95 s, then the peer ends it.
    d = 0x0041
    _create(log, t, SENSOR)
    log.evt(t + 95_000, hci.le_connection_complete(0, d, 0, 1, SENSOR, 24, 0, 400))
    log.evt(t + 97_000, hci.disconnection_complete(d, 0x13))
    return log


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    log = android_host()
    (out / "android-host.btsnoop").write_bytes(log.btsnoop())
    (out / "android-host.pklg").write_bytes(log.packetlogger())
    print(out / "android-host.btsnoop")
    print(out / "android-host.pklg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
