"""Randomized but valid HCI sessions from a seed, each with its outcome known by construction
(issue 11: "every connection reproduces" checked on sessions nobody chose).

    python3 -m blegen.sessions OUTDIR --seed S [--count N]        (run from Scripts/)

writes OUTDIR/session-<seed>.btsnoop for seeds S .. S+N-1 (with --shape NAME, NAME-<seed>.btsnoop:
one of the fixed shapes in SHAPES) and OUTDIR/sessions.json, the manifest:
per session its seed, file name and the shapes it holds, and per link (in the order of its first
record in the file, which is the order the timeline numbers connections) what the file shows by
construction: the handle, the local role, the kind (connection, mid-capture connection, cancelled
attempt, failed attempt), the ATT PDUs on the fixed channel, and how it ended (a Disconnection
Complete reason, or still connected when the capture ended).

The same seed gives the same bytes (`random.Random(seed)`, no wall clock). Every packet is laid
out as Core v5.4 says (HCI: Vol 4 Part E 5.4 and 7; L2CAP: Vol 3 Part A 3.1 and 4; ATT: Vol 3
Part F 3.4; SMP: Vol 3 Part H 3.5). Shapes covered:

  - attempts that never make a link: LE Create Connection Cancel then LE Connection Complete 0x02
    (Vol 4 Part E 7.8.13), or LE Connection Complete with an error status;
  - 0x3E after LE Connection Complete (success) with the central's first request(s) outstanding
    (Vol 6 Part B 4.5.2: the peer never answered the first connection events);
  - failures during MTU exchange or discovery, mid-notification stream, while encrypting (LE Start
    Encryption -> Encryption Change 0x06, or the link ends before any Encryption Change) or
    pairing (SMP Pairing Failed, or the link ends after the Pairing Response);
  - Write Commands over the controller's 8 LE ACL buffers, values over several LL packets,
    notifications while a request is outstanding;
  - the 30 s ATT timeout on the fixed channel (Vol 3 Part F 3.3.3), both directions;
  - indications never confirmed, from the peer's server and from the local server;
  - endings: peer 0x13, link loss 0x08 one supervision timeout after the last event the peer
    answered, local Disconnect (Disconnection Complete 0x16), 0x3E, still connected;
  - connection parameter updates (L2CAP request accepted -> LE Connection Update Complete;
    rejected, result 1; central-initiated update refused with status 0x3B) and PHY updates
    (LE Set PHY -> LE PHY Update Complete, accepted or 0x1A);
  - several simultaneous links, handles reused once free;
  - a capture that begins mid-connection (traffic on a handle it never saw connect), or ends
    mid-transaction (a request unanswered) or while the local Disconnect is under way (HCI
    Disconnect, Command Status, no Disconnection Complete);
  - the local device as central, as peripheral, and both on different links of one capture;
  - Enhanced ATT (Vol 3 Part G 5.4) on about one local-central link in ten: two bearers with
    requests outstanding at once, or the 30 s timeout on one bearer while the other and the fixed
    channel go on (drawn apart, so links without EATT are what they were before it).

The named shapes (--shape) force these: eatt-overlap, eatt-timeout, and GATT over BR/EDR
(bredr-att: a BR/EDR ACL link with ATT on PSM 0x001F beside an LE link), which the random draw
does not make.
"""

from __future__ import annotations

import json
import random
import struct
import sys
from pathlib import Path

from . import att, hci, l2cap, smp
from .btsnoop import EPOCH_OFFSET_US, unix_us

START = unix_us("2026-06-01T09:00:00Z")
MS = 1000
ATT_TIMEOUT = 30_000 * MS

LE_SET_PHY = 0x2032
LE_PHY_UPDATE_COMPLETE = 0x0C
LE_LONG_TERM_KEY_REQUEST = 0x05
LE_LTK_REQUEST_REPLY = 0x201A

# The peer's GATT database, as its discovery shows it (one consistent database for every peer):
# 0x0001-0x0005 1800: 0x0003 Device Name; 0x0006-0x000B 180F Battery: 0x0008 2A19 (read|notify)
# CCCD 0x0009, 0x000B 2A1A... ; 0x000C-0x0011 custom: 0x000E (write|indicate) CCCD 0x000F,
# 0x0011 (read|write|write without response).
SERVICES = [(0x0001, 0x0005, 0x1800), (0x0006, 0x000B, 0x180F), (0x000C, 0x0011, 0xFFF0)]
CHARS = [(0x0002, 0x02, 0x0003, 0x2A00), (0x0007, 0x12, 0x0008, 0x2A19), (0x000A, 0x02, 0x000B, 0x2A1B),
         (0x000D, 0x28, 0x000E, 0xFFF1), (0x0010, 0x0E, 0x0011, 0xFFF2)]
NOTIFY_VALUE, NOTIFY_CCCD = 0x0008, 0x0009
INDICATE_VALUE, INDICATE_CCCD = 0x000E, 0x000F
READABLE = [0x0003, 0x0008, 0x000B, 0x0011]
WRITABLE = [0x000E, 0x0011]
# The Device Name a fixed-buffer firmware serves (the `padded-name` shape), before its NUL padding.
PADDED_NAME = b"Sensor-XY"
ADVERTISED_NAME = "SXY"
# The local device's own server (as a peer reads it): Device Name 0x0003, Service Changed 0x0007.
LOCAL_NAME, SERVICE_CHANGED = 0x0003, 0x0007


def _rbgt_rsp(entries):
    return bytes([att.READ_BY_GROUP_TYPE_RSP, 6]) + b"".join(struct.pack("<HHH", *e) for e in entries)


def _rbt_rsp(entries):
    return bytes([att.READ_BY_TYPE_RSP, 7]) + b"".join(struct.pack("<HBHH", *e) for e in entries)


def _addr(rng: random.Random) -> str:
    b = [rng.randrange(256) for _ in range(6)]
    b[0] |= 0xC0  # random static (Vol 6 Part B 1.3.2.1)
    return ":".join(f"{x:02X}" for x in b)


