"""A simulated host (central) and its controller talking to simulated peripherals, written as an
HCI capture seen from the central's host, the way Android's snoop log or `btmon -w` sees it.

Time is a virtual clock in Unix microseconds. Records are queued by (time, sequence) and written
once the clock has passed them, so an operation may schedule a record ahead (a Number Of
Completed Packets after the next connection event, a remote-features completion a few events
later) while the scenario goes on. Nothing is ever scheduled before the current time.

Timing model:
  - a command's Command Complete / Command Status comes 0.2-1.2 ms later (UART + controller);
  - a packet the host sends goes on air at the next connection event; its Number Of Completed
    Packets comes ~1 ms after that event;
  - the peripheral answers an ATT request 1-3 connection events later; a frame longer than the
    peripheral's LL data length (27) arrives as several ACL fragments ~0.7 ms apart in one event;
  - notifications arrive at the first connection event after the peripheral queued them.
"""

from __future__ import annotations

import heapq
import math
import random
import struct
from typing import BinaryIO, Callable

from . import att, gatt, hci, l2cap, smp
from .btsnoop import BtsnoopWriter

MS = 1000
SILENT = object()  # a request the peripheral never answers


class Capture:
    """The virtual clock, the RNG and the ordered record queue feeding a btsnoop writer."""

    def __init__(self, out: BinaryIO, start_us: int, seed: int, limit: int | None = None):
        self.writer = BtsnoopWriter(out)
        self.now = start_us
        self.rng = random.Random(seed)
        self.limit = limit  # stop writing after this many records (the capture just ends there)
        self._heap: list = []
        self._seq = 0

    @property
    def full(self) -> bool:
        return self.limit is not None and self.writer.records >= self.limit

    def emit(self, t: int, h4: bytes, received: bool | None = None) -> int:
        t = int(t)
        if t < self.now:
            raise ValueError(f"record scheduled in the past ({t} < {self.now})")
        if self.limit is not None and self.writer.records >= self.limit:
            return t
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, h4, received))
        return t

    def advance_to(self, t: float) -> None:
        t = int(t)
        if t > self.now:
            self.now = t
        heap, write = self._heap, self.writer.write
        while heap and heap[0][0] <= self.now:
            ts, _, h4, received = heapq.heappop(heap)
            if self.limit is not None and self.writer.records >= self.limit:
                heap.clear()
                return
            write(ts, h4, received)

    def advance(self, dt: float) -> None:
        self.advance_to(self.now + dt)

    def uniform_us(self, lo: float, hi: float) -> int:
        return int(self.rng.uniform(lo, hi))

    def choice(self, seq):
        return self.rng.choice(seq)

    def close(self) -> None:
        while self._heap and not self.full:
            ts, _, h4, received = heapq.heappop(self._heap)
            self.writer.write(ts, h4, received)
        self._heap.clear()
        self.now = max(self.now, self.writer.last_ts or self.now)


