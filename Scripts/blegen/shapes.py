"""Small captures of shapes the sample captures do not have, for the robustness sweep.

    python3 -m blegen.shapes OUTDIR        (run from Scripts/)

Each function returns the bytes of one file. Every packet is laid out as the Core spec (v5.4)
says; the counts each file should give are checked against tshark, not against blereplay.

  eatt.btsnoop               ATT over an enhanced credit-based channel (SPSM 0x0027), K-frames
                             with SDU length, one SDU segmented over two K-frames
  eatt-overlap.btsnoop       two EATT bearers with a request outstanding on each at once
  lecoc-ots.btsnoop          LE credit-based channel for OTS (PSM 0x0025): payload not ATT
  smp-bredr.btsnoop          SMP over BR/EDR (CID 0x0007, cross-transport key derivation)
  smp-failures.btsnoop       LE SC pairing with every PDU, then Pairing Failed 0x0B-0x0F
  le-audio.btsnoop           ISO data (H4 0x05), CIS request/established, BIG created,
                             extended reports with "incomplete, more data", periodic reports
  btmon-two-controllers.btsnoop  datalink 2001, controllers 0 and 1, handle 0x0040 on both
  handles.btsnoop            handle reuse, unknown disconnect, NOCP on unknown handle,
                             truncated event parameters
  acl-edges.btsnoop          broadcast flag, zero-length fragments, a start fragment
                             interrupting an incomplete reassembly
  mixed-linktypes.pcapng     interfaces with LINKTYPE 201 and 187 in one file
  nanosecond.pcapng          if_tsresol = 9 (nanoseconds)
  two-interfaces-201.pcapng  btmon-two-controllers' session as a pcapng of two interfaces (one
  two-interfaces-187.pcapng  per adapter), LINKTYPE 201 and 187
  packetlogger-types.pklg    syslog, kernel, power, note records among HCI
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci, l2cap, smp
from .btsnoop import EPOCH_OFFSET_US, unix_us

START = unix_us("2026-04-01T09:00:00Z")
PEER = "C4:7A:3B:12:9E:51"
PEER2 = "D1:22:33:44:55:66"
H = 0x0040


class Log:
    """H4 packets with direction and a 10 ms clock."""

    def __init__(self) -> None:
        self.ts = START
        self.items: list[tuple[int, bytes, bool, int]] = []  # (ts, h4, received, controller)

    def add(self, h4: bytes, received: bool | None = None, controller: int = 0, gap_ms: int = 10) -> None:
        self.ts += gap_ms * 1000
        if received is None:
            received = h4[0] != 0x01
        self.items.append((self.ts, h4, received, controller))

    def tx(self, h4: bytes, **kw) -> None:
        self.add(h4, False, **kw)

    def rx(self, h4: bytes, **kw) -> None:
        self.add(h4, True, **kw)

    def btsnoop(self) -> bytes:
        out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 1002))
        for ts, h4, received, _ in self.items:
            flags = (1 if received else 0) | (0b10 if h4[0] in (0x01, 0x04) else 0)
            out += struct.pack(">IIIIq", len(h4), len(h4), flags, 0, ts + EPOCH_OFFSET_US) + h4
        return bytes(out)


def connect(log: Log, handle: int = H, peer: str = PEER, **kw) -> None:
    log.rx(hci.le_connection_complete(0, handle, 0, 1, peer, 24, 0, 400), **kw)


def l2(log: Log, received: bool, cid: int, payload: bytes, handle: int = H, **kw) -> None:
    pb = hci.PB_FIRST_FLUSHABLE if received else hci.PB_FIRST_NON_FLUSHABLE
    log.add(hci.acl(handle, pb, l2cap.frame(cid, payload)), received, **kw)


def sig(code: int, ident: int, fmt: str, *values) -> bytes:
    return l2cap.signaling(code, ident, struct.pack(fmt, *values))


def k_frame(cid: int, sdu: bytes, sdu_length: int | None = None) -> bytes:
    """First K-frame of an SDU: L2CAP length, CID, SDU length u16, then the data
    (Vol 3 Part A 3.4.3)."""
    head = b"" if sdu_length is None else struct.pack("<H", sdu_length)
    return l2cap.frame(cid, head + sdu)


# --- EATT ------------------------------------------------------------------------------------

def eatt() -> bytes:
    """ATT over two enhanced credit-based channels. Our CIDs 0x0040/0x0041, the peer's
    0x0045/0x0046. A packet is addressed to the receiver's CID."""
    log = Log()
    connect(log)
    l2(log, False, 4, struct.pack("<BH", att.EXCHANGE_MTU_REQ, 247))
    l2(log, True, 4, struct.pack("<BH", att.EXCHANGE_MTU_RSP, 247))
    # Credit Based Connection Request (0x17): SPSM, MTU, MPS, credits, SCIDs (4.25)
    l2(log, False, 5, sig(0x17, 1, "<HHHHHH", 0x0027, 64, 64, 10, 0x0040, 0x0041))
    # Credit Based Connection Response (0x18): MTU, MPS, credits, result, DCIDs (4.26)
    l2(log, True, 5, sig(0x18, 1, "<HHHHHH", 64, 23, 10, 0, 0x0045, 0x0046))
    # Read Request on EATT bearer 1 (to the peer's CID 0x0045), response on ours (0x0040)
    rd = struct.pack("<BH", att.READ_REQ, 0x0003)
    log.tx(hci.acl(H, 0, k_frame(0x0045, rd, len(rd))))
    rsp = bytes([att.READ_RSP]) + b"Pulse"
    log.rx(hci.acl(H, 2, k_frame(0x0040, rsp, len(rsp))))
    # Write Request on bearer 2, its response: an SDU of 30 bytes in two K-frames (peer MPS 23)
    wr = struct.pack("<BH", att.WRITE_REQ, 0x0010) + bytes(range(27))
    assert len(wr) == 30
    log.tx(hci.acl(H, 0, k_frame(0x0046, wr[:21], len(wr))))
    log.tx(hci.acl(H, 0, k_frame(0x0046, wr[21:])))
    log.rx(hci.acl(H, 2, k_frame(0x0041, bytes([att.WRITE_RSP]), 1)))
    # A notification on bearer 1 and one with its K-frame split over two ACL packets
    ntf = struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x000E) + b"\x00\x48"
    log.rx(hci.acl(H, 2, k_frame(0x0040, ntf, len(ntf))))
    frame = k_frame(0x0040, ntf, len(ntf))
    log.rx(hci.acl(H, 2, frame[:6]))
    log.rx(hci.acl(H, 1, frame[6:]))
    # Flow Control Credit (0x16) from the peer for our sending channel
    l2(log, True, 5, sig(0x16, 2, "<HH", 0x0045, 5))
    # An ATT request on the fixed channel still works
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 0x0005))
    l2(log, True, 4, bytes([att.READ_RSP, 0x01]))
    # Disconnection Request/Response for bearer 2 (4.6/4.7: DCID, SCID)
    l2(log, False, 5, sig(0x06, 3, "<HH", 0x0046, 0x0041))
    l2(log, True, 5, sig(0x07, 3, "<HH", 0x0046, 0x0041))
    log.rx(hci.disconnection_complete(H, 0x13))
    return log.btsnoop()