class Link:
    """One link's records, at explicit times (µs), with the handle filled in once the session
    knows which handles are free. `local_central`: the local device is the central."""

    def __init__(self, rng: random.Random, t0: int, local_central: bool, peer: str, index: int):
        self.rng, self.t, self.local_central, self.peer = rng, t0, local_central, peer
        self.index = index
        self.records: list[tuple[int, object, bool, str]] = []  # (time, h4 or fn(handle) -> h4, received, tag)
        self.last_nocp = t0
        self.interval_units = rng.choice((6, 12, 24, 36, 40))
        self.timeout_units = rng.choice((100, 200, 400, 500))
        self.interval = self.interval_units * 1250
        self.anchor = t0
        self.att_pdus = 0
        self.kind = "connection"
        self.end_reason: int | None = None
        self.shapes: list[str] = []
        self.open = True
        self.last_peer = t0       # the last connection event the peer answered
        self.bearer_closed = False  # an ATT timeout closed the fixed channel (no more requests)
        self.signal_id = 0
        self.local_indication_pending = False
        self.peer_indication_pending = False
        self.unconfirmed = 0
        self.mtu = 23             # the ATT MTU once exchanged (Vol 3 Part F 3.4.2.2)
        self.notifying = False    # the client enabled notifications: they may come mid-transaction
        self.in_flight: list[int] = []  # Number Of Completed Packets times of the host's ACL packets
        self.silent = False       # the peer stopped answering: the link is lost from last_peer on
        self.unacknowledged = 0   # the host's ACL packets no Number Of Completed Packets ever counted
        self.bredr = False        # a BR/EDR ACL link carrying ATT on PSM 0x001F (make_bredr_link)
        self.supervision_us = self.timeout_units * 10 * MS  # the (link) supervision timeout in force
        # Enhanced ATT bearers (open_eatt): our Source CIDs (the timeline's bearer names), the
        # peer's; a K-frame is addressed to the receiver's CID (Vol 3 Part A 3.4.3).
        self.eatt_local: list[int] = []
        self.eatt_peer: list[int] = []
        self.eatt_closed: set[int] = set()

    # --- records -----------------------------------------------------------------------------
    def add(self, t: int, h4, received: bool, tag: str = "") -> None:
        self.records.append((int(t), h4, received, tag))

    def cmd(self, t: int, fn) -> None:
        self.add(t, fn, False)

    def evt(self, t: int, fn) -> None:
        self.add(t, fn, True)

    def event_after(self, t: int) -> int:
        k = max(0, -(-(t - self.anchor) // self.interval))
        return self.anchor + k * self.interval

    def jitter(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def l2(self, cid: int, payload: bytes, from_local: bool, acknowledged: bool = True, att_pdu: bool | None = None) -> int:
        """One L2CAP frame at the current time, in ACL packets of at most 27 bytes from the peer
        (its LL data length) and 251 from the host (the LE buffer size). Returns the time of the
        last fragment; the local controller's Number Of Completed Packets follows at the next
        connection event, unless the peer no longer acknowledges (`acknowledged` False: the
        packets stay in the controller's buffers until the link is lost, Vol 4 Part E 4.1.1)."""
        frame = l2cap.frame(cid, payload)
        size = 251 if from_local else 27
        t = self.t
        frags = [frame[i:i + size] for i in range(0, len(frame), size)]
        if from_local:
            # The controller's 8 LE ACL buffers (LE Read Buffer Size): with all in flight the host
            # waits for Number Of Completed Packets (Vol 4 Part E 4.1.1).
            self.in_flight = [x for x in self.in_flight if x > t]
            while len(self.in_flight) + len(frags) > 8:
                t = min(self.in_flight) + self.jitter(20, 200)
                self.in_flight = [x for x in self.in_flight if x > t]
        for i, f in enumerate(frags):
            first = hci.PB_FIRST_NON_FLUSHABLE if from_local and not self.bredr else hci.PB_FIRST_FLUSHABLE
            pb = first if i == 0 else hci.PB_CONTINUING
            is_att = cid == l2cap.CID_ATT if att_pdu is None else att_pdu
            tag = "att" if is_att and i + 1 == len(frags) else ""
            self.add(t, (lambda f=f, pb=pb: lambda h: hci.acl(h, pb, f))(), not from_local, tag)
            if i + 1 < len(frags):
                t += self.jitter(650, 750)
        if from_local and not acknowledged:
            self.unacknowledged += len(frags)
        elif from_local:
            n = len(frags)
            done = self.event_after(t + 200) + self.jitter(300, 900)
            self.evt(done, lambda h, n=n: hci.number_of_completed_packets([(h, n)]))
            self.last_nocp = max(self.last_nocp, done)
            self.in_flight += [done] * n
        else:
            self.last_peer = max(self.last_peer, self.event_after(t - 600))
        self.t = t
        return t

    def att(self, pdu: bytes, from_local: bool, acknowledged: bool = True) -> int:
        """One ATT PDU on the link's main bearer: the fixed channel on LE, the PSM 0x001F channel
        on BR/EDR (basic frames, addressed to the receiver's CID: ours 0x0040, the peer's 0x0041)."""
        self.att_pdus += 1
        if self.bredr:
            return self.l2(0x0041 if from_local else 0x0040, pdu, from_local, acknowledged, att_pdu=True)
        return self.l2(l2cap.CID_ATT, pdu, from_local, acknowledged)

    def wait(self, lo: int, hi: int) -> None:
        self.t += self.jitter(lo, hi)

    def to_event(self, events: int) -> None:
        """On to `events` connection events later (a peer's answer), plus the controller's delay."""
        self.t = self.event_after(self.t + 300) + (events - 1) * self.interval + self.jitter(250, 450)

    # --- the client's requests -----------------------------------------------------------------
    @property
    def local_is_client(self) -> bool:
        """Who asks on this link's main exchange: the central is the GATT client."""
        return self.local_central

    def request(self, pdu: bytes, answer: bytes | None) -> bool:
        """The client's request and the server's answer 1-3 events later (None: never answered).
        Returns False when the request could not be sent (the bearer is closed)."""
        if self.bearer_closed:
            return False
        self.att(pdu, self.local_is_client)
        if answer is None:
            # One request at a time per bearer (Vol 3 Part F 3.3.2): none may follow this one.
            self.bearer_closed = True
            return True
        if self.notifying and self.rng.random() < 0.25:
            # A notification from the server while the client's request is outstanding
            # (notifications are not transactions, Vol 3 Part F 3.3.2).
            self.to_event(1)
            self.att(att.notification(NOTIFY_VALUE, bytes([self.rng.randrange(101)])), not self.local_is_client)
            self.shapes.append("notification mid-transaction")
        self.to_event(self.rng.choice((1, 1, 2, 3)))
        self.att(answer, not self.local_is_client)
        self.wait(150, 2500)
        return True

    def exchange_mtu(self) -> None:
        client, server = self.rng.choice((247, 517, 185)), self.rng.choice((23, 65, 247))
        self.request(att.exchange_mtu_req(client), att.exchange_mtu_rsp(server))
        self.mtu = max(23, min(client, server))

    def value(self, longest: int) -> bytes:
        """A value that fits one PDU at this MTU (at most `longest`, from 1 byte); longer than one
        27-byte LL packet once the MTU allows."""
        n = self.rng.randint(1, max(1, min(longest, self.mtu - 3)))
        return bytes(self.rng.randrange(256) for _ in range(n))

    def write_command_burst(self) -> None:
        """Write Commands back to back, more than the controller's 8 buffers hold: the host waits
        for Number Of Completed Packets."""
        for _ in range(self.rng.randint(5, 16)):
            self.att(att.write_cmd(0x0011, self.value(200)), self.local_is_client)
            self.wait(30, 400)
        self.shapes.append("write command burst")
        self.wait(self.interval, 3 * self.interval)

    def discovery(self, fail_at: int | None = None) -> bool:
        """Services, characteristics, one descriptor. With `fail_at`, the fail_at-th request is
        left outstanding and False returned."""
        steps = [
            (att.read_by_group_type_req(0x0001, 0xFFFF), _rbgt_rsp(SERVICES)),
            (att.read_by_group_type_req(0x0012, 0xFFFF), att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, 0x0012, att.ATTRIBUTE_NOT_FOUND)),
            (att.read_by_type_req(0x0001, 0xFFFF, att.CHARACTERISTIC), _rbt_rsp(CHARS)),
            (att.read_by_type_req(0x0011, 0xFFFF, att.CHARACTERISTIC), att.error_rsp(att.READ_BY_TYPE_REQ, 0x0011, att.ATTRIBUTE_NOT_FOUND)),
            (att.find_information_req(0x0009, 0x0009), bytes([att.FIND_INFORMATION_RSP, 1]) + struct.pack("<HH", 0x0009, 0x2902)),
            (att.find_information_req(0x000F, 0x000F), bytes([att.FIND_INFORMATION_RSP, 1]) + struct.pack("<HH", 0x000F, 0x2902)),
        ]
        for i, (req, rsp) in enumerate(steps):
            if fail_at is not None and i == fail_at:
                self.request(req, None)
                return False
            self.request(req, rsp)
        return True

    def reads_and_writes(self) -> None:
        for _ in range(self.rng.randint(1, 6)):
            if self.rng.random() < 0.5:
                h = self.rng.choice(READABLE)
                if self.rng.random() < 0.15:
                    code = self.rng.choice((att.READ_NOT_PERMITTED, att.INSUFFICIENT_AUTHENTICATION, att.INSUFFICIENT_ENCRYPTION))
                    self.request(att.read_req(h), att.error_rsp(att.READ_REQ, h, code))
                else:
                    self.request(att.read_req(h), att.read_rsp(self.value(120)))
            elif self.rng.random() < 0.6:
                h = self.rng.choice(WRITABLE)
                value = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 12)))
                ok = self.rng.random() < 0.85
                self.request(att.write_req(h, value), att.write_rsp() if ok else att.error_rsp(att.WRITE_REQ, h, att.WRITE_NOT_PERMITTED))
            else:
                for _ in range(self.rng.randint(1, 3)):
                    self.att(att.write_cmd(0x0011, bytes([self.rng.randrange(256)])), self.local_is_client)
                    self.wait(100, 900)
                self.wait(self.interval, 3 * self.interval)

    def subscribe(self, cccd: int, value: bytes) -> None:
        self.request(att.write_req(cccd, value), att.write_rsp())

    def notifications(self, count: int) -> None:
        """The server's notification stream, one per 1-2 connection events."""
        self.subscribe(NOTIFY_CCCD, b"\x01\x00")
        self.notifying = True
        for _ in range(count):
            self.to_event(self.rng.choice((1, 2)))
            self.att(att.notification(NOTIFY_VALUE, bytes([self.rng.randrange(101)])), not self.local_is_client)
        self.wait(200, 3000)

    def notifications_into_silence(self, acknowledged: int, unacknowledged: int) -> None:
        """The local server's notification stream (the local device is the peripheral, the peer
        only listens), then the peer goes silent: its link layer acknowledges `acknowledged`
        notifications (a Number Of Completed Packets each, Vol 4 Part E 7.7.19), and the
        `unacknowledged` ones sent after it are never completed. The peer's last sign of life is
        the connection event that acknowledged the last completed notification."""
        assert not self.local_is_client and unacknowledged <= 8
        self.subscribe(NOTIFY_CCCD, b"\x01\x00")
        self.notifying = True
        for _ in range(acknowledged):
            self.to_event(self.rng.choice((1, 2)))
            self.att(att.notification(NOTIFY_VALUE, bytes([self.rng.randrange(101)])), True)
            self.last_peer = max(self.last_peer, self.event_after(self.t + 200))
        self.silent = True
        for _ in range(unacknowledged):
            self.to_event(self.rng.choice((1, 2)))
            self.att(att.notification(NOTIFY_VALUE, bytes([self.rng.randrange(101)])), True, acknowledged=False)
        self.shapes.append(f"peer silent mid-notification stream ({unacknowledged} unacknowledged)")

    def indications(self, count: int, confirm_last: bool) -> None:
        """The server's indications, each confirmed by the client (the last one maybe never:
        a server sends no further indication until then, Vol 3 Part F 3.4.7.2)."""
        self.subscribe(INDICATE_CCCD, b"\x02\x00")
        for i in range(count):
            self.to_event(self.rng.choice((1, 2, 4)))
            self.att(att.indication(INDICATE_VALUE, bytes([i & 0xFF, self.rng.randrange(256)])), not self.local_is_client)
            if i == count - 1 and not confirm_last:
                self.unconfirmed += 1
                self.shapes.append("unconfirmed indication (" + ("local client" if self.local_is_client else "remote client") + ")")
                break
            self.wait(200, 1500)
            self.att(att.confirmation(), self.local_is_client)
        self.wait(200, 3000)

    def other_side_reads_local_server(self) -> None:
        """On a link where the local device is central, the peer as client reads the local
        server; the local server may indicate Service Changed, which the peer may never confirm."""
        self.to_event(1)
        self.att(att.read_req(LOCAL_NAME), not self.local_central)
        self.wait(300, 1500)
        self.att(att.read_rsp(b"Phone"), self.local_central)
        self.wait(500, 4000)
        if self.rng.random() < 0.5:
            self.att(att.indication(SERVICE_CHANGED, struct.pack("<HH", 0x0001, 0xFFFF)), self.local_central)
            if self.rng.random() < 0.5:
                self.to_event(self.rng.choice((1, 2)))
                self.att(att.confirmation(), not self.local_central)
            else:
                self.shapes.append("server's own indication never confirmed")
            self.wait(500, 3000)

    # --- link-layer procedures seen through HCI --------------------------------------------------
    def parameter_update(self) -> None:
        accepted = self.rng.random() < 0.6
        interval = self.rng.choice((6, 12, 24, 40))
        timeout = self.rng.choice((200, 400, 600))
        self.signal_id = self.signal_id % 255 + 1
        sid = self.signal_id
        if self.rng.random() < 0.7:
            # The peripheral asks over L2CAP (Vol 3 Part A 4.20); the central answers.
            req = l2cap.connection_parameter_update_request(sid, interval, interval, 0, timeout)
            self.to_event(1)
            self.l2(l2cap.CID_LE_SIGNALING, req, not self.local_central)
            self.wait(300, 1500)
            self.l2(l2cap.CID_LE_SIGNALING, l2cap.connection_parameter_update_response(sid, 0 if accepted else 1), self.local_central)
            self.shapes.append("parameter update " + ("accepted" if accepted else "rejected"))
            if not accepted:
                self.wait(500, 3000)
                return
            self.wait(100, 400)
            if self.local_central:
                self.cmd(self.t, lambda h, i=interval, to=timeout: hci.le_connection_update(h, i, i, 0, to))
                self.t += self.jitter(200, 900)
                self.evt(self.t, hci.command_status(hci.LE_CONNECTION_UPDATE))
        else:
            # The central's host updates by itself; the controller may refuse (0x3B).
            if not self.local_central:
                return
            self.cmd(self.t, lambda h, i=interval, to=timeout: hci.le_connection_update(h, i, i, 0, to))
            self.t += self.jitter(200, 900)
            self.evt(self.t, hci.command_status(hci.LE_CONNECTION_UPDATE))
            self.shapes.append("connection update " + ("accepted" if accepted else "refused 0x3B"))
        instant = self.event_after(self.t + 300) + 6 * self.interval
        if accepted:
            self.evt(instant + self.jitter(300, 900), lambda h, i=interval, to=timeout: hci.le_connection_update_complete(h, i, 0, to))
            self.interval_units, self.timeout_units = interval, timeout
            self.supervision_us = timeout * 10 * MS
            self.anchor, self.interval = instant, interval * 1250
        else:
            self.evt(instant + self.jitter(300, 900),
                     lambda h, i=interval, to=timeout: hci.le_connection_update_complete(h, i, 0, to, status=0x3B))
        self.t = instant + 1000
        self.last_peer = max(self.last_peer, instant)
        self.wait(500, 3000)

    def phy_update(self) -> None:
        """LE Set PHY (Vol 4 Part E 7.8.49) -> Command Status -> LE PHY Update Complete (7.7.65.12)."""
        accepted = self.rng.random() < 0.7
        self.cmd(self.t, lambda h: hci.command(LE_SET_PHY, struct.pack("<HBBBH", h, 0, 0x02, 0x02, 0)))
        self.t += self.jitter(200, 900)
        self.evt(self.t, hci.command_status(LE_SET_PHY))
        done = self.event_after(self.t + 300) + self.rng.choice((2, 3, 6)) * self.interval + self.jitter(300, 900)
        status, phy = (0, 2) if accepted else (0x1A, 1)
        self.evt(done, lambda h, s=status, p=phy: hci.le_meta(LE_PHY_UPDATE_COMPLETE, struct.pack("<BHBB", s, h, p, p)))
        self.t = done
        self.last_peer = max(self.last_peer, done - 600)
        self.shapes.append("PHY update " + ("accepted" if accepted else "rejected 0x1A"))
        self.wait(300, 2000)

    def encrypt(self, fail: bool, interrupted: bool = False) -> None:
        """Encryption: as central LE Start Encryption -> Encryption Change; as peripheral LE Long
        Term Key Request -> Reply -> Encryption Change. A failure is status 0x06 PIN or Key Missing;
        `interrupted`: the link ends while encrypting (no Encryption Change comes)."""
        if self.local_central:
            self.cmd(self.t, lambda h: hci.le_start_encryption(h, bytes(8), 0, bytes(range(16))))
            self.t += self.jitter(200, 900)
            self.evt(self.t, hci.command_status(hci.LE_START_ENCRYPTION))
        else:
            self.to_event(1)
            self.evt(self.t, lambda h: hci.le_meta(LE_LONG_TERM_KEY_REQUEST, struct.pack("<H", h) + bytes(10)))
            self.t += self.jitter(300, 900)
            self.cmd(self.t, lambda h: hci.command(LE_LTK_REQUEST_REPLY, struct.pack("<H", h) + bytes(range(16))))
            self.t += self.jitter(200, 600)
            self.evt(self.t, lambda h: hci.command_complete(LE_LTK_REQUEST_REPLY, struct.pack("<BH", 0, h)))
        if interrupted:
            self.shapes.append("ends while encrypting")
            self.wait(300, 2000)
            return
        done = self.event_after(self.t + 300) + 3 * self.interval + self.jitter(300, 900)
        self.evt(done, lambda h, s=0x06 if fail else 0: hci.encryption_change(h, 0 if s else 1, s))
        self.t = done
        self.last_peer = max(self.last_peer, done - 600)
        self.shapes.append("encryption failed 0x06" if fail else "encrypted")
        self.wait(300, 2000)

    def pair(self, fail: bool, interrupted: bool = False) -> None:
        """SMP Pairing Request/Response, Confirm and Random each way (legacy Just Works); a
        failure is the responder's Pairing Failed (Confirm Value Failed) after the initiator's Random."""
        initiator = self.local_central
        def smp_pdu(payload: bytes, from_initiator: bool) -> None:
            self.l2(l2cap.CID_SMP, payload, from_initiator == initiator)
        smp_pdu(smp.pairing_request(smp.NO_INPUT_NO_OUTPUT, 0, smp.BONDING, 16, 1, 1), True)
        self.to_event(1)
        smp_pdu(smp.pairing_response(smp.NO_INPUT_NO_OUTPUT, 0, smp.BONDING, 16, 1, 1), False)
        self.wait(500, 3000)
        if interrupted:
            self.shapes.append("ends while pairing")
            return
        smp_pdu(smp.pairing_confirm(bytes(self.rng.randrange(256) for _ in range(16))), True)
        self.to_event(1)
        smp_pdu(smp.pairing_confirm(bytes(self.rng.randrange(256) for _ in range(16))), False)
        self.wait(300, 1500)
        smp_pdu(smp.pairing_random(bytes(self.rng.randrange(256) for _ in range(16))), True)
        self.to_event(1)
        if fail:
            smp_pdu(smp.pairing_failed(smp.CONFIRM_VALUE_FAILED), False)
            self.shapes.append("pairing failed")
        else:
            smp_pdu(smp.pairing_random(bytes(self.rng.randrange(256) for _ in range(16))), False)
            self.shapes.append("paired")
        self.wait(500, 3000)

    def att_timeout(self) -> None:
        """A request the server never answers: 30 s later the client's transaction times out and
        no further request goes on this bearer (Vol 3 Part F 3.3.3)."""
        h = self.rng.choice(READABLE)
        self.request(att.read_req(h), None)
        self.bearer_closed = True
        self.shapes.append("ATT timeout (" + ("local client" if self.local_is_client else "remote client") + ")")
        self.t += ATT_TIMEOUT + self.jitter(100 * MS, 2000 * MS)
        self.last_peer = self.event_after(self.t) - self.interval

    # --- ATT procedures the random draw does not make (the `att-variety` shape) -----------------
    def peer_exchanges_mtu(self) -> None:
        """The peer, as client of the local server, starts the MTU exchange (Vol 3 Part F 3.4.2:
        either side may send it, once per direction); the local server answers."""
        self.to_event(1)
        self.att(att.exchange_mtu_req(self.rng.choice((65, 185, 247))), not self.local_is_client)
        self.wait(300, 1500)
        self.att(att.exchange_mtu_rsp(self.rng.choice((185, 517))), self.local_is_client)
        self.shapes.append("MTU exchange started by the peer")
        self.wait(300, 2000)

    def signed_write(self) -> None:
        """Signed Write Command (0xD2, Vol 3 Part F 3.4.5.4): handle, value, 12-byte signature
        (SignCounter + MAC); no answer."""
        sig = bytes(self.rng.randrange(256) for _ in range(12))
        self.att(bytes([0xD2]) + struct.pack("<H", 0x0011) + bytes([self.rng.randrange(256)]) + sig, self.local_is_client)
        self.shapes.append("signed write")
        self.wait(self.interval, 3 * self.interval)

    def read_multiple(self) -> None:
        """Read Multiple (0x0E -> 0x0F, 3.4.4.7) and Read Multiple Variable (0x20 -> 0x21,
        3.4.4.11: a 2-byte length before each value)."""
        a, b = self.rng.sample(READABLE, 2)
        va, vb = self.value(8), self.value(8)
        self.request(bytes([0x0E]) + struct.pack("<HH", a, b), bytes([0x0F]) + va + vb)
        self.request(bytes([0x20]) + struct.pack("<HH", a, b),
                     bytes([0x21]) + struct.pack("<H", len(va)) + va + struct.pack("<H", len(vb)) + vb)
        self.shapes.append("read multiple")

    def read_by_type_truncated(self) -> None:
        """Read By Type for a characteristic value (Vol 3 Part G 4.8.2): a value longer than the
        PDU holds is cut to MTU - 4 bytes (3.4.4.2); the client reads the rest with Read Blob."""
        n = self.mtu - 4
        value = bytes(self.rng.randrange(256) for _ in range(n + self.rng.randint(1, 20)))
        self.request(att.read_by_type_req(0x0001, 0xFFFF, 0x2A19),
                     bytes([att.READ_BY_TYPE_RSP, 2 + n]) + struct.pack("<H", 0x0008) + value[:n])
        self.request(bytes([att.READ_BLOB_REQ]) + struct.pack("<HH", 0x0008, n), bytes([att.READ_BLOB_RSP]) + value[n:])
        self.shapes.append("read by type truncated, then read blob")

    def error_then_retry(self) -> None:
        """A request refused (Unlikely Error), then the identical request answered: the n-th
        identical request gets the n-th recorded answer."""
        h = self.rng.choice(READABLE)
        for _ in range(self.rng.randint(1, 2)):
            self.request(att.read_req(h), att.error_rsp(att.READ_REQ, h, att.UNLIKELY_ERROR))
        self.request(att.read_req(h), att.read_rsp(self.value(20)))
        self.shapes.append("error then success on retry")

    def long_write(self) -> None:
        """Prepare Write (0x16 -> 0x17 echoed) twice, then Execute Write (0x18 -> 0x19)."""
        offset = 0
        for _ in range(2):
            part = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 18)))
            req = bytes([0x16]) + struct.pack("<HH", 0x0011, offset) + part
            self.request(req, bytes([0x17]) + req[1:])
            offset += len(part)
        self.request(bytes([0x18, 0x01]), bytes([0x19]))
        self.shapes.append("long write")

    def read_padded_name(self) -> None:
        """The GAP Device Name (0x2A00, Core v5.4 Vol 3 Part C 12.1) read from a device that
        serves it from a fixed-size buffer: the name, then NUL bytes to the buffer's end. It
        advertises a shortened name of its own meanwhile (AD type 0x08, CSS Part A 1.2)."""
        self.evt(self.t, hci.le_advertising_report(hci.ADV_IND, 1, self.peer, hci.ad_flags() + hci.ad_name(ADVERTISED_NAME, complete=False), -61))
        self.t += self.jitter(300, 900)
        self.request(att.read_req(LOCAL_NAME), att.read_rsp(PADDED_NAME + bytes(self.rng.randint(1, 8))))
        self.shapes.append("Device Name padded with NULs")

    def data_length_change(self) -> None:
        """LE Set Data Length (Vol 4 Part E 7.8.33) -> Command Complete -> LE Data Length Change
        (7.7.65.7), or the peer's own LL_LENGTH_REQ: the event alone."""
        if self.rng.random() < 0.5:
            self.cmd(self.t, lambda h: hci.le_set_data_length(h, 251, 2120))
            self.t += self.jitter(200, 900)
            self.evt(self.t, lambda h: hci.command_complete(hci.LE_SET_DATA_LENGTH, struct.pack("<BH", 0, h)))
        done = self.event_after(self.t + 300) + 2 * self.interval + self.jitter(300, 900)
        self.evt(done, lambda h: hci.le_data_length_change(h, 251, 2120, 251, 2120))
        self.t = done
        self.last_peer = max(self.last_peer, done - 600)
        self.shapes.append("data length update")
        self.wait(300, 2000)

    def key_refresh(self) -> None:
        """Encryption refresh on an encrypted link: LE Start Encryption (central) or the LTK
        request (peripheral) again, then Encryption Key Refresh Complete (0x30, Vol 4 Part E 7.7.39)."""
        if self.local_central:
            self.cmd(self.t, lambda h: hci.le_start_encryption(h, bytes(8), 0, bytes(range(16))))
            self.t += self.jitter(200, 900)
            self.evt(self.t, hci.command_status(hci.LE_START_ENCRYPTION))
        done = self.event_after(self.t + 300) + 3 * self.interval + self.jitter(300, 900)
        self.evt(done, lambda h: hci.event(0x30, struct.pack("<BH", 0, h)))
        self.t = done
        self.last_peer = max(self.last_peer, done - 600)
        self.shapes.append("encryption key refresh")
        self.wait(300, 2000)

    def peer_parameter_request(self) -> None:
        """The peripheral's LL Connection Parameters Request procedure (Vol 6 Part B 5.1.7): LE
        Remote Connection Parameter Request (7.7.65.6) -> the central host's Reply (7.8.31) ->
        LE Connection Update Complete at the instant. As peripheral: the local host asked by HCI
        LE Connection Update, and only the Complete shows."""
        interval = self.rng.choice((6, 12, 24, 40))
        timeout = self.rng.choice((200, 400, 600))
        if self.local_central:
            self.to_event(1)
            self.evt(self.t, lambda h, i=interval, to=timeout: hci.le_meta(0x06, struct.pack("<HHHHH", h, i, i, 0, to)))
            self.t += self.jitter(300, 900)
            self.cmd(self.t, lambda h, i=interval, to=timeout: hci.command(0x2020, struct.pack("<HHHHHHH", h, i, i, 0, to, 0, 0)))
            self.t += self.jitter(200, 600)
            self.evt(self.t, lambda h: hci.command_complete(0x2020, struct.pack("<BH", 0, h)))
        else:
            self.cmd(self.t, lambda h, i=interval, to=timeout: hci.le_connection_update(h, i, i, 0, to))
            self.t += self.jitter(200, 900)
            self.evt(self.t, hci.command_status(hci.LE_CONNECTION_UPDATE))
        instant = self.event_after(self.t + 300) + 6 * self.interval
        self.evt(instant + self.jitter(300, 900), lambda h, i=interval, to=timeout: hci.le_connection_update_complete(h, i, 0, to))
        self.interval_units, self.timeout_units = interval, timeout
        self.supervision_us = timeout * 10 * MS
        self.anchor, self.interval = instant, interval * 1250
        self.t = instant + 1000
        self.last_peer = max(self.last_peer, instant)
        self.shapes.append("LL connection parameters request")
        self.wait(500, 3000)

    # --- Enhanced ATT (Vol 3 Part G 5.4; L2CAP Vol 3 Part A 4.25, 4.26) -------------------------
    def open_eatt(self, count: int = 2) -> None:
        """The local central asks for `count` Enhanced ATT bearers: L2CAP Credit Based Connection
        Request (0x17) on the LE signalling channel for SPSM 0x0027 with our Source CIDs, and the
        peer's Response (0x18) with its own, result 0. Credits are plenty (at most 65535, 4.25)."""
        assert self.local_central and not self.eatt_local
        self.signal_id = self.signal_id % 255 + 1
        sid = self.signal_id
        self.eatt_local = [0x0040 + i for i in range(count)]
        self.eatt_peer = [0x0045 + i for i in range(count)]
        mtu = mps = 64
        self.l2(l2cap.CID_LE_SIGNALING, l2cap.signaling(0x17, sid, struct.pack("<HHHH", 0x0027, mtu, mps, 1000)
                                                        + b"".join(struct.pack("<H", c) for c in self.eatt_local)), True)
        self.to_event(1)
        self.l2(l2cap.CID_LE_SIGNALING, l2cap.signaling(0x18, sid, struct.pack("<HHHH", mtu, mps, 1000, 0)
                                                        + b"".join(struct.pack("<H", c) for c in self.eatt_peer)), False)
        self.wait(300, 2000)

    def eatt_att(self, bearer: int, pdu: bytes, from_local: bool) -> int:
        """One ATT PDU as one K-frame (SDU length, then the SDU: Vol 3 Part A 3.4.3) on EATT
        bearer `bearer` (an index), addressed to the receiver's CID."""
        self.att_pdus += 1
        cid = self.eatt_peer[bearer] if from_local else self.eatt_local[bearer]
        return self.l2(cid, struct.pack("<H", len(pdu)) + pdu, from_local, att_pdu=True)

    def short_request(self) -> tuple[bytes, bytes]:
        """A read or a write that fits an EATT bearer's 64-byte MTU, and its answer."""
        if self.rng.random() < 0.5:
            h = self.rng.choice(READABLE)
            return att.read_req(h), att.read_rsp(bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 40))))
        h = self.rng.choice(WRITABLE)
        value = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 12)))
        return att.write_req(h, value), att.write_rsp()

    def eatt_overlap(self) -> None:
        """Requests outstanding on two EATT bearers at once (ATT is sequential per bearer, Vol 3
        Part F 3.3.2): a request on one, a request on the other before the first is answered
        (sometimes a third on the fixed channel too), then the answers in either order."""
        if not self.eatt_local:
            self.open_eatt()
        for _ in range(self.rng.randint(1, 4)):
            open_bearers = [b for b in range(len(self.eatt_local)) if b not in self.eatt_closed]
            asked: list[tuple[int | None, bytes]] = []
            for b in open_bearers:
                req, rsp = self.short_request()
                self.eatt_att(b, req, True)
                asked.append((b, rsp))
                self.wait(200, 1500)
            if not self.bearer_closed and self.rng.random() < 0.4:
                req, rsp = self.short_request()
                self.att(req, True)
                asked.append((None, rsp))
                self.shapes.append("requests on the fixed channel and EATT bearers at once")
            self.rng.shuffle(asked)
            for b, rsp in asked:
                self.to_event(self.rng.choice((1, 1, 2)))
                if b is None:
                    self.att(rsp, False)
                else:
                    self.eatt_att(b, rsp, False)
            self.wait(150, 2500)
        if "EATT requests overlapping on two bearers" not in self.shapes:
            self.shapes.append("EATT requests overlapping on two bearers")

    def eatt_timeout(self) -> None:
        """A request on one EATT bearer the peer never answers: 30 s later that bearer's
        transaction times out and no more ATT PDUs go on it (Vol 3 Part F 3.3.3: "on this ATT
        bearer"); the other bearer and the fixed channel go on, before and after the timeout.
        The host then closes the dead channel (L2CAP Disconnection Request/Response, Vol 3
        Part A 4.6, 4.7)."""
        if not self.eatt_local:
            self.open_eatt()
        dead = len(self.eatt_local) - 1
        h = self.rng.choice(READABLE)
        self.eatt_att(dead, att.read_req(h), True)
        self.eatt_closed.add(dead)
        sent_at = self.t
        self.shapes.append("ATT timeout on an EATT bearer")
        # Transactions on the live bearer (and the fixed channel) for 30 s and a little more.
        while self.t < sent_at + ATT_TIMEOUT + self.jitter(2000 * MS, 6000 * MS):
            req, rsp = self.short_request()
            if self.bearer_closed or self.rng.random() < 0.7:
                self.eatt_att(0, req, True)
                self.to_event(self.rng.choice((1, 2)))
                self.eatt_att(0, rsp, False)
            else:
                self.request(req, rsp)
            self.wait(1500 * MS, 6000 * MS)
        self.signal_id = self.signal_id % 255 + 1
        dcid, scid = self.eatt_peer[dead], self.eatt_local[dead]
        self.l2(l2cap.CID_LE_SIGNALING, l2cap.signaling(0x06, self.signal_id, struct.pack("<HH", dcid, scid)), True)
        self.to_event(1)
        self.l2(l2cap.CID_LE_SIGNALING, l2cap.signaling(0x07, self.signal_id, struct.pack("<HH", dcid, scid)), False)
        self.wait(300, 2000)
        req, rsp = self.short_request()
        self.eatt_att(0, req, True)
        self.to_event(1)
        self.eatt_att(0, rsp, False)
        self.wait(300, 2000)

    # --- endings -------------------------------------------------------------------------------
    def end_record(self, t: int, reason: int) -> int:
        """Disconnection Complete (Vol 4 Part E 7.7.5), after the link's last completed packets."""
        t = max(t, self.last_nocp + self.jitter(100, 400))
        self.add(t, lambda h, r=reason: hci.disconnection_complete(h, r), True, "end")
        self.t, self.end_reason, self.open = t, reason, False
        return t

    def local_disconnect(self, finished: bool = True, reason: int = 0x13, reported: int = 0x16) -> None:
        """HCI Disconnect (Vol 4 Part E 7.1.6) with `reason`; the controller reports `reported`,
        0x16 as the spec has it, or the reason sent where a controller echoes it (Bumble's)."""
        self.wait(200, 3000)
        self.cmd(self.t, lambda h, r=reason: hci.disconnect(h, r))
        self.t += self.jitter(200, 900)
        self.evt(self.t, hci.command_status(hci.DISCONNECT))
        if not finished:
            # The peer never acknowledges LL_TERMINATE_IND: the controller waits up to a
            # supervision timeout before it reports (Vol 6 Part B 5.1.3.1). The capture ends in
            # that wait; other devices' advertising goes on being logged until then.
            self.shapes.append("capture ends while the local Disconnect is under way")
            other = _addr(self.rng)
            wait = int(self.supervision_us * self.rng.uniform(0.2, 0.9))
            t = self.t
            while t + 100 * MS < self.t + wait:
                t += 100 * MS + self.jitter(0, 10 * MS)
                self.evt(t, hci.le_advertising_report(hci.ADV_IND, 1, other, hci.ad_flags(), -70))
            self.t = t
            self.open = False
            return
        done = self.event_after(self.t + 300) + self.interval * self.rng.choice((1, 1, 2)) + self.jitter(300, 900)
        self.end_record(done, reported)

    def peer_disconnect(self, reason: int = 0x13) -> None:
        e = self.event_after(self.t + 2000)
        self.end_record(e + self.jitter(600, 1200), reason)

    def link_loss(self) -> None:
        """The peer goes silent: Disconnection Complete 0x08 one supervision timeout after the
        last connection event it answered (Vol 6 Part B 4.5.2)."""
        last = self.last_peer if self.silent else max(self.last_peer, self.event_after(self.t) - self.interval)
        self.end_record(self.event_after(last + self.supervision_us) + self.jitter(300, 900), 0x08)

    def failed_to_establish(self) -> None:
        """0x3E after 6 connection events the peer never answered (Vol 6 Part B 4.5.2)."""
        done = self.anchor + 6 * self.interval + self.jitter(300, 900)
        self.end_record(max(done, self.t + 300), 0x3E)
        self.shapes.append("0x3E after LE Connection Complete")


