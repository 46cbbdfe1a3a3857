"""Scenario captures for the correctness sweep of diagnose, replay and report: shapes a user's
capture has that the sample captures do not (the phone as peripheral, interleaved connections,
encryption failures, rejected parameter updates, prepare-write queues, captures that begin or
end in the middle of things, one device across firmware versions).

    python3 -m blegen.scenarios OUTDIR        (run from Scripts/)

Every timestamp is explicit (milliseconds from the start of the file), so the expected answers
(disconnect instants, frame numbers, latencies) can be read off this file, and every PDU is laid
out as Core v5.4 says (ATT: Vol 3 Part F 3.4; L2CAP signalling: Vol 3 Part A 4; HCI: Vol 4 Part
E 7). Frame numbers given in the comments are 1-based, as Wireshark counts them.

  peripheral-role.btsnoop      the phone is the GATT server: a remote central (role 1 in LE
                               Connection Complete) discovers, subscribes, writes; the phone
                               notifies; an LTK request gets a negative reply; the central ends
                               it with 0x13
  three-peers.btsnoop          three links at once, interleaved, ending 0x08, 0x13, 0x3D; handle
                               0x0040 reused for a fourth link that ends 0x22
  encryption-failure.btsnoop   bonded reconnect: LE Start Encryption -> Encryption Change status
                               0x06 (PIN or Key Missing); the host disconnects (0x05)
  param-update-rejected.btsnoop  L2CAP Connection Parameter Update Request rejected (result 1);
                               LE Connection Update Complete with status 0x3B; peer ends with 0x13
  att-timeout-retry.btsnoop    Write Request unanswered -> 30 s ATT timeout -> host disconnects;
                               reconnect and the retried write works; an indication never
                               confirmed; Prepare Write with one error then Execute Write (cancel);
                               the peer ends it 0x13
  mid-connection.pklg          PacketLogger (iOS): traffic on a handle the file never saw connect;
                               ends with 0x08
  ends-mid-transaction.btsnoop the capture ends 1.2 s after a Read Request it never answers
  fw-1.0.0.btsnoop, fw-1.1.0.btsnoop, fw-dfu.btsnoop
                               the same device across firmware revisions (Device Information
                               2A26); fw-dfu updates from 1.1.0 to 2.0.0 between its connections
  find-information-discovery.btsnoop
                               the central learns the database by Find Information over every
                               handle and Read Requests of each characteristic declaration (as
                               the Sniffle capture sniffle-gatt.pcap shows), Battery by Read By
                               Type 0x2803; one declaration's read fails (Read Not Permitted)
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, gatt, hci, l2cap
from .btsnoop import EPOCH_OFFSET_US, unix_us

START = unix_us("2026-05-04T08:00:00Z")
SENSOR = "C4:7A:3B:12:9E:51"        # random static
PEER_B = "D1:22:33:44:55:66"
PEER_C = "E5:10:20:30:40:50"
MAC_CENTRAL = "4F:9A:11:22:33:44"   # a resolvable private address of a Mac acting as central

# ATT opcodes the base module does not define (Vol 3 Part F 3.4.6)
PREPARE_WRITE_REQ, PREPARE_WRITE_RSP = 0x16, 0x17
EXECUTE_WRITE_REQ, EXECUTE_WRITE_RSP = 0x18, 0x19

# HCI (Vol 4 Part E 7.7.65.5, 7.8.26, 7.8.27)
LE_LONG_TERM_KEY_REQUEST = 0x05
LE_LTK_REQUEST_REPLY = 0x201A
LE_LTK_REQUEST_NEGATIVE_REPLY = 0x201B
LE_SET_ADVERTISING_PARAMETERS = 0x2006
LE_SET_ADVERTISING_DATA = 0x2008
LE_SET_ADVERTISE_ENABLE = 0x200A


class Log:
    """H4 records at explicit times (milliseconds from START, fractional allowed)."""

    def __init__(self, start_us: int = START) -> None:
        self.start = start_us
        self.items: list[tuple[int, bytes, bool]] = []

    def add(self, ms: float, h4: bytes, received: bool) -> int:
        ts = self.start + int(round(ms * 1000))
        if self.items and ts < self.items[-1][0]:
            raise ValueError(f"time goes back at {ms} ms")
        self.items.append((ts, h4, received))
        return len(self.items)  # the frame number

    def cmd(self, ms: float, h4: bytes) -> int:
        return self.add(ms, h4, False)

    def evt(self, ms: float, h4: bytes) -> int:
        return self.add(ms, h4, True)

    def att_tx(self, ms: float, handle: int, pdu: bytes) -> int:
        return self.add(ms, hci.acl(handle, hci.PB_FIRST_NON_FLUSHABLE, l2cap.frame(l2cap.CID_ATT, pdu)), False)

    def att_rx(self, ms: float, handle: int, pdu: bytes) -> int:
        return self.add(ms, hci.acl(handle, hci.PB_FIRST_FLUSHABLE, l2cap.frame(l2cap.CID_ATT, pdu)), True)

    def sig_tx(self, ms: float, handle: int, payload: bytes) -> int:
        return self.add(ms, hci.acl(handle, hci.PB_FIRST_NON_FLUSHABLE,
                                    l2cap.frame(l2cap.CID_LE_SIGNALING, payload)), False)

    def sig_rx(self, ms: float, handle: int, payload: bytes) -> int:
        return self.add(ms, hci.acl(handle, hci.PB_FIRST_FLUSHABLE,
                                    l2cap.frame(l2cap.CID_LE_SIGNALING, payload)), True)

    def btsnoop(self) -> bytes:
        out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 1002))
        for ts, h4, received in self.items:
            flags = (1 if received else 0) | (0b10 if h4[0] in (0x01, 0x04) else 0)
            out += struct.pack(">IIIIq", len(h4), len(h4), flags, 0, ts + EPOCH_OFFSET_US) + h4
        return bytes(out)

    def packetlogger(self) -> bytes:
        """Apple PacketLogger, little-endian header fields as iPhones write them: u32 length
        (timestamp + type + payload), u32 seconds, u32 microseconds, u8 type, payload without
        the H4 byte. Types 0x00 command, 0x01 event, 0x02 ACL sent, 0x03 ACL received."""
        out = bytearray()
        for ts, h4, received in self.items:
            kind = {0x01: 0x00, 0x04: 0x01}.get(h4[0], 0x03 if received else 0x02)
            body = h4[1:]
            out += struct.pack("<IIIB", 9 + len(body), ts // 1_000_000, ts % 1_000_000, kind) + body
        return bytes(out)


# --- the sensor's GATT database, as the PDUs a central's discovery sees -----------------------
#
# 0x0001-0x0005 1800 Generic Access: 0x0002 decl, 0x0003 Device Name (read)
# 0x0006-0x000C 180A Device Information: 0x0008 2A29 Manufacturer, 0x000A 2A26 Firmware Revision,
#                                         0x000C 2A24 Model Number (all read)
# 0x000D-0x0012 180D Heart Rate: 0x000F 2A37 (notify|indicate) with CCCD 0x0010,
#                                0x0012 2A39 Heart Rate Control Point (read|write)

def _rbgt_rsp(entries: list[tuple[int, int, int]]) -> bytes:
    return bytes([att.READ_BY_GROUP_TYPE_RSP, 6]) + b"".join(struct.pack("<HHH", *e) for e in entries)


def _rbt_rsp(entries: list[tuple[int, int, int, int]]) -> bytes:
    return bytes([att.READ_BY_TYPE_RSP, 7]) + b"".join(struct.pack("<HBHH", *e) for e in entries)


SENSOR_SERVICES = [(0x0001, 0x0005, 0x1800), (0x0006, 0x000C, 0x180A), (0x000D, 0x0012, 0x180D)]
SENSOR_CHARS = [(0x0002, 0x02, 0x0003, 0x2A00), (0x0007, 0x02, 0x0008, 0x2A29),
                (0x0009, 0x02, 0x000A, 0x2A26), (0x000B, 0x02, 0x000C, 0x2A24),
                (0x000E, 0x30, 0x000F, 0x2A37), (0x0011, 0x0A, 0x0012, 0x2A39)]
HR_VALUE, HR_CCCD, HR_CONTROL = 0x000F, 0x0010, 0x0012
FW_HANDLE = 0x000A


def central_discovery(log: Log, t: float, handle: int, firmware: str | None = "1.0.0",
                      step: float = 45.0) -> float:
    """MTU exchange (247), primary services, characteristics, the CCCD, then (optionally) the
    Firmware Revision read. Each request answered `step` / 2 later. Returns the time after."""
    def rr(req: bytes, rsp: bytes) -> None:
        nonlocal t
        log.att_tx(t, handle, req)
        log.att_rx(t + step / 2, handle, rsp)
        t += step
    rr(att.exchange_mtu_req(247), att.exchange_mtu_rsp(247))
    rr(att.read_by_group_type_req(0x0001, 0xFFFF), _rbgt_rsp(SENSOR_SERVICES))
    rr(att.read_by_group_type_req(0x0013, 0xFFFF), att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, 0x0013, att.ATTRIBUTE_NOT_FOUND))
    rr(att.read_by_type_req(0x0001, 0xFFFF, att.CHARACTERISTIC), _rbt_rsp(SENSOR_CHARS))
    rr(att.read_by_type_req(0x0012, 0xFFFF, att.CHARACTERISTIC), att.error_rsp(att.READ_BY_TYPE_REQ, 0x0012, att.ATTRIBUTE_NOT_FOUND))
    rr(att.find_information_req(0x0010, 0x0010), bytes([att.FIND_INFORMATION_RSP, 1]) + struct.pack("<HH", 0x0010, 0x2902))
    if firmware is not None:
        rr(att.read_req(0x0008), att.read_rsp(b"Acme Sensors"))
        rr(att.read_req(0x000C), att.read_rsp(b"HRM-200"))
        rr(att.read_req(FW_HANDLE), att.read_rsp(firmware.encode()))
    return t


def connect(log: Log, t: float, handle: int, peer: str, role: int = 0, interval: int = 24,
            latency: int = 0, timeout: int = 400, create: bool = True) -> int:
    """LE Create Connection + Command Status (central role), then LE Connection Complete."""
    if create and role == 0:
        log.cmd(t - 40, hci.le_create_connection(1, peer, 1, interval, interval, latency, timeout))
        log.evt(t - 39.5, hci.command_status(hci.LE_CREATE_CONNECTION))
    return log.evt(t, hci.le_connection_complete(0, handle, role, 1, peer, interval, latency, timeout))


def host_disconnect(log: Log, t: float, handle: int, reason: int = 0x13, after_ms: float = 60.0) -> int:
    log.cmd(t, hci.disconnect(handle, reason))
    log.evt(t + 0.5, hci.command_status(hci.DISCONNECT))
    return log.evt(t + after_ms, hci.disconnection_complete(handle, 0x16))


def power_on(log: Log, t: float = 0.0) -> float:
    log.cmd(t, hci.reset())
    log.evt(t + 1, hci.command_complete(hci.RESET, b"\x00"))
    log.cmd(t + 2, hci.le_read_buffer_size())
    log.evt(t + 3, hci.command_complete(hci.LE_READ_BUFFER_SIZE, struct.pack("<BHB", 0, 251, 8)))
    return t + 10


def advertise(log: Log, t: float, address: str, data: bytes) -> None:
    log.evt(t, hci.le_advertising_report(hci.ADV_IND, 1, address, data, -58))


# --- scenarios -------------------------------------------------------------------------------

def peripheral_role() -> bytes:
    """The phone advertises a GATT service; a Mac connects as central (role 1 = peripheral in
    LE Connection Complete, Vol 4 Part E 7.7.65.1). Requests arrive (rx), the phone answers (tx).

    Local database: 0x0001-0x0003 1800 (0x0003 Device Name), 0x0004-0x0009 custom service
    6E400001-B5A3-F393-E0A9-E50E24DCCA9E: 0x0006 TX (notify) with CCCD 0x0007, 0x0009 RX (write).
    """
    log = Log()
    t = power_on(log)
    log.cmd(t, hci.command(LE_SET_ADVERTISING_PARAMETERS,
                           struct.pack("<HHBBB6sBB", 0x00A0, 0x00A0, 0, 1, 0, bytes(6), 7, 0)))
    log.evt(t + 1, hci.command_complete(LE_SET_ADVERTISING_PARAMETERS, b"\x00"))
    adv = hci.ad_flags(0x06) + hci.ad_name("Phone")
    log.cmd(t + 2, hci.command(LE_SET_ADVERTISING_DATA, bytes([len(adv)]) + adv + bytes(31 - len(adv))))
    log.evt(t + 3, hci.command_complete(LE_SET_ADVERTISING_DATA, b"\x00"))
    log.cmd(t + 4, hci.command(LE_SET_ADVERTISE_ENABLE, b"\x01"))
    log.evt(t + 5, hci.command_complete(LE_SET_ADVERTISE_ENABLE, b"\x00"))
    h = 0x0041
    t = 1000.0
    connect(log, t, h, MAC_CENTRAL, role=1, interval=24, timeout=500)   # frame 11
    t += 50
    # The remote central asks (rx) and the phone answers (tx)
    def served(req: bytes, rsp: bytes, gap: float = 15.0) -> None:
        nonlocal t
        log.att_rx(t, h, req)
        log.att_tx(t + 2, h, rsp)
        t += gap
    served(att.exchange_mtu_req(517), att.exchange_mtu_rsp(185))                     # 12, 13
    uuid = bytes.fromhex("9ECADC240EE5A9E093F3A3B50100406E")  # 6E400001-... little-endian
    served(att.read_by_group_type_req(0x0001, 0xFFFF),
           bytes([att.READ_BY_GROUP_TYPE_RSP, 6]) + struct.pack("<HHH", 0x0001, 0x0003, 0x1800))  # 14, 15
    served(att.read_by_group_type_req(0x0004, 0xFFFF),
           bytes([att.READ_BY_GROUP_TYPE_RSP, 20]) + struct.pack("<HH", 0x0004, 0x0009) + uuid)   # 16, 17
    served(att.read_by_group_type_req(0x000A, 0xFFFF),
           att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, 0x000A, att.ATTRIBUTE_NOT_FOUND))            # 18, 19
    tx_uuid = bytes.fromhex("9ECADC240EE5A9E093F3A3B50300406E")
    rx_uuid = bytes.fromhex("9ECADC240EE5A9E093F3A3B50200406E")
    served(att.read_by_type_req(0x0004, 0x0009, att.CHARACTERISTIC),
           bytes([att.READ_BY_TYPE_RSP, 21]) + struct.pack("<HBH", 0x0005, 0x10, 0x0006) + tx_uuid
           + struct.pack("<HBH", 0x0008, 0x0C, 0x0009) + rx_uuid)                                 # 20, 21
    served(att.find_information_req(0x0007, 0x0007),
           bytes([att.FIND_INFORMATION_RSP, 1]) + struct.pack("<HH", 0x0007, 0x2902))             # 22, 23
    served(att.write_req(0x0007, b"\x01\x00"), att.write_rsp())                                  # 24, 25
    # The central starts encryption with a key the phone no longer has: LE Long Term Key
    # Request (7.7.65.5), the host's Negative Reply (7.8.26) and its Command Complete.
    log.evt(t, hci.le_meta(LE_LONG_TERM_KEY_REQUEST, struct.pack("<H8sH", h, bytes(8), 0)))     # 26
    log.cmd(t + 1, hci.command(LE_LTK_REQUEST_NEGATIVE_REPLY, struct.pack("<H", h)))            # 27
    log.evt(t + 2, hci.command_complete(LE_LTK_REQUEST_NEGATIVE_REPLY, struct.pack("<BH", 0, h)))  # 28
    t += 100
    # The phone notifies (tx), a write to RX is refused by the phone's server (0x03)
    for i in range(3):
        log.att_tx(t + i * 30, h, att.notification(0x0006, bytes([0x10 + i])))                   # 29-31
    t += 100
    served(att.write_req(0x0009, b"\xAA"), att.error_rsp(att.WRITE_REQ, 0x0009, att.WRITE_NOT_PERMITTED))  # 32, 33
    log.att_rx(t, h, att.write_cmd(0x0009, b"\xBB"))                                             # 34
    t += 500
    log.evt(t, hci.disconnection_complete(h, 0x13))                                              # 35
    return log.btsnoop()


def three_peers() -> bytes:
    """Three links up at once, traffic interleaved; A is lost (0x08), B terminates (0x13), C
    fails its MIC (0x3D); then handle 0x0040 is reused for D, which ends 0x22."""
    log = Log()
    t = power_on(log)
    A, B, C = 0x0040, 0x0041, 0x0042
    connect(log, 100, A, SENSOR)              # timeout 4 s
    connect(log, 200, B, PEER_B)
    connect(log, 300, C, PEER_C, interval=40, timeout=200)   # 50 ms, 2 s
    # interleaved MTU exchanges and reads
    t = 400.0
    for i, h in enumerate((A, B, C)):
        log.att_tx(t + i * 5, h, att.exchange_mtu_req(247))
    for i, h in enumerate((A, B, C)):
        log.att_rx(t + 40 + i * 5, h, att.exchange_mtu_rsp(64 + i))
    t = 500.0
    for k in range(5):
        for i, h in enumerate((A, B, C)):
            log.att_rx(t + k * 100 + i * 7, h, att.notification(0x000F, bytes([k, i])))
    # A goes silent after its last notification at 900 ms (k=4, i=0); 0x08 4 s later
    log.att_tx(950, B, att.read_req(0x0003))
    log.att_rx(990, B, att.read_rsp(b"Peer B"))
    log.evt(1200, hci.disconnection_complete(C, 0x3D))                           # C: MIC failure
    log.evt(1500, hci.disconnection_complete(B, 0x13))                           # B: remote user
    log.evt(4900, hci.disconnection_complete(A, 0x08))                           # A: link loss
    # D on the reused handle 0x0040
    connect(log, 6000, A, PEER_C, interval=24, timeout=400)
    log.att_tx(6050, A, att.read_req(0x0003))
    log.att_rx(6080, A, att.read_rsp(b"Peer C"))
    log.evt(7000, hci.disconnection_complete(A, 0x22))                           # LL response timeout
    return log.btsnoop()


def encryption_failure() -> bytes:
    """A bonded reconnect: the central starts encryption with the stored LTK (Vol 4 Part E
    7.8.24), the peripheral has lost it and rejects (LL_REJECT_EXT_IND 0x06): Encryption Change
    with status 0x06 PIN or Key Missing, encryption off (7.7.8). The host then disconnects with
    0x05 Authentication Failure; Disconnection Complete says 0x16."""
    log = Log()
    power_on(log)
    h = 0x0040
    advertise(log, 50, SENSOR, hci.ad_flags(0x06) + hci.ad_name("Pulse HRM"))
    connect(log, 100, h, SENSOR)                                                # 8 (6 create, 7 status)
    log.cmd(110, hci.le_start_encryption(h, bytes.fromhex("1122334455667788"), 0x1234, bytes(16)))  # 9
    log.evt(111, hci.command_status(hci.LE_START_ENCRYPTION))                   # 10
    log.evt(190, hci.encryption_change(h, enabled=0, status=0x06))              # 11
    host_disconnect(log, 200, h, reason=0x05)                                   # 12, 13, 14
    return log.btsnoop()


def param_update_rejected() -> bytes:
    """The peripheral asks for 7.5 ms (L2CAP Connection Parameter Update Request, Vol 3 Part A
    4.20); the host rejects it (4.21, result 0x0001). The host's own LE Connection Update
    (7.8.18) then fails: LE Connection Update Complete with status 0x3B Unacceptable Connection
    Parameters (7.7.65.3). The peer ends the link with 0x13."""
    log = Log()
    power_on(log)
    h = 0x0040
    connect(log, 100, h, SENSOR)                                                # 7
    t = central_discovery(log, 150, h, firmware="1.0.0")                         # 8-25
    log.sig_rx(t, h, l2cap.connection_parameter_update_request(7, 6, 6, 0, 100))   # 26
    log.sig_tx(t + 3, h, l2cap.connection_parameter_update_response(7, result=1))  # 27
    t += 200
    log.cmd(t, hci.le_connection_update(h, 12, 12, 0, 300))                      # 28
    log.evt(t + 1, hci.command_status(hci.LE_CONNECTION_UPDATE))                # 29
    log.evt(t + 240, hci.le_connection_update_complete(h, 24, 0, 400, status=0x3B))  # 30
    t += 1000
    log.evt(t, hci.disconnection_complete(h, 0x13))                             # 31
    return log.btsnoop()


def att_timeout_retry() -> bytes:
    """Connection 1: a Write Request to the control point is never answered; 30 s later (Vol 3
    Part F 3.3.3) the host gives up and disconnects. Connection 2 (same handle): the app retries
    the write and it works; it subscribes to indications; an indication is never confirmed;
    a Prepare Write queue where the second prepare fails (0x07 Invalid Offset) and the client
    cancels with Execute Write flags 0x00 (3.4.6.3); 30 s after the unconfirmed indication the
    peer gives up and terminates (0x13)."""
    log = Log()
    power_on(log)
    h = 0x0040
    connect(log, 100, h, SENSOR)
    t = central_discovery(log, 150, h, firmware="1.0.0")
    w1 = log.att_tx(t, h, att.write_req(HR_CONTROL, b"\x01"))                  # never answered
    host_disconnect(log, t + 30_000 + 5, h, reason=0x13)
    # reconnect
    connect(log, t + 32_000, h, SENSOR)
    t = central_discovery(log, t + 32_050, h, firmware=None)
    log.att_tx(t, h, att.write_req(HR_CONTROL, b"\x01"))
    log.att_rx(t + 30, h, att.write_rsp())
    t += 60
    log.att_tx(t, h, att.write_req(HR_CCCD, b"\x02\x00"))
    log.att_rx(t + 30, h, att.write_rsp())
    t += 100
    ind = log.att_rx(t, h, att.indication(HR_VALUE, b"\x06\x48"))              # never confirmed
    t += 100
    log.att_tx(t, h, bytes([PREPARE_WRITE_REQ]) + struct.pack("<HH", HR_CONTROL, 0) + b"ABCDEFGHIJ")
    log.att_rx(t + 30, h, bytes([PREPARE_WRITE_RSP]) + struct.pack("<HH", HR_CONTROL, 0) + b"ABCDEFGHIJ")
    t += 60
    log.att_tx(t, h, bytes([PREPARE_WRITE_REQ]) + struct.pack("<HH", HR_CONTROL, 40) + b"KLMNOPQRST")
    log.att_rx(t + 30, h, att.error_rsp(PREPARE_WRITE_REQ, HR_CONTROL, 0x07))
    t += 60
    log.att_tx(t, h, bytes([EXECUTE_WRITE_REQ, 0x00]))
    log.att_rx(t + 30, h, bytes([EXECUTE_WRITE_RSP]))
    ind_ms = (log.items[ind - 1][0] - START) / 1000
    log.evt(ind_ms + 30_000 + 20, hci.disconnection_complete(h, 0x13))
    del w1
    return log.btsnoop()


def mid_connection() -> bytes:
    """An iPhone PacketLogger trace started while the link was up: no LE Connection Complete,
    notifications and a read on handle 0x0040, then the link is lost (0x08)."""
    log = Log()
    h = 0x0040
    for k in range(10):
        log.att_rx(k * 1000.0, h, att.notification(0x000F, bytes([0x06, 60 + k])))
    log.att_tx(9500, h, att.read_req(FW_HANDLE))
    log.att_rx(9560, h, att.read_rsp(b"1.1.0"))
    log.att_tx(9600, h, att.write_cmd(HR_CONTROL, b"\x01"))
    log.evt(9650, hci.number_of_completed_packets([(h, 2)]))
    log.evt(14_000, hci.disconnection_complete(h, 0x08))
    return log.packetlogger()


def ends_mid_transaction() -> bytes:
    """Discovery, a notification, then a Read Request whose response the capture never has; the
    capture goes on 1.2 s (a notification) and ends, well before the 30 s ATT timeout (Vol 3 Part
    F 3.3.3): the outcome is `pending`, a `capture-ended-pending` finding, not a silent peer."""
    log = Log()
    power_on(log)
    h = 0x0040
    connect(log, 100, h, SENSOR)
    t = central_discovery(log, 150, h, firmware="1.0.0")
    log.att_tx(t, h, att.write_req(HR_CCCD, b"\x01\x00"))
    log.att_rx(t + 30, h, att.write_rsp())
    log.att_rx(t + 100, h, att.notification(HR_VALUE, b"\x06\x48"))
    log.att_tx(t + 200, h, att.read_req(0x0003))
    log.att_rx(t + 1400, h, att.notification(HR_VALUE, b"\x06\x49"))
    return log.btsnoop()


def firmware_capture(firmware: list[tuple[str, int]], hour: int) -> bytes:
    """The sensor connected once per (firmware, disconnect reason); 0x16 means the host ended it."""
    log = Log(START + hour * 3_600_000_000)
    power_on(log)
    h = 0x0040
    t = 0.0
    for fw, reason in firmware:
        connect(log, t + 100, h, SENSOR)
        t2 = central_discovery(log, t + 150, h, firmware=fw)
        log.att_tx(t2, h, att.write_req(HR_CCCD, b"\x01\x00"))
        log.att_rx(t2 + 30, h, att.write_rsp())
        for k in range(5):
            log.att_rx(t2 + 100 + k * 1000, h, att.notification(HR_VALUE, bytes([0x06, 70 + k])))
        end = t2 + 100 + 4 * 1000
        if reason == 0x16:
            host_disconnect(log, end + 500, h)
        elif reason == 0x08:
            log.evt(end + 4000, hci.disconnection_complete(h, 0x08))
        else:
            log.evt(end + 500, hci.disconnection_complete(h, reason))
        t = end + 10_000
    return log.btsnoop()


# The database find_information_discovery serves (handles as gatt.Database lays them out):
#
# 0x0001-0x0005 1800 Generic Access   0x0002 decl, 0x0003 2A00 (read); 0x0004 decl, 0x0005 2A01 (read)
# 0x0006-0x000A 180F Battery          0x0007 decl, 0x0008 2A19 (read, notify), 0x0009 CCCD, 0x000A 2904
# 0x000B-0x0011 6E400001-B5A3-F393-E0A9-E50E24DCCA9E
#                                     0x000C decl, 0x000D 6E400003-… (notify), 0x000E CCCD, 0x000F 2901;
#                                     0x0010 decl, 0x0011 6E400002-… (write, write without response)
# 0x0012-0x0016 180A Device Information  0x0013 decl, 0x0014 2A29 (read); 0x0015 decl (its read is
#                                     refused), 0x0016 2A24 (read)
FI_UNREADABLE_DECLARATION = 0x0015


def find_information_database() -> gatt.Database:
    nus = "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"
    return gatt.Database([
        gatt.Service(0x1800, [gatt.Characteristic(0x2A00, gatt.READ, b"FI-Sensor"),
                              gatt.Characteristic(0x2A01, gatt.READ, struct.pack("<H", 0x0340))]),
        gatt.Service(0x180F, [gatt.Characteristic(0x2A19, gatt.READ | gatt.NOTIFY, b"\x5a",
                                                  [gatt.Descriptor(0x2904, bytes([0x04, 0, 0xAD, 0x27, 1, 0, 0]))])]),
        gatt.Service(gatt.uuid128(nus), [
            gatt.Characteristic(gatt.uuid128(nus.replace("0001-", "0003-", 1)), gatt.NOTIFY, b"",
                                [gatt.Descriptor(gatt.USER_DESCRIPTION, b"TX")]),
            gatt.Characteristic(gatt.uuid128(nus.replace("0001-", "0002-", 1)), gatt.WRITE | gatt.WRITE_WITHOUT_RESPONSE)]),
        gatt.Service(0x180A, [gatt.Characteristic(0x2A29, gatt.READ, b"Acme"),
                              gatt.Characteristic(0x2A24, gatt.READ, b"FI-1")]),
    ])


def find_information_discovery() -> bytes:
    """No Discover All Characteristics for most services: the central walks every handle with Find
    Information (Vol 3 Part F 3.4.3.1, from 0x0001 until Attribute Not Found; ATT_MTU 23, so a
    response holds up to five 16-bit or one 128-bit entry), then reads each characteristic
    declaration (Read Request, Vol 3 Part G 3.3.1: properties, value handle, UUID) and each value.
    Battery's characteristic is found by Read By Type 0x2803 as well (4.6.1). The server refuses
    the read of the declaration at 0x0015 (Read Not Permitted): only Find Information tells of it.
    The central ends the link with 0x13."""
    log = Log()
    t = power_on(log)
    h = 0x0040
    db = find_information_database()
    connect(log, 100, h, SENSOR)
    t = 150.0

    def rr(req: bytes, rsp: bytes) -> bytes:
        nonlocal t
        log.att_tx(t, h, req)
        log.att_rx(t + 15, h, rsp)
        t += 30
        return rsp

    # Primary services (Read By Group Type 0x2800) until Attribute Not Found.
    start = 0x0001
    while True:
        rsp = rr(att.read_by_group_type_req(start, 0xFFFF), db.read_by_group_type(start, 0xFFFF, 23))
        if rsp[0] != att.READ_BY_GROUP_TYPE_RSP:
            break
        start = struct.unpack_from("<H", rsp, len(rsp) - rsp[1] + 2)[0] + 1
    # Every handle's type (Find Information) until Attribute Not Found.
    start, declarations, attributes = 0x0001, [], []
    while True:
        rsp = rr(att.find_information_req(start, 0xFFFF), db.find_information(start, 0xFFFF, 23))
        if rsp[0] != att.FIND_INFORMATION_RSP:
            break
        size = 2 if rsp[1] == 1 else 16
        for i in range(2, len(rsp), 2 + size):
            handle = struct.unpack_from("<H", rsp, i)[0]
            attributes.append(handle)
            if size == 2 and struct.unpack_from("<H", rsp, i + 2)[0] == att.CHARACTERISTIC:
                declarations.append(handle)
        start = attributes[-1] + 1
    battery = db.service(0x180F)
    rr(att.read_by_type_req(battery.start, battery.end, att.CHARACTERISTIC),
       db.read_by_type_characteristics(battery.start, battery.end, 23))
    # Each declaration, then each readable value.
    for d in declarations:
        if d == FI_UNREADABLE_DECLARATION:
            rr(att.read_req(d), att.error_rsp(att.READ_REQ, d, att.READ_NOT_PERMITTED))
        else:
            rr(att.read_req(d), db.read(d, 23))
        c = db.characteristic_of(d)
        if c.properties & gatt.READ:
            rr(att.read_req(c.value_handle), db.read(c.value_handle, 23))
    host_disconnect(log, t + 50, h)
    return log.btsnoop()


SCENARIOS = {
    "peripheral-role.btsnoop": peripheral_role,
    "three-peers.btsnoop": three_peers,
    "encryption-failure.btsnoop": encryption_failure,
    "param-update-rejected.btsnoop": param_update_rejected,
    "att-timeout-retry.btsnoop": att_timeout_retry,
    "mid-connection.pklg": mid_connection,
    "ends-mid-transaction.btsnoop": ends_mid_transaction,
    # firmware 1.0.0: one link loss; 1.1.0: two link losses and a clean end; the DFU capture:
    # 1.1.0 with a link loss, then (after the update) 2.0.0 ending cleanly twice
    "fw-1.0.0.btsnoop": lambda: firmware_capture([("1.0.0", 0x08), ("1.0.0", 0x16)], 0),
    "fw-1.1.0.btsnoop": lambda: firmware_capture([("1.1.0", 0x08), ("1.1.0", 0x08), ("1.1.0", 0x16)], 1),
    "fw-dfu.btsnoop": lambda: firmware_capture([("1.1.0", 0x08), ("2.0.0", 0x16), ("2.0.0", 0x13)], 2),
    "find-information-discovery.btsnoop": find_information_discovery,
}


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        (out / name).write_bytes(build())
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