def eatt_overlap() -> bytes:
    """Two Enhanced ATT bearers with a request outstanding on each at once (ATT is sequential per
    bearer, Vol 3 Part F 3.3.2 and Part G 5.4): Read Request on bearer 0x0040, Read Request on
    bearer 0x0041 before the first is answered, then both responses in the opposite order.
    Transactions pair per bearer: 0x0003 with "one", 0x0005 with "two"."""
    log = Log()
    connect(log)
    l2(log, False, 5, sig(0x17, 1, "<HHHHHH", 0x0027, 64, 64, 10, 0x0040, 0x0041))
    l2(log, True, 5, sig(0x18, 1, "<HHHHHH", 64, 64, 10, 0, 0x0045, 0x0046))
    r1 = struct.pack("<BH", att.READ_REQ, 0x0003)
    r2 = struct.pack("<BH", att.READ_REQ, 0x0005)
    log.tx(hci.acl(H, 0, k_frame(0x0045, r1, len(r1))))
    log.tx(hci.acl(H, 0, k_frame(0x0046, r2, len(r2))))
    two = bytes([att.READ_RSP]) + b"two"
    one = bytes([att.READ_RSP]) + b"one"
    log.rx(hci.acl(H, 2, k_frame(0x0041, two, len(two))))
    log.rx(hci.acl(H, 2, k_frame(0x0040, one, len(one))))
    log.rx(hci.disconnection_complete(H, 0x13))
    return log.btsnoop()