class Peripheral:
    """Advertising, GATT database and LL behaviour of a remote device."""

    def __init__(self, name: str, address: str, db: gatt.Database, adv_data: bytes, scan_rsp: bytes,
                 addr_type: int = 1, adv_interval_ms: float = 100.0, rssi: int = -60, mtu: int = 247,
                 features: bytes = bytes([0x3F, 0x01, 0, 0, 0, 0, 0, 0]), max_tx_octets: int = 27,
                 response_events: tuple[int, ...] = (1, 1, 1, 2, 2, 3), connectable: bool = True):
        self.name, self.address, self.addr_type, self.db = name, address, addr_type, db
        self.adv_data, self.scan_rsp = adv_data, scan_rsp
        self.adv_interval_us = int(adv_interval_ms * MS)
        self.rssi, self.mtu, self.features = rssi, mtu, features
        self.max_tx_octets = max_tx_octets
        self.response_events = response_events
        self.connectable = connectable

    def respond(self, conn: "Connection", pdu: bytes) -> bytes:
        """The server's answer to an ATT request, from its database."""
        op = pdu[0]
        if op == att.EXCHANGE_MTU_REQ:
            client_mtu = struct.unpack_from("<H", pdu, 1)[0]
            conn.pending_mtu = min(client_mtu, self.mtu)
            return att.exchange_mtu_rsp(self.mtu)
        if op == att.READ_BY_GROUP_TYPE_REQ:
            start, end = struct.unpack_from("<HH", pdu, 1)
            return self.db.read_by_group_type(start, end, conn.mtu)
        if op == att.READ_BY_TYPE_REQ:
            start, end = struct.unpack_from("<HH", pdu, 1)
            uuid = pdu[5:]
            if uuid == struct.pack("<H", att.CHARACTERISTIC):
                return self.db.read_by_type_characteristics(start, end, conn.mtu)
            return att.error_rsp(att.READ_BY_TYPE_REQ, start, att.ATTRIBUTE_NOT_FOUND)
        if op == att.FIND_INFORMATION_REQ:
            start, end = struct.unpack_from("<HH", pdu, 1)
            return self.db.find_information(start, end, conn.mtu)
        if op == att.READ_REQ:
            return self.db.read(struct.unpack_from("<H", pdu, 1)[0], conn.mtu)
        if op == att.WRITE_REQ:
            return self.db.write(struct.unpack_from("<H", pdu, 1)[0], pdu[3:])
        return att.error_rsp(op, 0x0000, att.REQUEST_NOT_SUPPORTED)

    def advertising_reports(self, cap: Capture, t: int, active: bool, catch: float = 0.7) -> list[tuple[int, bytes]]:
        """Reports the scanner gets from one advertising event at time t (maybe none)."""
        out = []
        if cap.rng.random() < catch:
            rssi = max(-100, min(-20, self.rssi + round(cap.rng.gauss(0, 3))))
            ev_type = hci.ADV_IND if self.connectable else hci.ADV_NONCONN_IND
            out.append((t, hci.le_advertising_report(ev_type, self.addr_type, self.address, self.adv_data, rssi)))
            if active and self.connectable and self.scan_rsp is not None and cap.rng.random() < 0.9:
                rssi2 = max(-100, min(-20, rssi + cap.rng.choice((-1, 0, 0, 1))))
                out.append((t + cap.uniform_us(400, 700),
                            hci.le_advertising_report(hci.SCAN_RSP, self.addr_type, self.address, self.scan_rsp, rssi2)))
        return out