def _connect(link: Link, status: int) -> None:
    """LE Create Connection (central) and LE Connection Complete; as peripheral only the latter."""
    rng = link.rng
    role = 0 if link.local_central else 1
    if link.local_central:
        link.cmd(link.t, hci.le_create_connection(1, link.peer, 1, link.interval_units, link.interval_units, 0, link.timeout_units))
        link.t += link.jitter(200, 900)
        link.evt(link.t, hci.command_status(hci.LE_CREATE_CONNECTION))
        link.t += link.jitter(3 * MS, 60 * MS)
        if status == 0x02:
            link.cmd(link.t, hci.le_create_connection_cancel())
            link.t += link.jitter(200, 900)
            link.evt(link.t, hci.command_complete(hci.LE_CREATE_CONNECTION_CANCEL, b"\x00"))
            link.t += link.jitter(100, 600)
    h4 = (lambda h, s=status, r=role: hci.le_connection_complete(s, h if s == 0 else 0, r, 1, link.peer if s == 0 else "00:00:00:00:00:00" if s == 0x02 else link.peer,
                                                              link.interval_units, 0, link.timeout_units))
    link.evt(link.t, h4)
    link.anchor = link.t + 1250 + rng.randint(0, link.interval)
    link.last_peer = link.anchor
    link.t = link.anchor + link.jitter(2 * MS, 6 * MS)