def lecoc_ots() -> bytes:
    """LE Credit Based Connection for OTS (PSM 0x0025); payloads whose first byte looks like
    an ATT opcode (0x0A, 0x1B) must not be counted as ATT."""
    log = Log()
    connect(log)
    # LE Credit Based Connection Request (0x14): LE_PSM, SCID, MTU, MPS, credits (4.22)
    l2(log, False, 5, sig(0x14, 1, "<HHHHH", 0x0025, 0x0040, 512, 247, 8))
    # Response (0x15): DCID, MTU, MPS, credits, result (4.23)
    l2(log, True, 5, sig(0x15, 1, "<HHHHH", 0x0050, 512, 247, 8, 0))
    log.tx(hci.acl(H, 0, k_frame(0x0050, b"\x0a\x03\x00object", 9)))
    log.rx(hci.acl(H, 2, k_frame(0x0040, b"\x1b\x0e\x00\x01\x02", 5)))
    # A second PSM refused: SPSM not supported (0x0002)
    l2(log, False, 5, sig(0x14, 2, "<HHHHH", 0x0081, 0x0041, 100, 100, 1))
    l2(log, True, 5, sig(0x15, 2, "<HHHHH", 0x0000, 0, 0, 0, 0x0002))
    log.rx(hci.disconnection_complete(H, 0x13))
    return log.btsnoop()


# --- SMP ------------------------------------------------------------------------------------

def connection_complete_bredr(handle: int, peer: str) -> bytes:
    """Connection Complete (7.7.3): status, handle, BD_ADDR, link type 1 (ACL), encryption."""
    return hci.event(0x03, struct.pack("<BH6sBB", 0, handle, hci.addr_bytes(peer), 1, 0))


def smp_bredr() -> bytes:
    """SMP on a BR/EDR link (CID 0x0007): cross-transport key derivation (Vol 3 Part H 3.2,
    2.4.2.4). Only Pairing Request/Response, key distribution and Pairing Failed are allowed."""
    log = Log()
    log.tx(hci.command(0x0405, hci.addr_bytes(PEER2) + struct.pack("<HBBHB", 0xCC18, 1, 0, 0, 1)))
    log.rx(hci.command_status(0x0405))
    log.rx(connection_complete_bredr(0x000B, PEER2))
    req = smp.pairing_request(0, 0, smp.BONDING | smp.CT2, 16, smp.ID_KEY, smp.ID_KEY)
    rsp = smp.pairing_response(0, 0, smp.BONDING | smp.CT2, 16, smp.ID_KEY, smp.ID_KEY)
    l2(log, False, 7, req, handle=0x000B)
    l2(log, True, 7, rsp, handle=0x000B)
    l2(log, True, 7, smp.identity_information(bytes(range(16))), handle=0x000B)
    l2(log, True, 7, smp.identity_address_information(0, hci.addr_bytes(PEER2)), handle=0x000B)
    l2(log, False, 7, smp.identity_information(bytes(range(16, 32))), handle=0x000B)
    l2(log, False, 7, smp.identity_address_information(0, hci.addr_bytes("00:1A:7D:DA:71:13")), handle=0x000B)
    # A second attempt refused: Cross-transport Key Derivation/Generation Not Allowed
    l2(log, False, 7, req, handle=0x000B)
    l2(log, True, 7, smp.pairing_failed(0x0E), handle=0x000B)
    log.rx(hci.disconnection_complete(0x000B, 0x13))
    return log.btsnoop()