class Central:
    """The local host and controller (an Android phone or a BlueZ gateway)."""

    def __init__(self, cap: Capture, address: str, own_addr_type: int = 1, enhanced: bool = False,
                 acl_len: int = 27, acl_num: int = 8, handle_base: int = 0x0040, handle_count: int = 8):
        self.cap = cap
        self.address, self.own_addr_type, self.enhanced = address, own_addr_type, enhanced
        self.acl_len, self.acl_num = acl_len, acl_num
        self.handle_base, self.handle_count = handle_base, handle_count
        self.handles_in_use: set[int] = set()
        self._next_handle = handle_base
        self._in_flight = 0  # ACL packets sent whose Number Of Completed Packets is not yet scheduled
        self._returns: list[tuple[int, int, int]] = []  # (time, handle, n) scheduled completions
        self.scanning = False
        self.connections: dict[int, Connection] = {}

    # --- commands ----------------------------------------------------------------------------
    def command(self, cmd: bytes, *responses: bytes, think_us: tuple[int, int] = (50, 400)) -> int:
        """Send a command now; its events follow. Returns the time of the last event."""
        cap = self.cap
        cap.emit(cap.now, cmd)
        t = cap.now + cap.uniform_us(200, 1200)
        for r in responses:
            cap.emit(t, r)
            t += cap.uniform_us(30, 120)
        cap.advance_to(t + cap.uniform_us(*think_us))
        return t

    def command_complete(self, cmd: bytes, return_params: bytes = b"\x00") -> int:
        opcode = struct.unpack_from("<H", cmd, 1)[0]
        return self.command(cmd, hci.command_complete(opcode, return_params))

    def command_status(self, cmd: bytes, status: int = 0) -> int:
        opcode = struct.unpack_from("<H", cmd, 1)[0]
        return self.command(cmd, hci.command_status(opcode, status))

    def power_on(self, bd_addr: str = "00:1A:7D:DA:71:13", lmp_subversion: int = 0x2209,
                 company: int = 0x000F) -> None:
        """Host stack start-up: reset, version, address, event masks, LE buffer size, random address."""
        self.command_complete(hci.reset())
        self.command_complete(hci.read_local_version(),
                              struct.pack("<BBHBHH", 0, 0x09, 0x0100, 0x09, company, lmp_subversion))
        self.command_complete(hci.read_bd_addr(), b"\x00" + hci.addr_bytes(bd_addr))
        self.command_complete(hci.set_event_mask(0x3DBFF807FFFBFFFF))
        le_mask = 0x7F | (0x200 if self.enhanced else 0)
        self.command_complete(hci.le_set_event_mask(le_mask))
        self.command_complete(hci.le_read_buffer_size(), struct.pack("<BHB", 0, self.acl_len, self.acl_num))
        self.command_complete(hci.le_read_local_features(), b"\x00" + bytes([0x7F, 0x01, 0, 0, 0, 0, 0, 0]))
        if self.own_addr_type == 1:
            self.command_complete(hci.le_set_random_address(self.address))

    # --- scanning ----------------------------------------------------------------------------
    def start_scan(self, active: bool = True, interval: int = 0x0060, window: int = 0x0030) -> None:
        self.scan_active = active
        self.command_complete(hci.le_set_scan_parameters(active, interval, window, self.own_addr_type))
        self.command_complete(hci.le_set_scan_enable(True, False))
        self.scanning = True

    def stop_scan(self) -> None:
        self.command_complete(hci.le_set_scan_enable(False, False))
        self.scanning = False

    def hear(self, advertisers: list[Peripheral], duration_us: int, catch: float = 0.7) -> None:
        """While scanning, the advertising reports heard over the next `duration_us`."""
        cap = self.cap
        start, end = cap.now, cap.now + duration_us
        reports = []
        for p in advertisers:
            t = start + cap.uniform_us(0, p.adv_interval_us)
            while t < end:
                reports += p.advertising_reports(cap, t, self.scan_active, catch)
                t += p.adv_interval_us + cap.uniform_us(0, 10 * MS)  # advDelay 0-10 ms
        for t, r in sorted(reports, key=lambda x: x[0]):
            cap.emit(t, r)
        cap.advance_to(end)

    def scan(self, target: Peripheral, others: list[Peripheral] = (), duration_us: int = 800 * MS) -> None:
        self.start_scan()
        self.hear([target, *others], duration_us)
        self.stop_scan()

    # --- connecting --------------------------------------------------------------------------
    def peek_handle(self) -> int:
        """The handle the next connection would get."""
        for i in range(self.handle_count):
            h = self.handle_base + (self._next_handle - self.handle_base + i) % self.handle_count
            if h not in self.handles_in_use:
                return h
        return self._next_handle

    def allocate_handle(self) -> int:
        for _ in range(self.handle_count):
            h = self._next_handle
            self._next_handle = self.handle_base + (h - self.handle_base + 1) % self.handle_count
            if h not in self.handles_in_use:
                self.handles_in_use.add(h)
                return h
        raise RuntimeError("no free connection handle")

    def _connection_complete(self, t: int, status: int, handle: int, p: Peripheral,
                             interval: int, latency: int, timeout: int) -> None:
        self.cap.emit(t, self._connection_complete_event(status, handle, p, interval, latency, timeout))

    def _connection_complete_event(self, status: int, handle: int, p: Peripheral,
                                   interval: int, latency: int, timeout: int) -> bytes:
        if self.enhanced:
            ev = hci.le_enhanced_connection_complete(status, handle, 0, p.addr_type, p.address,
                                                     "00:00:00:00:00:00", "00:00:00:00:00:00",
                                                     interval, latency, timeout)
        else:
            ev = hci.le_connection_complete(status, handle, 0, p.addr_type, p.address, interval, latency, timeout)
        return ev

    def create_connection(self, p: Peripheral, interval: int = 24, latency: int = 0, timeout: int = 400,
                          outcome: str = "ok", cancel_after_us: int = 5_000 * MS) -> "Connection | None":
        """LE Create Connection; outcome 'ok', 'fail' (0x3E one connection later) or 'cancel'.

        'fail': the controller sends CONNECT_IND and reports LE Connection Complete (success), but
        the peripheral never answers; after 6 connection intervals the controller reports
        Disconnection Complete with reason 0x3E (Core v5.4 Vol 6 Part B 4.5.2; Zephyr's controller
        does the same; so does the Android capture shared/captures/android-lock-pairing.btsnoop).
        'cancel': LE Create Connection Cancel, its Command Complete, then LE Connection Complete
        with status 0x02 (Vol 4 Part E 7.8.13).
        """
        cap = self.cap
        if self.scanning:
            self.stop_scan()
        self.command_status(hci.le_create_connection(p.addr_type, p.address, self.own_addr_type,
                                                     interval, interval, latency, timeout))
        if outcome == "cancel":
            cap.advance(cancel_after_us)
            # As an Android controller reports it (shared capture android-lock-pairing, frame 269):
            # the handle it would have used, a zero peer address, the requested parameters.
            nobody = Peripheral("", "00:00:00:00:00:00", gatt.Database([]), b"", b"", addr_type=0)
            self.command(hci.le_create_connection_cancel(),
                         hci.command_complete(hci.LE_CREATE_CONNECTION_CANCEL, b"\x00"),
                         self._connection_complete_event(0x02, self.peek_handle(), nobody,
                                                         interval, latency, timeout))
            cap.advance(cap.uniform_us(500, 900))
            return None
        t_adv = cap.now + cap.uniform_us(3 * MS, p.adv_interval_us + 10 * MS)
        handle = self.allocate_handle()
        self._connection_complete(t_adv + cap.uniform_us(600, 1100), 0, handle, p, interval, latency, timeout)
        interval_us = interval * 1250
        anchor = t_adv + 1250 + 1250 + cap.uniform_us(0, interval_us)  # transmitWindowDelay + offset
        if outcome == "fail":
            cap.emit(anchor + 6 * interval_us + cap.uniform_us(300, 900), hci.disconnection_complete(handle, 0x3E))
            cap.advance_to(anchor + 6 * interval_us + 1000)
            self.handles_in_use.discard(handle)
            return None
        conn = Connection(self, p, handle, interval, latency, timeout, anchor)
        self.connections[handle] = conn
        cap.advance_to(t_adv + 1200)
        return conn

    # --- ACL flow control --------------------------------------------------------------------
    def free_buffers(self) -> int:
        """LE ACL buffers the host may still fill (Vol 4 Part E 4.1.1: credits come back with
        Number Of Completed Packets)."""
        now = self.cap.now
        if self._returns and self._returns[0][0] <= now:
            self._returns = [r for r in self._returns if r[0] > now]
        return self.acl_num - self._in_flight - sum(r[2] for r in self._returns)

    def wait_for_buffer(self) -> None:
        while self.free_buffers() <= 0:
            if not self._returns:
                raise RuntimeError("all LE ACL buffers in flight and no completion scheduled")
            self.cap.advance_to(min(r[0] for r in self._returns))

    def packets_completed(self, t: int, handle: int, n: int) -> None:
        self.cap.emit(t, hci.number_of_completed_packets([(handle, n)]))
        self._in_flight -= n
        self._returns.append((t, handle, n))
        self._returns.sort()


