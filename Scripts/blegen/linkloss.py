"""Link endings whose account depends on what the host asked just before (issue 17 QA, wave 2).

    python3 -m blegen.linkloss OUT_DIR

Writes one btsnoop per ending into OUT_DIR, each a local central (or peripheral) and one peer,
with the spec's timing:

  pending-update.btsnoop          LE Connection Update (timeout 4 s -> 1 s) accepted by Command
                                  Status, no LE Connection Update Complete, 0x08 one *new* timeout
                                  after the peer's last notification: the peer missed the update
                                  (Core v5.4 Vol 6 Part B 5.1.1). The old 4 s timeout cannot have run
                                  out 1.9 s into the link.
  disconnect-unacknowledged.btsnoop
                                  the host's Disconnect (0x13) accepted, then 0x08 one supervision
                                  timeout later: the peer never acknowledged LL_TERMINATE_IND
                                  (Vol 6 Part B 5.1.6). Number Of Completed Packets come for every
                                  packet, so the peer took all the host's data.
  no-completions.btsnoop          a discovery the peer answers, notifications, then 0x08; the capture
                                  has no Number Of Completed Packets at all (a filtered log).
  short-ll-timeout.btsnoop        LE Start Encryption, then 0x22 2.1 s into the link: no procedure can
                                  have waited out the 40 s response timeout (Vol 6 Part B 5.2).
  peripheral-instant-passed.btsnoop
                                  the local device is the peripheral and its controller reports
                                  0x28 Instant Passed (Vol 6 Part B 5.5): only the central sends
                                  instants, so the update reached the local peripheral too late.
  stack-disconnect.btsnoop        Encryption Change 0x06 PIN or Key Missing, then the host's
                                  Disconnect with 0x05 Authentication Failure, 0x16: the stack's own
                                  disconnect, not the app's (an Android app gets 22).
  app-disconnect.btsnoop          the host's Disconnect with 0x13, 0x16: the app's own (Android 0).
  repeated-disconnect.btsnoop     the host's Disconnect with 0x13 accepted, then a second Disconnect
                                  (0x05) the controller refuses with Command Disallowed (Vol 4 Part
                                  E 7.7.15), then 0x16: the first, accepted one ended the link.
  dropped-records.btsnoop         reads and notifications, then 0x08; the btsnoop cumulative-drops
                                  field rises from 0 to 1 at record 14 (the writer lost a record mid-link).
  peripheral-pairing-declined.btsnoop
                                  the local device is the peripheral, declines the central's Pairing
                                  Request with Pairing Failed 0x05 Pairing Not Supported (Vol 3 Part H
                                  3.5.5), and the central ends the link with 0x05 Authentication
                                  Failure 2 ms later, nothing else exchanged (as Bumble's central does).
  cancel-unanswered.btsnoop       LE Create Connection to a peer that never answers, LE Create
                                  Connection Cancel 500 ms later and its Command Complete (success),
                                  then the capture ends without the LE Connection Complete 0x02 the
                                  controller owes (Vol 4 Part E 7.8.13; Bumble's controller never
                                  sends it).
  late-response.btsnoop           a Read Request answered 31 s later, past the 30 s ATT transaction
                                  timeout (Vol 3 Part F 3.3.3), another request on the same bearer
                                  after it, then the peer's 0x13.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci, l2cap, smp
from .scenarios import Log, central_discovery, connect, host_disconnect, power_on

PEER = "C4:7A:3B:12:9E:51"
CENTRAL = "4F:9A:11:22:33:44"
H = 0x0040


def completed(log: Log, t: float, n: int = 1) -> None:
    log.evt(t, hci.number_of_completed_packets([(H, n)]))


def answered_reads(log: Log, t: float, n: int) -> float:
    """`n` Read Requests, each completed by the controller 15 ms later and answered 30 ms after
    it was sent, 60 ms apart. Returns the time after."""
    for i in range(n):
        log.att_tx(t, H, att.read_req(3 + i))
        completed(log, t + 15)
        log.att_rx(t + 30, H, att.read_rsp(bytes([i])))
        t += 60
    return t


def pending_update() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER, timeout=400)
    log.att_tx(200, H, att.read_req(3))
    completed(log, 230)
    log.att_rx(245, H, att.read_rsp(b"x"))
    log.cmd(300, hci.le_connection_update(H, 80, 80, 0, 100))
    log.evt(301, hci.command_status(hci.LE_CONNECTION_UPDATE))
    log.att_rx(1000, H, att.notification(0x000F, b"\x06\x40"))
    log.evt(2000, hci.disconnection_complete(H, 0x08))
    return log


def disconnect_unacknowledged() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER, timeout=400)
    t = answered_reads(log, 200.0, 3)
    log.cmd(t + 100, hci.disconnect(H, 0x13))
    log.evt(t + 101, hci.command_status(hci.DISCONNECT))
    log.evt(t + 100 + 4000 + 60, hci.disconnection_complete(H, 0x08))
    return log


def no_completions() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER, interval=40, latency=4, timeout=200)
    t = central_discovery(log, 200, H)
    for i in range(4):
        log.att_rx(t + i * 250, H, att.notification(0x000F, bytes([6, 70 + i])))
    log.evt(t + 3 * 250 + 2000 + 3, hci.disconnection_complete(H, 0x08))
    return log


def short_ll_timeout() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER)
    log.cmd(200, hci.le_start_encryption(H, b"\0" * 8, 0, b"\x11" * 16))
    log.evt(201, hci.command_status(hci.LE_START_ENCRYPTION))
    log.evt(2200, hci.disconnection_complete(H, 0x22))
    return log


def peripheral_instant_passed() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, CENTRAL, role=1)
    log.att_rx(200, H, att.read_req(3))
    log.att_tx(210, H, att.read_rsp(b"Phone"))
    log.evt(1500, hci.disconnection_complete(H, 0x28))
    return log


def stack_disconnect(reason: int) -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER)
    t = central_discovery(log, 200, H)
    if reason != 0x13:
        log.cmd(t, hci.le_start_encryption(H, b"\0" * 8, 0, b"\x11" * 16))
        log.evt(t + 1, hci.command_status(hci.LE_START_ENCRYPTION))
        log.evt(t + 60, hci.encryption_change(H, enabled=0, status=0x06))
    host_disconnect(log, t + 70, H, reason=reason)
    return log


def repeated_disconnect() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER)
    t = central_discovery(log, 200, H)
    log.cmd(t, hci.disconnect(H, 0x13))
    log.evt(t + 0.5, hci.command_status(hci.DISCONNECT))
    log.cmd(t + 20, hci.disconnect(H, 0x05))
    log.evt(t + 20.5, hci.command_status(hci.DISCONNECT, status=0x0C))
    log.evt(t + 60, hci.disconnection_complete(H, 0x16))
    return log


def peripheral_pairing_declined() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, CENTRAL, role=1)
    request = smp.pairing_request(smp.NO_INPUT_NO_OUTPUT, 0, smp.BONDING | smp.MITM | smp.SC, 16,
                                  smp.ENC_KEY | smp.ID_KEY, smp.ENC_KEY | smp.ID_KEY)
    log.add(102, hci.acl(H, hci.PB_FIRST_FLUSHABLE, l2cap.frame(l2cap.CID_SMP, request)), True)
    log.add(102.2, hci.acl(H, hci.PB_FIRST_NON_FLUSHABLE, l2cap.frame(l2cap.CID_SMP, smp.pairing_failed(smp.PAIRING_NOT_SUPPORTED))), False)
    log.evt(104.2, hci.disconnection_complete(H, 0x05))
    return log


def cancel_unanswered() -> Log:
    log = Log()
    power_on(log)
    log.cmd(100, hci.le_create_connection(1, PEER, 0, 24, 40, 0, 400))
    log.evt(100.2, hci.command_status(hci.LE_CREATE_CONNECTION))
    log.cmd(600.2, hci.le_create_connection_cancel())
    log.evt(600.4, hci.command_complete(hci.LE_CREATE_CONNECTION_CANCEL, b"\x00"))
    return log


def late_response() -> Log:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER)
    log.att_tx(200, H, att.read_req(3))
    completed(log, 230)
    log.att_rx(31200, H, att.read_rsp(b"late"))
    log.att_tx(31300, H, att.read_req(5))
    completed(log, 31330)
    log.att_rx(31350, H, att.read_rsp(b"x"))
    log.evt(32200, hci.disconnection_complete(H, 0x13))
    return log


def dropped_records() -> bytes:
    log = Log()
    power_on(log)
    connect(log, 100, H, PEER)
    t = answered_reads(log, 200.0, 3)
    for i in range(4):
        log.att_rx(t + i * 100, H, att.notification(0x000F, bytes([6, 70 + i])))
    log.evt(t + 300 + 4000 + 20, hci.disconnection_complete(H, 0x08))
    return with_drops(log.btsnoop(), from_record=14)


def with_drops(data: bytes, from_record: int) -> bytes:
    """The btsnoop `data` with the cumulative-drops field of records `from_record` on (1-based) set
    to 1: the writer lost one record before that one."""
    out = bytearray(data)
    offset, number = 16, 1
    while offset + 24 <= len(out):
        incl = struct.unpack_from(">I", out, offset + 4)[0]
        if number >= from_record:
            struct.pack_into(">I", out, offset + 12, 1)
        offset += 24 + incl
        number += 1
    return bytes(out)


SCENARIOS = {
    "pending-update": pending_update,
    "disconnect-unacknowledged": disconnect_unacknowledged,
    "no-completions": no_completions,
    "short-ll-timeout": short_ll_timeout,
    "peripheral-instant-passed": peripheral_instant_passed,
    "stack-disconnect": lambda: stack_disconnect(0x05),
    "app-disconnect": lambda: stack_disconnect(0x13),
    "repeated-disconnect": repeated_disconnect,
    "peripheral-pairing-declined": peripheral_pairing_declined,
    "cancel-unanswered": cancel_unanswered,
    "late-response": late_response,
    "dropped-records": dropped_records,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        built = build()
        (out / f"{name}.btsnoop").write_bytes(built if isinstance(built, bytes) else built.btsnoop())
        print(out / f"{name}.btsnoop")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