def smp_failures() -> bytes:
    """LE Secure Connections: every PDU once (security request, request/response, public keys,
    confirm, random, DHKey check, keypress notification, key distribution), then five
    connections each ending in Pairing Failed 0x0B..0x0F."""
    log = Log()
    connect(log)
    l2(log, True, 6, smp.security_request(smp.BONDING | smp.MITM | smp.SC))
    req = smp.pairing_request(smp.KEYBOARD_DISPLAY, 0, smp.BONDING | smp.MITM | smp.SC | smp.KEYPRESS,
                              16, smp.ENC_KEY | smp.ID_KEY, smp.ENC_KEY | smp.ID_KEY)
    rsp = smp.pairing_response(smp.KEYBOARD_ONLY, 0, smp.BONDING | smp.MITM | smp.SC | smp.KEYPRESS,
                               16, smp.ID_KEY, smp.ENC_KEY | smp.ID_KEY)
    l2(log, False, 6, req)
    l2(log, True, 6, rsp)
    l2(log, False, 6, smp.pairing_public_key(bytes(range(32)), bytes(range(32, 64))))
    l2(log, True, 6, smp.pairing_public_key(bytes(range(64, 96)), bytes(range(96, 128))))
    l2(log, True, 6, bytes([0x0E, 0x00]))   # Keypress Notification: passkey entry started
    l2(log, True, 6, bytes([0x0E, 0x01]))   # digit entered
    l2(log, True, 6, bytes([0x0E, 0x04]))   # entry completed
    l2(log, False, 6, smp.pairing_confirm(bytes(16)))
    l2(log, True, 6, smp.pairing_confirm(bytes([1] * 16)))
    l2(log, False, 6, smp.pairing_random(bytes([2] * 16)))
    l2(log, True, 6, smp.pairing_random(bytes([3] * 16)))
    l2(log, False, 6, smp.pairing_dhkey_check(bytes([4] * 16)))
    l2(log, True, 6, smp.pairing_dhkey_check(bytes([5] * 16)))
    log.rx(hci.encryption_change(H))
    l2(log, True, 6, smp.encryption_information(bytes([6] * 16)))
    l2(log, True, 6, smp.central_identification(0x1234, bytes(8)))
    l2(log, True, 6, smp.identity_information(bytes([7] * 16)))
    l2(log, True, 6, smp.identity_address_information(1, hci.addr_bytes(PEER)))
    l2(log, True, 6, smp.signing_information(bytes([8] * 16)))
    l2(log, False, 6, smp.identity_information(bytes([9] * 16)))
    l2(log, False, 6, smp.identity_address_information(0, hci.addr_bytes("00:1A:7D:DA:71:13")))
    log.rx(hci.disconnection_complete(H, 0x13))
    for reason in (0x0B, 0x0C, 0x0D, 0x0E, 0x0F):
        connect(log)
        l2(log, False, 6, req)
        l2(log, True, 6, smp.pairing_failed(reason))
        log.rx(hci.disconnection_complete(H, 0x05))
    return log.btsnoop()


# --- LE Audio, extended and periodic advertising ---------------------------------------------

def ext_report(event_type: int, addr: str, data: bytes, sid: int = 1, rssi: int = -60,
               periodic_interval: int = 0) -> bytes:
    """One LE Extended Advertising Report (7.7.65.13). Event type bits 5-6 = data status."""
    return hci.le_meta(0x0D, struct.pack("<BHB6sBBBbbHB6sB", 1, event_type, 1, hci.addr_bytes(addr),
                                         1, 3, sid, 127, rssi, periodic_interval, 0, bytes(6), len(data))
                       + data)