class Connection:
    """One LE connection, central role, from the central host's point of view."""

    def __init__(self, central: Central, peripheral: Peripheral, handle: int,
                 interval: int, latency: int, timeout: int, anchor: int):
        self.central, self.peripheral, self.cap = central, peripheral, central.cap
        self.handle, self.interval, self.latency, self.timeout = handle, interval, latency, timeout
        self.interval_us = interval * 1250
        self.anchor = anchor
        self.mtu = 23
        self.pending_mtu = 23
        self.open = True
        self.last_heard = anchor
        self.signal_id = 0
        self.tx_free_at = 0  # air time of the last packet sent to the peripheral
        self.rx_free_at = 0  # time of the last fragment received from it

    # --- timing ------------------------------------------------------------------------------
    def event_at_or_after(self, t: float) -> int:
        k = max(0, math.ceil((t - self.anchor) / self.interval_us))
        return self.anchor + k * self.interval_us

    def next_event(self) -> int:
        return self.event_at_or_after(self.cap.now + 300)

    # --- data --------------------------------------------------------------------------------
    def host_send(self, cid: int, payload: bytes) -> int:
        """Host -> controller: the L2CAP frame as ACL fragments of the LE buffer size, each sent
        when a buffer is free. Fragments go on air at the next connection events (~0.7 ms apart,
        at most ~75 % of an interval per event); one Number Of Completed Packets per event.
        Returns the start of the connection event that carried the last fragment."""
        cap, central = self.cap, self.central
        frags = hci.acl_fragments(self.handle, l2cap.frame(cid, payload), central.acl_len, outgoing=True)
        group_event, group_count, group_last = None, 0, 0
        t = cap.now
        for f in frags:
            if central.free_buffers() <= 0:
                if group_count:
                    central.packets_completed(group_last + cap.uniform_us(300, 900), self.handle, group_count)
                    group_count = 0
                central.wait_for_buffer()
            t = max(t, cap.now)
            cap.emit(t, f, received=False)
            central._in_flight += 1
            air = max(self.event_at_or_after(t + 200), self.tx_free_at + 700)
            event = self.anchor + (air - self.anchor) // self.interval_us * self.interval_us
            if air - event > self.interval_us * 3 // 4:
                event += self.interval_us
                air = event
            if group_count and event != group_event:
                central.packets_completed(group_last + cap.uniform_us(300, 900), self.handle, group_count)
                group_count = 0
            group_event, group_last = event, air
            group_count += 1
            self.tx_free_at = air
            last_emit = t
            t += cap.uniform_us(10, 40)
        # The host has written the whole frame before it writes anything else on this link.
        cap.advance_to(last_emit)
        central.packets_completed(group_last + cap.uniform_us(300, 900), self.handle, group_count)
        self.last_heard = max(self.last_heard, group_event)
        return group_event

    def peer_send(self, cid: int, payload: bytes, at: float) -> int:
        """Peripheral -> central frame, arriving at the first connection event at or after `at`
        (after any frame still arriving). Returns the time of its last fragment."""
        cap = self.cap
        e = self.event_at_or_after(max(at, cap.now))
        frags = hci.acl_fragments(self.handle, l2cap.frame(cid, payload),
                                  self.peripheral.max_tx_octets, outgoing=False)
        t = max(e + cap.uniform_us(250, 450), self.rx_free_at + cap.uniform_us(650, 750))
        for i, f in enumerate(frags):
            if i:
                t += cap.uniform_us(650, 750)
            cap.emit(t, f, received=True)
        self.rx_free_at = t
        self.last_heard = max(self.last_heard, e)
        return t

    def request(self, pdu: bytes, response: bytes | object | None = None,
                events: int | None = None, think_us: tuple[int, int] = (150, 2500)) -> bytes | None:
        """An ATT request and its response (from the peripheral's database unless given).
        SILENT: the request is sent and nothing comes back. Returns the response PDU."""
        cap = self.cap
        e = self.host_send(l2cap.CID_ATT, pdu)
        if response is SILENT:
            return None
        if response is None:
            response = self.peripheral.respond(self, pdu)
        k = events if events is not None else cap.rng.choice(self.peripheral.response_events)
        t = self.peer_send(l2cap.CID_ATT, response, e + k * self.interval_us)
        if pdu[0] == att.EXCHANGE_MTU_REQ and response[0] == att.EXCHANGE_MTU_RSP:
            self.mtu = self.pending_mtu
        cap.advance_to(t + cap.uniform_us(*think_us))
        return response

    def notify(self, handle: int, value: bytes, at: float) -> int:
        return self.peer_send(l2cap.CID_ATT, att.notification(handle, value), at)

    def indicate(self, handle: int, value: bytes, at: float) -> int:
        """Handle Value Indication from the peripheral; the host confirms it when it arrives."""
        cap = self.cap
        t = self.peer_send(l2cap.CID_ATT, att.indication(handle, value), at)
        cap.advance_to(t + cap.uniform_us(200, 1500))
        return self.host_send(l2cap.CID_ATT, att.confirmation())

    def write_command(self, handle: int, value: bytes) -> int:
        return self.host_send(l2cap.CID_ATT, att.write_cmd(handle, value))

    # --- link-layer procedures seen through HCI ------------------------------------------------
    def read_remote_features(self) -> None:
        cap = self.cap
        self.central.command_status(hci.le_read_remote_features(self.handle))
        done = self.next_event() + 2 * self.interval_us + cap.uniform_us(300, 900)
        cap.emit(done, hci.le_read_remote_features_complete(self.handle, self.peripheral.features))

    def set_data_length(self, tx_octets: int = 251, tx_time: int = 2120) -> None:
        """LE Set Data Length; the peer accepts 251 to receive but sends at most its own max."""
        cap = self.cap
        self.central.command_complete(hci.le_set_data_length(self.handle, tx_octets, tx_time),
                                      struct.pack("<BH", 0, self.handle))
        rx = self.peripheral.max_tx_octets
        done = self.next_event() + 2 * self.interval_us + cap.uniform_us(300, 900)
        cap.emit(done, hci.le_data_length_change(self.handle, tx_octets, tx_time, rx, (rx + 14) * 8))

    def exchange_mtu(self, client_mtu: int = 517) -> int:
        self.request(att.exchange_mtu_req(client_mtu))
        return self.mtu

    def peer_requests_connection_update(self, interval: int, latency: int, timeout: int) -> None:
        """L2CAP Connection Parameter Update Request from the peripheral; the host accepts and
        issues LE Connection Update; the new interval applies from the instant (6+ events on)."""
        cap = self.cap
        self.signal_id = (self.signal_id % 255) + 1
        t = self.peer_send(l2cap.CID_LE_SIGNALING,
                           l2cap.connection_parameter_update_request(self.signal_id, interval, interval,
                                                                     latency, timeout),
                           cap.now)
        cap.advance_to(t + cap.uniform_us(300, 1500))
        self.host_send(l2cap.CID_LE_SIGNALING, l2cap.connection_parameter_update_response(self.signal_id))
        cap.advance(cap.uniform_us(100, 400))
        self.central.command_status(hci.le_connection_update(self.handle, interval, interval, latency, timeout))
        instant = self.next_event() + 7 * self.interval_us
        cap.emit(instant + cap.uniform_us(300, 900),
                 hci.le_connection_update_complete(self.handle, interval, latency, timeout))
        self.interval, self.latency, self.timeout = interval, latency, timeout
        self.anchor, self.interval_us = instant, interval * 1250
        cap.advance_to(instant + 1000)

    def start_encryption(self, rand: bytes, ediv: int, ltk: bytes) -> int:
        """LE Start Encryption; Encryption Change after the LL encryption procedure (~3 events)."""
        cap = self.cap
        self.central.command_status(hci.le_start_encryption(self.handle, rand, ediv, ltk))
        done = self.next_event() + 3 * self.interval_us + cap.uniform_us(300, 900)
        cap.emit(done, hci.encryption_change(self.handle, 1))
        cap.advance_to(done + cap.uniform_us(200, 800))
        return done

    # --- ending ------------------------------------------------------------------------------
    def _closed(self) -> None:
        self.open = False
        self.central.handles_in_use.discard(self.handle)
        self.central.connections.pop(self.handle, None)
        c = self.central
        c._returns = [r for r in c._returns if r[1] != self.handle]

    def disconnect(self, reason: int = 0x13) -> int:
        """Host-initiated: Disconnect(reason) -> Command Status -> Disconnection Complete 0x16."""
        cap = self.cap
        self.central.command_status(hci.disconnect(self.handle, reason))
        done = self.event_at_or_after(max(cap.now, self.tx_free_at, self.rx_free_at) + 300) \
            + self.interval_us * cap.choice((1, 1, 2)) + cap.uniform_us(300, 900)
        cap.emit(done, hci.disconnection_complete(self.handle, 0x16))
        cap.advance_to(done + cap.uniform_us(200, 800))
        self._closed()
        return done

    def peer_disconnects(self, reason: int = 0x13, at: float | None = None) -> int:
        """The peripheral sends LL_TERMINATE_IND; the controller reports its reason."""
        cap = self.cap
        e = self.event_at_or_after(max(cap.now, at or cap.now, self.tx_free_at + 2000, self.rx_free_at + 300))
        done = e + cap.uniform_us(600, 1200)
        cap.emit(done, hci.disconnection_complete(self.handle, reason))
        cap.advance_to(done + cap.uniform_us(200, 800))
        self._closed()
        return done

    def supervision_timeout(self, silent_from: float) -> int:
        """The peripheral stops answering at `silent_from`; one supervision timeout after the last
        event it answered, the controller reports Disconnection Complete reason 0x08."""
        cap = self.cap
        last = self.event_at_or_after(silent_from) - self.interval_us
        done = self.event_at_or_after(last + self.timeout * 10 * MS) + cap.uniform_us(300, 900)
        cap.emit(done, hci.disconnection_complete(self.handle, 0x08))
        cap.advance_to(done + cap.uniform_us(200, 800))
        self._closed()
        return done