def make_bredr_link(rng: random.Random, t0: int, index: int, force: dict | None = None) -> Link:
    """GATT over BR/EDR (Vol 3 Part G 2.1, 5.1): the local host pages the peer (Create Connection,
    Vol 4 Part E 7.1.5 -> Connection Complete 7.7.3), maybe sets the link supervision timeout
    (Write Link Supervision Timeout 7.3.42, slots of 0.625 ms; 20 s by default), opens the ATT
    channel (L2CAP Connection Request/Response for PSM 0x001F on CID 0x0001, then Configuration
    with the MTU option: basic mode, Vol 3 Part A 4.2-4.5, 5.1), then discovery, reads, writes,
    notifications or indications over it. No Exchange MTU: the L2CAP MTU is the ATT_MTU on BR/EDR
    (Vol 3 Part G 4.3.1), at least 48 (Part G 5.1). The poll interval (T_poll, 40 slots = 25 ms,
    Vol 2 Part C 4.1.8) paces the link as a connection interval paces an LE one."""
    force = force or {}
    b = [rng.randrange(256) for _ in range(6)]
    b[0] &= 0xFC  # a public BD_ADDR (its IEEE OUI bits clear of multicast/local)
    link = Link(rng, t0, True, ":".join(f"{x:02X}" for x in b), index)
    link.bredr = True
    link.interval, link.interval_units = 25 * MS, 20
    link.supervision_us = 20_000 * MS
    link.shapes.append("BR/EDR link with ATT on PSM 0x001F")
    link.cmd(link.t, hci.command(0x0405, hci.addr_bytes(link.peer) + struct.pack("<HBBHB", 0xCC18, 1, 0, 0, 1)))
    link.t += link.jitter(200, 900)
    link.evt(link.t, hci.command_status(0x0405))
    link.t += link.jitter(20 * MS, 300 * MS)
    link.evt(link.t, lambda h, a=link.peer: hci.event(0x03, struct.pack("<BH6sBB", 0, h, hci.addr_bytes(a), 1, 0)))
    link.anchor = link.t + rng.randint(0, link.interval)
    link.last_peer = link.anchor
    link.t = link.anchor + link.jitter(2 * MS, 6 * MS)
    if rng.random() < 0.6:
        slots = rng.choice((0x0C80, 0x1F40, 0x3E80))  # 2 s, 5 s, 10 s
        link.cmd(link.t, lambda h, sl=slots: hci.command(0x0C37, struct.pack("<HH", h, sl)))
        link.t += link.jitter(200, 900)
        link.evt(link.t, lambda h: hci.command_complete(0x0C37, struct.pack("<BH", 0, h)))
        link.supervision_us = slots * 625
        link.shapes.append(f"link supervision timeout {slots * 625 // MS} ms")
        link.wait(300, 2000)
    mtu = rng.choice((48, 185, 672))
    link.mtu = mtu
    sig = lambda code, ident, data: l2cap.signaling(code, ident, data)
    link.l2(0x0001, sig(0x02, 1, struct.pack("<HH", 0x001F, 0x0040)), True)
    link.to_event(1)
    link.l2(0x0001, sig(0x03, 1, struct.pack("<HHHH", 0x0041, 0x0040, 0, 0)), False)
    link.wait(300, 1500)
    link.l2(0x0001, sig(0x04, 2, struct.pack("<HHBBH", 0x0041, 0, 0x01, 2, mtu)), True)
    link.to_event(1)
    link.l2(0x0001, sig(0x05, 2, struct.pack("<HHH", 0x0040, 0, 0)), False)
    link.l2(0x0001, sig(0x04, 3, struct.pack("<HHBBH", 0x0040, 0, 0x01, 2, mtu)), False)
    link.wait(300, 1500)
    link.l2(0x0001, sig(0x05, 3, struct.pack("<HHH", 0x0041, 0, 0)), True)
    link.wait(500, 3000)

    phases = ["discovery"] if rng.random() < 0.8 else []
    optional = ["rw", "notify", "indicate", "rw", "burst", "server"]
    rng.shuffle(optional)
    phases += optional[:rng.randint(1, 4)]
    if rng.random() < 0.15:
        phases.append("timeout")
    ending = rng.choices(["peer", "loss", "local", "still"], weights=(3, 3, 3, 1))[0]
    phases = force.get("bredr_phases", phases)
    ending = force.get("bredr_ending", ending)
    for phase in phases:
        if phase == "discovery":
            link.discovery()
        elif phase == "rw":
            link.reads_and_writes()
        elif phase == "burst":
            link.write_command_burst()
        elif phase == "notify":
            link.notifications(rng.randint(1, 12))
        elif phase == "indicate":
            link.indications(rng.randint(1, 4), confirm_last=rng.random() < 0.6)
            if link.unconfirmed:
                break
        elif phase == "server":
            link.other_side_reads_local_server()
        elif phase == "timeout":
            link.att_timeout()
            break
    end(link, ending)
    return link


