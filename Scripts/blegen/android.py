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

  android-callbacks.btsnoop (`android_callbacks`): ATT Error Responses the app never receives
    as such (Docs/android.md "Read, write and descriptor callbacks"), the ATT MTU left at 23
    link E (handle 0x0042, SENSOR):
      a Read Request to 0x0008 answered with 22 bytes (ATT_MTU - 1), the stack's Read Blob at
        offset 22 answered 0x0B Attribute Not Long: onCharacteristicRead gets GATT_SUCCESS
        (gatt_cl.cc gatt_process_error_rsp, first_read_blob_after_read)
      a Read Request to 0x000A answered 0x05 Insufficient Authentication: BluetoothGatt.java
        retries with AUTHENTICATION_NO_MITM; the pairing the stack starts fails (SMP Pairing
        Failed 0x03 from the peer): onCharacteristicRead gets 137 GATT_AUTH_FAIL
        (gatt_auth.cc gatt_sec_check_complete)
      a Write Request to 0x000C answered 0x0F Insufficient Encryption, retried (no MITM) and
        answered 0x0F, retried (MITM) and answered 0x0F: only the third reaches
        onCharacteristicWrite, as 15 GATT_INSUFFICIENT_ENCRYPTION
      a Read Request to 0x0011 answered 0x80 (an application error): 128, unnamed
    link F (handle 0x0043, SENSOR): a Read Request to 0x0008 never answered, the link lost
      (0x08) 4 s later: onCharacteristicRead gets 133 GATT_ERROR (gatt_utils.cc
      gatt_cleanup_upon_disc), then onConnectionStateChange 8 GATT_CONN_TIMEOUT
    LE Connection Complete 0x3C Advertising Timeout (role byte 0): the phone's directed
      advertising ended; no callback (acl_ble_connection_fail), no 133
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci, l2cap, smp
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


def android_callbacks() -> Log:
    log = Log()
    t = power_on(log)                                                          # 1-4
    log.cmd(t, hci.command(LE_GET_VENDOR_CAPABILITIES))                        # 5
    log.evt(t + 1, hci.command_complete(LE_GET_VENDOR_CAPABILITIES, b"\x00" + bytes(14)))  # 6
    e = 0x0042
    _create(log, 60, SENSOR)                                                   # 7, 8
    log.evt(100, hci.le_connection_complete(0, e, 0, 1, SENSOR, 24, 0, 400))   # 9
    # A value of exactly ATT_MTU - 1 bytes: the stack reads on with Read Blob.
    log.att_tx(200, e, att.read_req(0x0008))                                   # 10
    log.att_rx(220, e, att.read_rsp(b"Acme Sensors Corp. Ltd"))                # 11 (22 bytes)
    log.att_tx(230, e, bytes([att.READ_BLOB_REQ]) + struct.pack("<HH", 0x0008, 22))  # 12
    log.att_rx(250, e, att.error_rsp(att.READ_BLOB_REQ, 0x0008, 0x0B))         # 13
    # Insufficient Authentication; the framework's retry makes the stack pair, and pairing fails.
    log.att_tx(300, e, att.read_req(0x000A))                                   # 14
    log.att_rx(320, e, att.error_rsp(att.READ_REQ, 0x000A, 0x05))              # 15
    smp_frame = lambda pdu, rx: hci.acl(e, hci.PB_FIRST_FLUSHABLE if rx else hci.PB_FIRST_NON_FLUSHABLE,
                                        l2cap.frame(l2cap.CID_SMP, pdu))
    log.add(340, smp_frame(smp.pairing_request(3, 0, 0x09, 16, 0, 1), False), False)  # 16
    log.add(380, smp_frame(smp.pairing_failed(0x03), True), True)              # 17
    # Insufficient Encryption three times: the framework retries twice, then gives up.
    for i, ms in enumerate((500, 600, 700)):
        log.att_tx(ms, e, att.write_req(0x000C, b"\x01"))                      # 18, 20, 22
        log.att_rx(ms + 20, e, att.error_rsp(att.WRITE_REQ, 0x000C, 0x0F))     # 19, 21, 23
    # An application error: passed through as its number.
    log.att_tx(800, e, att.read_req(0x0011))                                   # 24
    log.att_rx(820, e, att.error_rsp(att.READ_REQ, 0x0011, 0x80))              # 25
    log.evt(900, hci.disconnection_complete(e, 0x13))                          # 26
    # Link F: the link is lost while a read awaits its response.
    f = 0x0043
    _create(log, 1000, SENSOR)                                                 # 27, 28
    log.evt(1040, hci.le_connection_complete(0, f, 0, 1, SENSOR, 24, 0, 400))  # 29
    log.att_tx(1100, f, att.read_req(0x0008))                                  # 30, never answered
    log.evt(5100, hci.disconnection_complete(f, 0x08))                         # 31
    # The phone's directed advertising times out: LE Connection Complete 0x3C, the other fields
    # zero as some controllers leave them (role 0x00 = central). No connect of the app failed.
    log.evt(6000, hci.le_connection_complete(0x3C, 0, 0, 0, "00:00:00:00:00:00", 0, 0, 0))  # 32
    return log


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    log = android_host()
    (out / "android-host.btsnoop").write_bytes(log.btsnoop())
    (out / "android-host.pklg").write_bytes(log.packetlogger())
    (out / "android-callbacks.btsnoop").write_bytes(android_callbacks().btsnoop())
    print(out / "android-host.btsnoop")
    print(out / "android-host.pklg")
    print(out / "android-callbacks.btsnoop")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