# --- GATT client procedures (as Android's Bluedroid runs them) ---------------------------------

class DiscoveredCharacteristic:
    def __init__(self, decl: int, properties: int, value: int, uuid: int | bytes):
        self.decl, self.properties, self.value, self.uuid = decl, properties, value, uuid
        self.descriptors: list[tuple[int, int | bytes]] = []


class DiscoveredService:
    def __init__(self, start: int, end: int, uuid: int | bytes):
        self.start, self.end, self.uuid = start, end, uuid
        self.characteristics: list[DiscoveredCharacteristic] = []


def _uuid(raw: bytes) -> int | bytes:
    return struct.unpack("<H", raw)[0] if len(raw) == 2 else bytes(raw)


def discover(conn: Connection, includes: bool = True) -> list[DiscoveredService]:
    """Primary services (Read By Group Type until Attribute Not Found), then per service the
    included services and characteristics (Read By Type), then descriptors (Find Information)."""
    services: list[DiscoveredService] = []
    start = 0x0001
    while start <= 0xFFFF:
        rsp = conn.request(att.read_by_group_type_req(start, 0xFFFF))
        if rsp[0] != att.READ_BY_GROUP_TYPE_RSP:
            break
        n = rsp[1]
        for i in range(2, len(rsp), n):
            s, e = struct.unpack_from("<HH", rsp, i)
            services.append(DiscoveredService(s, e, _uuid(rsp[i + 4:i + n])))
        if services[-1].end == 0xFFFF:
            break
        start = services[-1].end + 1

    for svc in services:
        if includes:
            conn.request(att.read_by_type_req(svc.start, svc.end, att.INCLUDE))
        start = svc.start
        while start <= svc.end:
            rsp = conn.request(att.read_by_type_req(start, svc.end, att.CHARACTERISTIC))
            if rsp[0] != att.READ_BY_TYPE_RSP:
                break
            n = rsp[1]
            for i in range(2, len(rsp), n):
                decl, props, value = struct.unpack_from("<HBH", rsp, i)
                svc.characteristics.append(DiscoveredCharacteristic(decl, props, value, _uuid(rsp[i + 5:i + n])))
            start = svc.characteristics[-1].decl + 1

        for j, ch in enumerate(svc.characteristics):
            end = svc.characteristics[j + 1].decl - 1 if j + 1 < len(svc.characteristics) else svc.end
            start = ch.value + 1
            while start <= end:
                rsp = conn.request(att.find_information_req(start, end))
                if rsp[0] != att.FIND_INFORMATION_RSP:
                    break
                size = 2 if rsp[1] == 1 else 16
                for i in range(2, len(rsp), 2 + size):
                    h = struct.unpack_from("<H", rsp, i)[0]
                    ch.descriptors.append((h, _uuid(rsp[i + 2:i + 2 + size])))
                start = ch.descriptors[-1][0] + 1
    return services