def end(link: Link, ending: str) -> None:
    """How a link ends: 'peer' (0x13 or 0x15 from the peer), 'loss' (0x08), 'local' (the local
    Disconnect, 0x16), 'auth' (the local Disconnect 0x05 after a failed encryption), 'auth-echoed'
    (the same, reported back with 0x05 as a controller that echoes the reason does), 'local-echoed'
    (the local Disconnect 0x13, reported back with 0x13), else the capture ends with the link up."""
    if ending == "peer":
        link.peer_disconnect(link.rng.choice((0x13, 0x13, 0x15)))
    elif ending == "loss":
        link.link_loss()
    elif ending == "local":
        link.local_disconnect()
    elif ending == "auth":
        link.local_disconnect(reason=0x05)
    elif ending == "auth-echoed":
        link.local_disconnect(reason=0x05, reported=0x05)
    elif ending == "local-echoed":
        link.local_disconnect(reason=0x13, reported=0x13)
    else:
        link.shapes.append("still connected when the capture ends")
        link.open = False


def make_link(rng: random.Random, t0: int, local_central: bool, index: int, mid_capture: bool, tail: str | None,
              force: dict | None = None) -> Link:
    """One link from LE Create Connection (or its first packet) to its end. `tail`: the capture
    ends with this link: 'mid-transaction' or 'disconnecting'. `force` fixes what is otherwise
    drawn: 'attempt' (a number in [0, 1) as the draw that picks cancel / error / 0x3E / a link),
    'phases', 'ending', 'fail_in'."""
    force = force or {}
    link = Link(rng, t0, local_central, force["peer"] if "peer" in force else _addr(rng), index)
    if not local_central:
        link.shapes.append("local peripheral")
    if mid_capture:
        link.kind = "mid-capture connection"
        link.shapes.append("begins before the capture")
        link.anchor = t0 - rng.randint(0, link.interval)
        link.t = t0
    elif not local_central and force.get("directed_timeout") and index == 1:
        # A failed peripheral-role attempt: high duty cycle directed advertising that no central
        # answered; the controller ends it after 1.28 s with LE Connection Complete status 0x3C
        # (Advertising Timeout) and role 0x01 (Core v5.4 Vol 4 Part E 7.8.9, 7.7.65.1).
        link.cmd(link.t, hci.le_set_advertising_parameters(0x0020, 0x01, 0, 0, link.peer))
        link.t += link.jitter(200, 900)
        link.evt(link.t, hci.command_complete(hci.LE_SET_ADVERTISING_PARAMETERS, b"\x00"))
        link.t += link.jitter(200, 900)
        link.cmd(link.t, hci.le_set_advertising_enable(True))
        link.t += link.jitter(200, 900)
        link.evt(link.t, hci.command_complete(hci.LE_SET_ADVERTISING_ENABLE, b"\x00"))
        link.t += 1_280 * MS
        _connect(link, 0x3C)
        link.kind, link.open = "failed attempt", False
        link.shapes.append("failed attempt 0x3C (directed advertising timed out)")
        return link
    else:
        r = rng.random()
        r = force.get("attempt", r)
        if local_central and r < 0.08:
            _connect(link, 0x02)
            link.kind, link.open = "cancelled attempt", False
            link.shapes.append("cancelled attempt")
            return link
        if local_central and r < 0.13:
            status = rng.choice((0x3E, 0x3C, 0x0C))
            _connect(link, status)
            link.kind, link.open = "failed attempt", False
            link.shapes.append(f"failed attempt 0x{status:02X}")
            return link
        _connect(link, 0)
        if r < 0.22:
            # 0x3E with the client's first request(s) outstanding, nothing answered (issue 11 class 1).
            if link.local_is_client:
                link.att(att.exchange_mtu_req(rng.choice((247, 517))), True)
            link.failed_to_establish()
            return link

    # The phases, in a plausible order; one of them may be where the link fails.
    phases = []
    if not mid_capture:
        phases.append("mtu")
        if rng.random() < 0.8:
            phases.append("discovery")
    optional = ["rw", "notify", "indicate", "params", "phy", "encrypt", "pair", "server", "rw", "burst", "rw"]
    rng.shuffle(optional)
    phases += optional[:rng.randint(1, 5)]
    if mid_capture:
        # The capture's first sight of the link is ATT traffic on its handle (a handle seen only
        # in HCI events before its Disconnection Complete is not a connection the timeline makes).
        phases.insert(0, "rw")
    if rng.random() < 0.15:
        phases.append("timeout")
    endings = ["peer", "loss", "local", "still"]
    ending = rng.choices(endings, weights=(3, 3, 3, 1))[0]
    fail_in = rng.randrange(len(phases)) if rng.random() < 0.35 else None
    if local_central and not mid_capture and "phases" not in force:
        # Enhanced ATT on about one link in ten where the local device is central: bearers with
        # requests outstanding at once, or the timeout on one bearer. Drawn from a generator of
        # its own (seeded from this link's start, so deterministic), so that the links without it
        # stay byte for byte what they were.
        draw = random.Random(t0 * 8 + index)
        if draw.random() < 0.1:
            k = phases.index("discovery") + 1 if "discovery" in phases else 1
            phases.insert(k, "eatt-timeout" if draw.random() < 0.3 else "eatt")
            if fail_in is not None and fail_in >= k:
                fail_in += 1
    phases = force.get("phases", phases)
    ending = force.get("ending", ending)
    fail_in = force.get("fail_in", fail_in)

    for i, phase in enumerate(phases):
        failing = i == fail_in
        if phase == "mtu":
            if failing:
                link.request(att.exchange_mtu_req(247), None)
                link.shapes.append("fails during MTU exchange")
                break
            link.exchange_mtu()
        elif phase == "discovery":
            if not link.discovery(rng.randrange(6) if failing else None):
                link.shapes.append("fails during discovery")
                break
        elif phase == "rw":
            link.reads_and_writes()
        elif phase == "burst":
            link.write_command_burst()
        elif phase == "notify":
            link.notifications(rng.randint(1, 12))
            if failing:
                link.shapes.append("fails mid-notification stream")
                break
        elif phase == "silent-notify":
            # Only in the shapes that force it (never drawn: the seeds' output stays as it was).
            link.notifications_into_silence(rng.randint(3, 12), rng.randint(2, 6))
            break
        elif phase == "indicate":
            link.indications(rng.randint(1, 4), confirm_last=rng.random() < 0.6)
            if link.unconfirmed:
                break  # nothing more from that server; the link ends next
        elif phase == "params":
            link.parameter_update()
        elif phase == "phy":
            link.phy_update()
        elif phase == "encrypt":
            fail = failing or rng.random() < 0.15
            interrupted = fail and rng.random() < 0.4
            link.encrypt(fail, interrupted)
            if interrupted:
                break
            if fail:
                # After 0x06 the central gives up: Disconnect 0x05 (Authentication Failure).
                if link.local_central:
                    ending = "auth"
                break
        elif phase == "pair":
            fail = failing or rng.random() < 0.2
            link.pair(fail, interrupted=fail and rng.random() < 0.4)
            if fail:
                break
        elif phase == "server":
            link.other_side_reads_local_server()
        elif phase == "timeout":
            link.att_timeout()
            break
        elif phase == "peer-mtu":
            link.peer_exchanges_mtu()
        elif phase == "signed":
            link.signed_write()
        elif phase == "multiple":
            link.read_multiple()
        elif phase == "rbt-long":
            link.read_by_type_truncated()
        elif phase == "retry":
            link.error_then_retry()
        elif phase == "long-write":
            link.long_write()
        elif phase == "padded-name":
            link.read_padded_name()
        elif phase == "data-length":
            link.data_length_change()
        elif phase == "key-refresh":
            link.key_refresh()
        elif phase == "ll-params":
            link.peer_parameter_request()
        elif phase == "eatt":
            link.eatt_overlap()
        elif phase == "eatt-timeout":
            link.eatt_timeout()
        if failing:
            link.shapes.append(f"fails after {phase}")
            break

    if tail == "mid-transaction" and not link.bearer_closed:
        link.request(att.read_req(0x0003), None)
        link.shapes.append("capture ends mid-transaction")
        link.open = False
        return link
    if tail == "disconnecting":
        link.local_disconnect(finished=False)
        return link
    end(link, ending)
    return link