def iso(handle: int, pb: int, ts: bool, data: bytes) -> bytes:
    """ISO data packet (5.4.5): handle|PB<<12|TS<<14, length (14 bits), data load."""
    return struct.pack("<BHH", 0x05, handle | pb << 12 | (1 << 14 if ts else 0), len(data)) + data


def le_audio() -> bytes:
    log = Log()
    # Extended reports: a 300-byte advertisement in three fragments (status 01 incomplete,
    # more data; then 00 complete), and one truncated (status 10).
    name = hci.ad_name("Earbuds LE Audio with a name long enough")
    big = hci.ad_flags(0x06) + name + hci.ad_manufacturer(0x0059, bytes(range(200)))
    assert len(big) > 229
    log.rx(ext_report(0x0001 | 0x20, PEER2, big[:229 - 24]))
    log.rx(ext_report(0x0001 | 0x20, PEER2, big[229 - 24:229 * 2 - 48]))
    log.rx(ext_report(0x0001, PEER2, big[229 * 2 - 48:]))
    log.rx(ext_report(0x0000 | 0x40, PEER2, hci.ad_flags(0x06)))
    # Periodic Advertising Sync Established (0x0E) then two periodic reports (0x0F):
    # Sync_Handle u16, TX_Power, RSSI, CTE_Type, Data_Status, Data_Length, Data (7.7.65.15)
    log.rx(hci.le_meta(0x0E, struct.pack("<BHBB6sBHB", 0, 0x0001, 1, 1, hci.addr_bytes(PEER2), 3, 0x0050, 0)))
    basic_audio = hci.ad(0x16, struct.pack("<H", 0x1851) + bytes(12))
    # data status 0x01 (incomplete, more data): the first 10 bytes, then an empty complete one
    log.rx(hci.le_meta(0x0F, struct.pack("<HbbBBB", 0x0001, 127, -55, 0xFF, 0x01, 10) + basic_audio[:10]))
    log.rx(hci.le_meta(0x0F, struct.pack("<HbbBBB", 0x0001, 127, -55, 0xFF, 0x00, 0)))
    # BIGInfo report (0x22): Sync_Handle, Num_BIS, NSE, ISO_Interval, BN, PTO, IRC,
    # Max_PDU, SDU_Interval(3), Max_SDU, PHY, Framing, Encryption (7.7.65.34)
    log.rx(hci.le_meta(0x22, struct.pack("<HBBHBBBH3sHBBB", 0x0001, 2, 2, 8, 1, 0, 1, 40, b"\x10\x27\x00",
                                          40, 2, 0, 0)))
    # An ACL connection, then a CIS request (0x1A) and CIS established (0x19)
    connect(log)
    log.rx(hci.le_meta(0x1A, struct.pack("<HHBB", H, 0x0060, 1, 0)))
    # CIS Established: Status, Connection_Handle, CIG_Sync_Delay(3), CIS_Sync_Delay(3),
    # Transport_Latency C->P(3), P->C(3), PHY C->P, PHY P->C, NSE, BN C->P, BN P->C, FT C->P,
    # FT P->C, Max_PDU C->P u16, Max_PDU P->C u16, ISO_Interval u16 (7.7.65.25)
    log.rx(hci.le_meta(0x19, struct.pack("<BH3s3s3s3sBBBBBBBHHH", 0, 0x0060, b"\x10\x00\x00", b"\x10\x00\x00",
                                          b"\x20\x4e\x00", b"\x20\x4e\x00", 2, 2, 2, 1, 1, 1, 1, 40, 40, 8)))
    # ISO data both ways: complete SDUs with timestamp, a first/last fragment pair
    sdu = bytes(range(40))
    header = struct.pack("<IHH", 1000, 1, len(sdu))   # time stamp, sequence, SDU length|status
    log.tx(iso(0x0060, 0b10, True, header + sdu))
    log.rx(iso(0x0060, 0b10, False, struct.pack("<HH", 1, len(sdu)) + sdu))
    log.rx(iso(0x0060, 0b00, False, struct.pack("<HH", 2, len(sdu)) + sdu[:20]))
    log.rx(iso(0x0060, 0b11, False, sdu[20:]))
    # BIG created (0x1B): Status, BIG_Handle, BIG_Sync_Delay(3), Transport_Latency(3), PHY, NSE,
    # BN, PTO, IRC, Max_PDU u16, ISO_Interval u16, Num_BIS, handles (7.7.65.27)
    log.rx(hci.le_meta(0x1B, struct.pack("<BB3s3sBBBBBHHBHH", 0, 0, b"\x10\x00\x00", b"\x20\x4e\x00", 2, 2, 1,
                                          0, 1, 40, 8, 2, 0x0070, 0x0071)))
    log.tx(iso(0x0070, 0b10, False, struct.pack("<HH", 1, 4) + b"\x01\x02\x03\x04"))
    # CIS disconnect
    log.rx(hci.disconnection_complete(0x0060, 0x13))
    log.rx(hci.disconnection_complete(H, 0x13))
    return log.btsnoop()


