"""iPhone PacketLogger traces for the iOS view of diagnose and report: what a CoreBluetooth app
is given (CBError / CBATTError, REFERENCE.md) for each ending and error, and the PacketLogger
record types other readers accept.

    python3 -m blegen.ios OUTDIR        (run from Scripts/)

Little-endian record headers as iPhones write them (`scenarios.Log.packetlogger`); times are
milliseconds from the start. Frame numbers in the comments are 1-based, as Wireshark counts.

  ios-link-loss.pklg          local central; Read Request answered; 0x08 -> CBError.connectionTimeout
  ios-peer-disconnect.pklg    0x13 from the peer -> CBError.peripheralDisconnected
  ios-connect-failed.pklg     LE Connection Complete status 0x3E -> CBError.connectionFailed
  ios-att-errors.pklg         Write Requests refused with 0x05 0x0F 0x0C 0x11 0x12 0x13 0x80 0x9F 0xF7
                              0xFC-0xFF (no CBATTError case above 0x11)
  ios-key-missing.pklg        Encryption Change 0x06, the stack's Disconnect -> peerRemovedPairingInformation
  ios-pairing-failed.pklg     Write refused 0x0F, Pairing Request, Pairing Failed 0x05
                              -> the write fails with CBATTError.insufficientEncryption
  ios-controller-reset.pklg   Read Request unanswered, HCI Reset (frames 7-8) ends the link with no
                              Disconnection Complete; a new link on handle 0x0040 ends 0x13
  ios-peripheral.pklg         the iPhone as peripheral (role 1): its server refuses with 0x80 and 0x0F;
                              link loss -> no CBError for the CBPeripheralManager
  ios-connect-pending.pklg    LE Create Connection never answered, trace ends 60 s later
  ios-record-types.pklg       ISO data 0x12/0x13, syslog 0xF7, a length-8 record with no type byte
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci, l2cap, smp
from .scenarios import Log

PEER = "C4:7A:3B:12:9E:51"


def _create(log: Log, ms: float) -> None:
    """LE Create Connection (Core v5.4 Vol 4 Part E 7.8.12) to PEER, random address, 30-50 ms, 4 s."""
    log.cmd(ms, hci.command(hci.LE_CREATE_CONNECTION, struct.pack(
        "<HHBB6sBHHHHHH", 0x60, 0x30, 0, 1, hci.addr_bytes(PEER), 0, 24, 40, 0, 400, 0, 0)))
    log.evt(ms + 1, hci.command_status(hci.LE_CREATE_CONNECTION))


def _connect(log: Log, ms: float, handle: int = 0x40, status: int = 0) -> None:
    _create(log, ms)
    log.evt(ms + 50, hci.le_connection_complete(status, handle, 0, 1, PEER, 24, 0, 400))


def _refused_write(log: Log, ms: float, code: int, handle: int = 0x40) -> None:
    log.att_tx(ms, handle, att.write_req(0x0012, b"\x01"))
    log.att_rx(ms + 30, handle, att.error_rsp(att.WRITE_REQ, 0x0012, code))


def link_loss() -> bytes:
    log = Log()
    _connect(log, 0)
    log.att_tx(100, 0x40, att.read_req(0x0003))
    log.att_rx(130, 0x40, att.read_rsp(b"x"))
    log.evt(5000, hci.disconnection_complete(0x40, 0x08))
    return log.packetlogger()


def peer_disconnect() -> bytes:
    log = Log()
    _connect(log, 0)
    log.evt(5000, hci.disconnection_complete(0x40, 0x13))
    return log.packetlogger()


def connect_failed() -> bytes:
    log = Log()
    _connect(log, 0, status=0x3E)
    return log.packetlogger()


def att_errors() -> bytes:
    log = Log()
    _connect(log, 0)
    t = 200
    for code in (0x05, 0x0F, 0x0C, 0x11, 0x12, 0x13, 0x80, 0x9F, 0xF7, 0xFC, 0xFD, 0xFE, 0xFF):
        _refused_write(log, t, code)
        t += 100
    log.evt(t + 1000, hci.disconnection_complete(0x40, 0x13))
    return log.packetlogger()


def key_missing() -> bytes:
    log = Log()
    _connect(log, 0)
    log.cmd(100, hci.le_start_encryption(0x40, bytes(8), 0, bytes(16)))
    log.evt(101, hci.command_status(hci.LE_START_ENCRYPTION))
    log.evt(200, hci.encryption_change(0x40, 0, 0x06))
    log.cmd(210, hci.disconnect(0x40, 0x05))
    log.evt(211, hci.command_status(hci.DISCONNECT))
    log.evt(260, hci.disconnection_complete(0x40, 0x16))
    return log.packetlogger()


def pairing_failed() -> bytes:
    log = Log()
    _connect(log, 0)
    _refused_write(log, 100, att.INSUFFICIENT_ENCRYPTION)
    log.add(200, hci.acl(0x40, hci.PB_FIRST_NON_FLUSHABLE,
                         l2cap.frame(l2cap.CID_SMP, smp.pairing_request(3, 0, 0x0D, 16, 0, 3))), False)
    log.add(260, hci.acl(0x40, hci.PB_FIRST_FLUSHABLE, l2cap.frame(l2cap.CID_SMP, smp.pairing_failed(0x05))), True)
    log.evt(2000, hci.disconnection_complete(0x40, 0x13))
    return log.packetlogger()


def controller_reset() -> bytes:
    log = Log()
    _connect(log, 0)
    log.att_tx(100, 0x40, att.read_req(0x0003))
    log.att_rx(130, 0x40, att.read_rsp(b"x"))
    log.att_tx(1000, 0x40, att.read_req(0x0003))           # frame 6, never answered
    log.cmd(1500, hci.reset())                               # frame 7
    log.evt(1600, hci.command_complete(hci.RESET, b"\x00"))  # frame 8: the link ends here
    _connect(log, 3000)
    log.att_tx(3100, 0x40, att.read_req(0x0003))
    log.att_rx(3130, 0x40, att.read_rsp(b"y"))
    log.evt(8000, hci.disconnection_complete(0x40, 0x13))
    return log.packetlogger()


def peripheral() -> bytes:
    log = Log()
    log.evt(50, hci.le_connection_complete(0, 0x40, 1, 1, PEER, 24, 0, 400))
    log.att_rx(100, 0x40, att.read_req(0x0003))
    log.att_tx(130, 0x40, att.error_rsp(att.READ_REQ, 0x0003, 0x80))
    log.att_rx(200, 0x40, att.write_req(0x0005, b"a"))
    log.att_tx(230, 0x40, att.error_rsp(att.WRITE_REQ, 0x0005, att.INSUFFICIENT_ENCRYPTION))
    log.evt(5000, hci.disconnection_complete(0x40, 0x08))
    return log.packetlogger()


def connect_pending() -> bytes:
    log = Log()
    _create(log, 0)
    log.evt(60_000, hci.le_advertising_report(0, 1, PEER, hci.ad_flags(), -60))
    return log.packetlogger()


def record_types() -> bytes:
    """Frames: 1 note, 2 Reset, 3 Command Complete, 4 LE Connection Complete, 5-6 ATT, 7-8 SCO,
    9 ISO sent (0x12), 10 ISO received (0x13), 11 syslog (0xF7: pid u32 LE, type u8, process,
    sender, subsystem, category, message), 12 a length-8 record (no type), 13 Disconnection Complete."""
    start = Log().start
    out = bytearray()
    iso = bytes.fromhex("6020080000000400aabbccdd")   # handle 0x0060 complete SDU, 4 bytes

    def rec(ms: int, kind: int | None, payload: bytes = b"") -> None:
        ts = start + ms * 1000
        body = b"" if kind is None else bytes([kind]) + payload
        out.extend(struct.pack("<III", 8 + len(body), ts // 1_000_000, ts % 1_000_000) + body)

    rec(0, 0xFC, b"Product: iPhone17,2\0")
    rec(1, 0x00, hci.reset()[1:])
    rec(2, 0x01, hci.command_complete(hci.RESET, b"\x00")[1:])
    rec(3, 0x01, hci.le_connection_complete(0, 0x40, 0, 1, PEER, 24, 0, 400)[1:])
    rec(4, 0x02, hci.acl(0x40, hci.PB_FIRST_NON_FLUSHABLE, l2cap.frame(l2cap.CID_ATT, att.read_req(3)))[1:])
    rec(5, 0x03, hci.acl(0x40, hci.PB_FIRST_FLUSHABLE, l2cap.frame(l2cap.CID_ATT, att.read_rsp(b"A")))[1:])
    rec(6, 0x08, bytes.fromhex("0100030a0b0c"))
    rec(7, 0x09, bytes.fromhex("0100030a0b0c"))
    rec(8, 0x12, bytes.fromhex("6000") + iso[2:])
    rec(9, 0x13, iso)
    rec(10, 0xF7, struct.pack("<IB", 97, 0) + b"bluetoothd\0sender\0com.apple.bluetooth\0Server\0hello\0")
    rec(11, None)
    rec(12, 0x01, hci.disconnection_complete(0x40, 0x13)[1:])
    return bytes(out)


TRACES = {
    "ios-link-loss.pklg": link_loss,
    "ios-peer-disconnect.pklg": peer_disconnect,
    "ios-connect-failed.pklg": connect_failed,
    "ios-att-errors.pklg": att_errors,
    "ios-key-missing.pklg": key_missing,
    "ios-pairing-failed.pklg": pairing_failed,
    "ios-controller-reset.pklg": controller_reset,
    "ios-peripheral.pklg": peripheral,
    "ios-connect-pending.pklg": connect_pending,
    "ios-record-types.pklg": record_types,
}


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for name, make in TRACES.items():
        (out / name).write_bytes(make())
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