# Sessions of one named shape (the tests' fixed cases; the seed still draws the details).
SHAPES = {
    # Issue 11 class 1: LE Connection Complete (success), the central's Exchange MTU Request, then
    # 0x3E with nothing answered.
    "failed-to-establish": dict(count=1, roles="central", tail=None, force={"attempt": 0.2}),
    # Issue 11 class 3: a long session, then HCI Disconnect and its Command Status; the capture
    # ends before the Disconnection Complete.
    "disconnect-under-way": dict(count=1, roles="central", tail="disconnecting",
                                 force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify", "rw", "notify", "rw"], "fail_in": None}),
    # A capture gap: the btsnoop writer dropped the peer's answer to the 3rd request (the
    # record's cumulative-drops field counts it); the replay cannot settle that link.
    "writer-dropped": dict(count=1, roles="central", tail=None,
                           force={"attempt": 0.9, "phases": ["mtu", "discovery", "rw"], "fail_in": None, "ending": "peer"}),
    # Write Commands over the controller's 8 LE ACL buffers: the host waits for Number Of Completed
    # Packets, which come a little after connection events HCI never shows.
    "write-burst": dict(count=1, roles="central", tail=None,
                        force={"attempt": 0.9, "phases": ["mtu", "burst", "rw", "burst", "burst"], "fail_in": None, "ending": "local"}),
    # ... or simply with the link still up.
    "ends-connected": dict(count=1, roles="central", tail=None,
                           force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify", "rw", "indicate"], "fail_in": None,
                                  "ending": "still"}),
    # The local device as peripheral (GATT server): the remote central discovers and subscribes,
    # the local server notifies, the central's link layer stops acknowledging (Number Of Completed
    # Packets stop) and the link is lost with 0x08 one supervision timeout after its last answer.
    "peripheral-notify-loss": dict(count=1, roles="peripheral", tail=None,
                                   force={"attempt": 0.9, "phases": ["mtu", "discovery", "silent-notify"], "fail_in": None,
                                          "ending": "loss"}),
    # A link as peripheral that the remote central discovers, subscribes to and loses, and, while
    # it is up, a failed peripheral-role attempt (directed advertising to another central timed
    # out: LE Connection Complete status 0x3C, role 0x01).
    "peripheral-failed-attempt": dict(count=2, roles="peripheral", tail=None,
                                      force={"directed_timeout": True, "attempt": 0.9, "phases": ["mtu", "discovery", "notify"],
                                             "fail_in": None, "ending": "loss"}),
    # The local device as peripheral, and the link ended by the local host (HCI Disconnect, 0x16)
    # or by the remote central (0x13 or 0x15).
    "peripheral-local-disconnect": dict(count=1, roles="peripheral", tail=None,
                                        force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify"], "fail_in": None,
                                               "ending": "local"}),
    "peripheral-peer-disconnect": dict(count=1, roles="peripheral", tail=None,
                                       force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify"], "fail_in": None,
                                              "ending": "peer"}),
    # The local device as peripheral ends the link with HCI Disconnect 0x13 and its controller
    # reports 0x13 back (not 0x16): the remote central got 0x13 from it.
    "peripheral-local-disconnect-echoed": dict(count=1, roles="peripheral", tail=None,
                                               force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify"], "fail_in": None,
                                                      "ending": "local-echoed"}),
    # The local host ends the link with HCI Disconnect reason 0x05 Authentication Failure and the
    # controller reports 0x05 back instead of 0x16 (Bumble's controller does, for every reason).
    "local-disconnect-echoed": dict(count=1, roles="central", tail=None,
                                    force={"attempt": 0.9, "phases": ["mtu", "discovery", "rw"], "fail_in": None,
                                           "ending": "auth-echoed"}),
    # Enhanced ATT (Vol 3 Part G 5.4): two bearers with requests outstanding on both at once, the
    # fixed channel alongside; transactions pair per bearer.
    "eatt-overlap": dict(count=1, roles="central", tail=None,
                         force={"attempt": 0.9, "phases": ["mtu", "discovery", "eatt", "rw", "eatt", "notify", "eatt"],
                                "fail_in": None}),
    # An ATT timeout on one EATT bearer (Vol 3 Part F 3.3.3): that bearer closes, the other bearer
    # and the fixed channel go on before and after it.
    "eatt-timeout": dict(count=1, roles="central", tail=None,
                         force={"attempt": 0.9, "phases": ["mtu", "discovery", "eatt", "eatt-timeout", "rw", "eatt"],
                                "fail_in": None}),
    # GATT over BR/EDR (Vol 3 Part G 2.1) on a dual-mode phone: a BR/EDR link with ATT on PSM
    # 0x001F, then an LE link.
    "bredr-att": dict(count=2, roles="central", tail=None, bredr=1, force={"attempt": 0.9, "fail_in": None}),
    # Both roles in one capture: the local device central on the 1st link, peripheral on the 2nd.
    "mixed-roles": dict(count=2, roles="both", tail=None,
                        force={"attempt": 0.9, "phases": ["mtu", "discovery", "notify", "rw"], "fail_in": None,
                               "ending": "loss"}),
    # ATT procedures the random draw never makes: the peer's own MTU exchange, an error then the
    # same request answered, Read Multiple (Variable), a truncated Read By Type then Read Blob,
    # a Signed Write Command, Prepare/Execute Write; as central and as peripheral.
    "att-variety": dict(count=1, roles="central", tail=None,
                        force={"attempt": 0.9, "phases": ["mtu", "discovery", "peer-mtu", "retry", "multiple", "rbt-long",
                                                          "signed", "long-write", "notify", "retry"], "fail_in": None}),
    "att-variety-peripheral": dict(count=1, roles="peripheral", tail=None,
                                   force={"attempt": 0.9, "phases": ["mtu", "discovery", "peer-mtu", "retry", "multiple",
                                                                     "rbt-long", "signed", "long-write", "notify"],
                                          "fail_in": None}),
    # Link-layer procedures seen through HCI: data length, the LL Connection Parameters Request
    # (peripheral-initiated) beside the L2CAP one, PHY, encryption then a key refresh.
    "ll-procedures": dict(count=2, roles="both", tail=None,
                          force={"attempt": 0.9, "phases": ["mtu", "data-length", "ll-params", "rw", "params", "phy", "encrypt",
                                                            "key-refresh", "notify", "rw"], "fail_in": None}),
    # The same peer connected three times in a row (a reconnecting app): each link gets the lowest
    # free handle, so the handle is reused; the n-th connection behaves like the n-th recorded.
    "reconnect": dict(count=3, roles="central", tail=None, same_peer=True,
                      force={"attempt": 0.9, "phases": ["mtu", "discovery", "rw", "notify"], "fail_in": None}),
    # The peer's Device Name read with NUL padding to its buffer's end (as firmware that serves a
    # fixed-size buffer answers), while it advertises a shortened name of its own.
    "padded-name": dict(count=1, roles="central", tail=None,
                        force={"attempt": 0.9, "phases": ["mtu", "discovery", "padded-name", "rw"], "fail_in": None,
                               "ending": "still"}),
    # The capture's clock: a writer with millisecond timestamps (PacketLogger), so records share
    # them; or a clock set back mid-capture (the replay takes a step back as no time passing).
    "same-timestamps": dict(count=2, roles="central", tail=None, clock="ms",
                            force={"attempt": 0.9, "phases": ["mtu", "discovery", "rw", "notify", "burst"], "fail_in": None}),
    "clock-back": dict(count=2, roles="central", tail=None, clock="back",
                       force={"attempt": 0.9, "phases": ["mtu", "discovery", "rw", "notify", "rw"], "fail_in": None}),
}