# --- btmon with two controllers -------------------------------------------------------------

def monitor(log: Log, names: dict[int, str]) -> bytes:
    """btsnoop datalink 2001: flags = index << 16 | opcode (REFERENCE.md)."""
    out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 2001))
    ts0 = START

    def record(ts: int, index: int, opcode: int, body: bytes) -> None:
        out.extend(struct.pack(">IIIIq", len(body), len(body), index << 16 | opcode, 0, ts + EPOCH_OFFSET_US))
        out.extend(body)

    for index, name in names.items():
        # New Index: type u8 (0 primary), bus u8, bdaddr 6, name 8 (btmon monitor/bt.h)
        record(ts0, index, 0, struct.pack("<BB6s8s", 0, 1, hci.addr_bytes(f"00:1A:7D:DA:71:1{index}"),
                                          name.encode()))
        record(ts0, index, 8, b"")   # Open Index
    for ts, h4, received, index in log.items:
        kind, body = h4[0], h4[1:]
        opcode = {0x01: 2, 0x04: 3, 0x02: 5 if received else 4, 0x05: 19 if received else 18}[kind]
        record(ts, index, opcode, body)
    return bytes(out)


def btmon_two_controllers() -> bytes:
    """Two controllers each with an LE connection on handle 0x0040 to different peers. The
    connection on controller 1 ends first; traffic continues on controller 0 afterwards."""
    return monitor(_two_controllers(), {0: "hci0", 1: "hci1"})


def _two_controllers() -> Log:
    """The session of `btmon_two_controllers`, each packet on its controller."""
    log = Log()
    for c, peer in ((0, PEER), (1, PEER2)):
        connect(log, peer=peer, controller=c)
    for c in (0, 1):
        l2(log, False, 4, struct.pack("<BH", att.EXCHANGE_MTU_REQ, 100 + c), controller=c)
    for c in (1, 0):
        l2(log, True, 4, struct.pack("<BH", att.EXCHANGE_MTU_RSP, 200 + c), controller=c)
    # Interleaved fragments: a Read Response split in two on each controller
    rsp0 = l2cap.frame(4, bytes([att.READ_RSP]) + b"controller-zero")
    rsp1 = l2cap.frame(4, bytes([att.READ_RSP]) + b"controller-one!")
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 3), controller=0)
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 3), controller=1)
    log.rx(hci.acl(H, 2, rsp0[:8]), controller=0)
    log.rx(hci.acl(H, 2, rsp1[:8]), controller=1)
    log.rx(hci.acl(H, 1, rsp0[8:]), controller=0)
    log.rx(hci.acl(H, 1, rsp1[8:]), controller=1)
    log.rx(hci.disconnection_complete(H, 0x08), controller=1)
    l2(log, True, 4, struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0E) + b"\x00\x50", controller=0)
    log.rx(hci.disconnection_complete(H, 0x13), controller=0)
    return log


# --- handles and truncated events -----------------------------------------------------------