def find_characteristic(services: list[DiscoveredService], uuid: int | bytes) -> DiscoveredCharacteristic:
    for s in services:
        for c in s.characteristics:
            if c.uuid == uuid:
                return c
    raise KeyError(uuid)


def cccd_handle(ch: DiscoveredCharacteristic) -> int:
    return next(h for h, u in ch.descriptors if u == gatt.CCCD)


def subscribe(conn: Connection, ch: DiscoveredCharacteristic, indications: bool = False) -> bytes:
    """Write 0x0001 (notify) or 0x0002 (indicate) to the CCCD, little-endian: bytes 01 00 / 02 00."""
    return conn.request(att.write_req(cccd_handle(ch), b"\x02\x00" if indications else b"\x01\x00"))


def read_device_information(conn: Connection, services: list[DiscoveredService]) -> dict[int, bytes]:
    """Read Manufacturer Name (2A29), Model Number (2A24), Firmware Revision (2A26)."""
    out = {}
    for uuid in (0x2A29, 0x2A24, 0x2A26):
        rsp = conn.request(att.read_req(find_characteristic(services, uuid).value))
        out[uuid] = rsp[1:]
    return out


def bring_up(conn: Connection, client_mtu: int = 517, data_length: bool = True) -> None:
    """What Android does right after LE Connection Complete: remote features, data length, MTU."""
    conn.read_remote_features()
    if data_length:
        conn.set_data_length()
    conn.cap.advance(conn.cap.uniform_us(2 * MS, 6 * MS))
    conn.exchange_mtu(client_mtu)