def session(seed: int, shape: str | None = None) -> tuple[bytes, dict]:
    """One capture: power-on, then 1-6 links (some at once), handles reused once free."""
    rng = random.Random(seed)
    fixed = SHAPES[shape] if shape else None
    records: list[tuple[int, int, bytes, bool, str, int]] = []  # (time, seq, h4, received, tag, link)
    t = START + rng.randint(0, 3600) * 1_000_000
    boot = [(hci.reset(), hci.command_complete(hci.RESET, b"\x00")),
            (hci.le_read_buffer_size(), hci.command_complete(hci.LE_READ_BUFFER_SIZE, struct.pack("<BHB", 0, 251, 8)))]
    mid_capture = rng.random() < 0.12 and fixed is None
    seq = 0
    if not mid_capture:
        for c, e in boot:
            records.append((t, seq, c, False, "", -1)); seq += 1
            t += 500
            records.append((t, seq, e, True, "", -1)); seq += 1
            t += 1000
    count = rng.randint(1, 6)
    tail = rng.choice(("mid-transaction", "disconnecting")) if rng.random() < 0.15 else None
    roles = rng.choice(("central", "central", "peripheral", "both"))
    if fixed:
        count, tail, roles = fixed["count"], fixed["tail"], fixed["roles"]
    links: list[Link] = []
    start = t + 5 * MS
    force = dict(fixed["force"]) if fixed else None
    if fixed and fixed.get("same_peer"):
        force["peer"] = _addr(random.Random(seed * 7919 + 1))
    for i in range(count):
        local_central = roles == "central" or (roles == "both" and i % 2 == 0)
        if fixed and i < fixed.get("bredr", 0):
            links.append(make_bredr_link(rng, start, i, fixed["force"]))
        else:
            links.append(make_link(rng, start, local_central, i, mid_capture and i == 0, tail if i == count - 1 else None,
                                   force))
        # The next link starts while this one is up (simultaneous links) or after it ended; link
        # setups never overlap (one LE Create Connection at a time).
        lo = start + 300 * MS
        start = rng.randint(lo, max(lo, links[-1].t + 200 * MS)) if rng.random() < 0.5 else links[-1].t + rng.randint(50 * MS, 2000 * MS)
        start = max(start, max(l.records[0][0] for l in links) + 300 * MS)
        if fixed and fixed.get("same_peer"):
            # One link at a time to the same device.
            start = max(start, max(r[0] for r in links[-1].records) + rng.randint(300 * MS, 3000 * MS))

    if tail is not None:
        # The tail link must be the last thing in the capture: drop what other links would add after it.
        last = links[-1]
        end = max(r[0] for r in last.records)
        for l in links[:-1]:
            if any(r[0] > end for r in l.records):
                l.records = [r for r in l.records if r[0] <= end]
                l.shapes.append("cut by the capture's end")
                if not any(r[3] == "end" for r in l.records):
                    l.end_reason = None

    # Handles: the lowest free one when the link comes up; free again after its last record.
    busy: list[tuple[int, int]] = []  # (free_from, handle)
    manifest_links = []
    link_of: list[int] = []  # the link index of each manifest entry
    for l in sorted(links, key=lambda l: l.records[0][0]):
        first = l.records[0][0]
        lastt = max(r[0] for r in l.records)
        if l.kind in ("cancelled attempt", "failed attempt"):
            handle = 0
        else:
            in_use = {h for free_from, h in busy if free_from >= first}
            handle = next(h for h in range(0x0040, 0x0050) if h not in in_use)
            busy.append((lastt + (0 if l.end_reason is not None else 10**15), handle))
            l.shapes = [x for x in l.shapes]
            if any(h == handle for _, h in busy[:-1]):
                l.shapes.append("handle reused")
        for ts, h4, received, tag in l.records:
            records.append((ts, seq, h4(handle) if callable(h4) else h4, received, tag, l.index)); seq += 1
        link_of.append(l.index)
        manifest_links.append({
            "handle": handle, "role": "central" if l.local_central else "peripheral", "kind": l.kind,
            "att_pdus": sum(1 for r in l.records if r[3] == "att"),
            "end": None if l.kind.endswith("attempt") else l.end_reason,
            "first_us": first, "shapes": l.shapes,
            # The host's ACL packets never completed (only the shapes that build them).
            **({"unacknowledged": l.unacknowledged} if l.unacknowledged else {}),
        })
    records.sort(key=lambda r: (r[0], r[1]))
    drops_from = None
    if shape == "writer-dropped":
        # The writer drops the 3rd ATT PDU the peer sent (a whole record): from the next record on,
        # the btsnoop cumulative-drops field says 1 (Android's btsnoop writer, BlueZ btmon).
        answers = [i for i, r in enumerate(records) if r[4] == "att" and r[3]]
        drops_from = answers[2]
        del records[drops_from]
        manifest_links[0]["att_pdus"] -= 1
        manifest_links[0]["gap"] = True
        manifest_links[0]["shapes"].append("capture gap: the writer dropped a record")
    for m, index in zip(manifest_links, link_of):
        if "unacknowledged" in m:
            # The controller completes a handle's packets in the order sent (Vol 4 Part E 4.1.1):
            # the last acknowledged one is the last sent before the unacknowledged tail.
            sent = [n + 1 for n, r in enumerate(records) if r[5] == index and r[2][0] == 0x02 and not r[3]]
            m["last_acknowledged_frame"] = sent[-m["unacknowledged"] - 1]
            m["first_unacknowledged_frame"] = sent[-m["unacknowledged"]]
    clock = fixed.get("clock") if fixed else None
    if clock == "ms":
        records = [(r[0] // MS * MS,) + r[1:] for r in records]
    elif clock == "back":
        # The phone's clock set back 1 h, at the first record of the second link (its LE Create
        # Connection): every record from there on is stamped 3600 s earlier.
        step = next(i for i, r in enumerate(records) if r[5] == link_of[1])
        records = records[:step] + [(r[0] - 3600 * 1_000_000,) + r[1:] for r in records[step:]]
    out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 1002))
    for i, (ts, _, h4, received, _, _) in enumerate(records):
        flags = (1 if received else 0) | (0b10 if h4[0] in (0x01, 0x04) else 0)
        drops = 1 if drops_from is not None and i >= drops_from else 0
        out += struct.pack(">IIIIq", len(h4), len(h4), flags, drops, ts + EPOCH_OFFSET_US) + h4
    # Links are numbered by the timeline in the order of their first record.
    manifest_links.sort(key=lambda m: m["first_us"])
    name = f"{shape}-{seed}" if shape else f"session-{seed}"
    return bytes(out), {"seed": seed, "shape": shape, "file": f"{name}.btsnoop", "links": manifest_links}


def write(outdir: Path, seed: int, count: int, shape: str | None = None) -> list[dict]:
    outdir.mkdir(parents=True, exist_ok=True)
    manifest = []
    for s in range(seed, seed + count):
        data, m = session(s, shape)
        (outdir / m["file"]).write_bytes(data)
        manifest.append(m)
    (outdir / "sessions.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", type=Path)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--shape", choices=sorted(SHAPES), help="sessions of one named shape")
    a = p.parse_args(argv)
    m = write(a.outdir, a.seed, a.count, a.shape)
    print(f"{len(m)} session(s), {sum(len(x['links']) for x in m)} link(s) in {a.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