def handles() -> bytes:
    log = Log()
    # Disconnection Complete for a handle never seen; NOCP for an unknown handle
    log.rx(hci.disconnection_complete(0x0077, 0x08))
    log.rx(hci.number_of_completed_packets([(0x0078, 1)]))
    # Handle reuse: two connections on 0x0040 to different peers, each with ATT
    connect(log, peer=PEER)
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 3))
    l2(log, True, 4, bytes([att.READ_RSP]) + b"one")
    log.rx(hci.disconnection_complete(H, 0x13))
    connect(log, peer=PEER2)
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 3))
    l2(log, True, 4, bytes([att.READ_RSP]) + b"two")
    log.rx(hci.number_of_completed_packets([(H, 1), (0x0079, 2)]))
    # Truncated parameters: Disconnection Complete with 2 of 4 bytes; LE Connection Complete
    # with 10 of 18; Command Complete with no opcode; NOCP announcing 3 handles, carrying 1
    log.rx(hci.event(0x05, b"\x00\x40"))
    log.rx(hci.event(0x3E, bytes([0x01]) + bytes(9)))
    log.rx(hci.event(0x0E, b"\x01"))
    log.rx(hci.event(0x13, b"\x03\x40\x00\x01\x00"))
    # Event whose length byte says more than present
    log.rx(b"\x04\x05\x04\x00\x40")
    log.rx(hci.disconnection_complete(H, 0x16))
    return log.btsnoop()


# --- ACL edges ------------------------------------------------------------------------------

def acl_edges() -> bytes:
    log = Log()
    connect(log)
    att_rsp = l2cap.frame(4, bytes([att.READ_RSP]) + bytes(range(30)))
    # Zero-length start fragment then the whole PDU in continuations; zero-length continuation
    log.rx(hci.acl(H, 2, b""))
    log.rx(hci.acl(H, 1, att_rsp[:10]))
    log.rx(hci.acl(H, 1, b""))
    log.rx(hci.acl(H, 1, att_rsp[10:]))
    # A start fragment interrupting an incomplete reassembly: the first PDU is lost, the
    # second decodes
    log.rx(hci.acl(H, 2, att_rsp[:12]))
    ntf = l2cap.frame(4, struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0E) + b"\x00\x51")
    log.rx(hci.acl(H, 2, ntf))
    log.rx(hci.acl(H, 1, att_rsp[12:]))    # orphan continuation of the lost PDU
    # Broadcast flag set (BC 01, active peripheral broadcast: not LE; Vol 4 Part E 5.4.2)
    word = H | 0b10 << 12 | 0b01 << 14
    payload = l2cap.frame(4, struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0E) + b"\x00\x52")
    log.rx(struct.pack("<BHH", 0x02, word, len(payload)) + payload)
    log.rx(hci.disconnection_complete(H, 0x13))
    return log.btsnoop()


# --- pcapng ---------------------------------------------------------------------------------

def _block(kind: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)


def _option(code: int, value: bytes) -> bytes:
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def _shb() -> bytes:
    return _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def _idb(linktype: int, tsresol: int | None = None) -> bytes:
    opts = b""
    if tsresol is not None:
        opts = _option(9, bytes([tsresol])) + _option(0, b"")
    return _block(1, struct.pack("<HHI", linktype, 0, 0) + opts)


def _epb(interface: int, ticks: int, data: bytes) -> bytes:
    return _block(6, struct.pack("<IIIII", interface, ticks >> 32, ticks & 0xFFFFFFFF, len(data), len(data)) + data)


def _session_h4() -> list[tuple[bytes, bool]]:
    log = Log()
    connect(log)
    l2(log, False, 4, struct.pack("<BH", att.READ_REQ, 3))
    l2(log, True, 4, bytes([att.READ_RSP]) + b"abc")
    log.rx(hci.disconnection_complete(H, 0x13))
    return [(h4, rx) for _, h4, rx, _ in log.items]


def mixed_linktypes() -> bytes:
    """Interface 0 LINKTYPE 201 (direction header), interface 1 LINKTYPE 187 (bare H4)."""
    out = _shb() + _idb(201) + _idb(187)
    t = START
    for i, (h4, rx) in enumerate(_session_h4()):
        t += 10_000
        if i % 2 == 0:
            out += _epb(0, t, struct.pack(">I", 1 if rx else 0) + h4)
        else:
            out += _epb(1, t, h4)
    return out


def _two_interfaces(linktype: int) -> bytes:
    """The session of `btmon_two_controllers` as Wireshark writes a capture of two adapters at
    once: one interface per adapter (IDB, draft-ietf-opsawg-pcapng 4.2), each packet in an EPB
    naming its adapter's interface (4.3). Interface 1 is declared after interface 0's first
    packet, and an Interface Statistics Block (4.6) sits between two packets."""
    out = _shb() + _idb(linktype)
    for i, (ts, h4, rx, controller) in enumerate(_two_controllers().items):
        if i == 1:
            out += _idb(linktype)
        if i == 6:
            out += _block(5, struct.pack("<III", 0, ts >> 32, ts & 0xFFFFFFFF))
        data = struct.pack(">I", 1 if rx else 0) + h4 if linktype == 201 else h4
        out += _epb(controller, ts, data)
    return out


def two_interfaces_201() -> bytes:
    """Two adapters, LINKTYPE 201 on both interfaces."""
    return _two_interfaces(201)


def two_interfaces_187() -> bytes:
    """Two adapters, LINKTYPE 187 (no direction) on both interfaces."""
    return _two_interfaces(187)


def nanosecond() -> bytes:
    """One LINKTYPE 201 interface with if_tsresol 9: timestamps in nanoseconds."""
    out = _shb() + _idb(201, tsresol=9)
    t = START * 1000 + 123
    for h4, rx in _session_h4():
        t += 10_000_000 + 7
        out += _epb(0, t, struct.pack(">I", 1 if rx else 0) + h4)
    return out


# --- PacketLogger ---------------------------------------------------------------------------

def packetlogger_types() -> bytes:
    """Records: u32 length BE (8 + 1 + payload), u32 seconds, u32 microseconds, u8 type, payload
    (captures/MANIFEST.md). Types 0xF7 syslog, 0xF8 kernel, 0xFB power, 0xFC note among HCI."""
    out = bytearray()
    t = START

    def rec(kind: int, payload: bytes) -> None:
        nonlocal t
        t += 10_000
        out.extend(struct.pack(">IIIB", 9 + len(payload), t // 1_000_000, t % 1_000_000, kind) + payload)

    rec(0xFC, b"Product: iPhone16,1\0")
    rec(0xFB, b"\x01")
    rec(0xF7, b"bluetoothd[123]: <private> connected\0")
    types = {(0x01, False): 0x00, (0x04, True): 0x01, (0x02, False): 0x02, (0x02, True): 0x03}
    for i, (h4, rx) in enumerate(_session_h4()):
        rec(types[(h4[0], rx)], h4[1:])
        if i == 1:
            rec(0xF8, b"kernel: AppleBluetooth\0")
            rec(0xF9, b"kernel debug\0")
            rec(0xFA, b"error text\0")
    return bytes(out)


SHAPES = {
    "eatt.btsnoop": eatt,
    "eatt-overlap.btsnoop": eatt_overlap,
    "lecoc-ots.btsnoop": lecoc_ots,
    "smp-bredr.btsnoop": smp_bredr,
    "smp-failures.btsnoop": smp_failures,
    "le-audio.btsnoop": le_audio,
    "btmon-two-controllers.btsnoop": btmon_two_controllers,
    "handles.btsnoop": handles,
    "acl-edges.btsnoop": acl_edges,
    "mixed-linktypes.pcapng": mixed_linktypes,
    "nanosecond.pcapng": nanosecond,
    "two-interfaces-201.pcapng": two_interfaces_201,
    "two-interfaces-187.pcapng": two_interfaces_187,
    "packetlogger-types.pklg": packetlogger_types,
}


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SHAPES.items():
        (out / name).write_bytes(build())
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
