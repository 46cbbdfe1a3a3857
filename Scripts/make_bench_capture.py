#!/usr/bin/env python3
"""Stream a large btsnoop H4 capture for benchmarks: a gateway's central host working through a
fleet of peripherals, built from the same `blegen` pieces as the sample captures.

    Scripts/make_bench_capture.py OUT [--records N] [--seed S] [--concurrency C] [--profile P]

Writes exactly N records (default 1,000,000); the capture ends wherever the N-th record falls,
as a snoop log that was copied while running does. Memory stays flat: records are written as
the virtual clock passes them.

The mix: a fleet of ~300 devices of a dozen models and firmware versions; advertising bursts
from the fleet; up to C connections open at once on a controller with 12 connection handles
(handles are reused all the time); per connection: optional re-encryption of a bond, remote
features, data length, MTU exchange (usually), full GATT discovery, Device Information reads,
subscriptions, then bursts of activity: streams of 100-244 byte notifications (split into
27-byte ACL fragments), indications with confirmations, Write Requests, Write Commands limited
by ACL buffer credits, reads, some answered with ATT errors (0x01 0x02 0x03 0x05 0x06 0x0D 0x0E
0x0F 0x80 0x81); connection attempts that fail (0x3E) or are cancelled (0x02); endings by host
disconnect (0x16), peer (0x13 0x14 0x15), supervision timeout (0x08), LL response timeout
(0x22), MIC failure (0x3D) and unacceptable parameters (0x3B).

`--profile att-heavy` is the dense session of issue 12: dozens of links open at once (40 by
default, on 48 connection handles), every peripheral on the 27-byte LE data length and an MTU of
247, so most records are ACL fragments of notifications of 150-244 bytes split into 7-10 fragments
each, with discovery, reads and writes in between and long sessions (fewer connects). Same seed,
same file, as for the default profile.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blegen import att, gatt, hci  # noqa: E402
from blegen.btsnoop import unix_us  # noqa: E402
from blegen.gatt import Characteristic, Database, Service, uuid128  # noqa: E402
from blegen.session import (MS, Capture, Central, Peripheral, bring_up, discover,  # noqa: E402
                            find_characteristic, read_device_information, subscribe)

S = 1_000_000
LOG_SERVICE = uuid128("7A3E1001-52C1-4B8E-9E4A-2F6C3B1D0E55")
LOG_CONTROL = uuid128("7A3E1002-52C1-4B8E-9E4A-2F6C3B1D0E55")
LOG_DATA = uuid128("7A3E1003-52C1-4B8E-9E4A-2F6C3B1D0E55")
LOG_CONFIG = uuid128("7A3E1004-52C1-4B8E-9E4A-2F6C3B1D0E55")
LOG_SECRET = uuid128("7A3E1005-52C1-4B8E-9E4A-2F6C3B1D0E55")

READ_ERRORS = [att.INVALID_HANDLE, att.READ_NOT_PERMITTED, att.INSUFFICIENT_AUTHENTICATION,
               att.INSUFFICIENT_ENCRYPTION, att.UNLIKELY_ERROR, att.REQUEST_NOT_SUPPORTED, 0x80]
WRITE_ERRORS = [att.WRITE_NOT_PERMITTED, att.INVALID_ATTRIBUTE_VALUE_LENGTH, att.INSUFFICIENT_AUTHENTICATION,
                0x80, 0x81]


class Model:
    def __init__(self, name: str, manufacturer: str, model: str, firmwares: list[str], kind: str):
        self.name, self.manufacturer, self.model, self.firmwares, self.kind = name, manufacturer, model, firmwares, kind


MODELS = [
    Model("Pulse HRM", "Acme Sensors", "HRM-200", ["2.1.0", "2.0.4"], "hr"),
    Model("Pulse HRM Pro", "Acme Sensors", "HRM-300", ["3.0.1"], "hr"),
    Model("Acme Logger", "Acme Devices", "LG-10", ["0.9.7", "1.0.0", "1.0.2"], "logger"),
    Model("Acme Logger XL", "Acme Devices", "LG-20", ["1.1.0"], "logger"),
    Model("Acme Meter", "Acme Devices", "MT-2", ["5.0.3", "5.1.0"], "logger"),
    Model("Acme Tag", "Acme Devices", "TG-1", ["0.4.2"], "logger"),
    Model("CoolBox", "Frostline", "CB-7", ["7.2", "7.3", "8.0"], "logger"),
    Model("Fit Band 4", "Wristly", "FB4", ["4.12.0", "4.13.1"], "hr"),
]


def build_device(cap: Capture, model: Model, index: int) -> Peripheral:
    """Models differ in where their services sit (each model's own handle range after GAP and GATT),
    as real products do. It also keeps tshark's handle-to-UUID table, which is per adapter and not
    per connection, from mixing up two devices open at the same time."""
    rng = cap.rng
    base = 0x0010 + 0x30 * MODELS.index(model)
    firmware = model.firmwares[index % len(model.firmwares)]
    addr = ":".join(f"{b:02X}" for b in [0xC0 | rng.getrandbits(6)] + [rng.getrandbits(8) for _ in range(5)])
    if model.kind == "hr":
        services = [
            gatt.generic_access(model.name, 0x0341),
            gatt.generic_attribute(),
            Service(0x180D, [Characteristic(0x2A37, gatt.NOTIFY, b"\x06\x48"),
                             Characteristic(0x2A38, gatt.READ, b"\x01")], handle=base),
            Service(0x180F, [Characteristic(0x2A19, gatt.READ | gatt.NOTIFY, bytes([rng.randint(5, 100)]))]),
            Service(LOG_SERVICE, [Characteristic(LOG_DATA, gatt.NOTIFY, b""),
                                  Characteristic(LOG_CONTROL, gatt.WRITE | gatt.INDICATE, b"")]),
            gatt.device_information(model.manufacturer, model.model, firmware),
        ]
        adv = hci.ad_flags(0x06) + hci.ad_uuid16_list([0x180D, 0x180F]) + hci.ad_manufacturer(0x0059, bytes([index & 0xFF, 0x01]))
    else:
        services = [
            gatt.generic_access(model.name, 0x0000),
            gatt.generic_attribute(),
            Service(LOG_SERVICE, [
                Characteristic(LOG_CONTROL, gatt.WRITE | gatt.INDICATE, b""),
                Characteristic(LOG_DATA, gatt.NOTIFY, b""),
                Characteristic(LOG_CONFIG, gatt.READ | gatt.WRITE | gatt.WRITE_WITHOUT_RESPONSE, b"\x00" * 8),
                Characteristic(LOG_SECRET, gatt.READ, b"\x42" * 16),
            ], handle=base),
            Service(0x180F, [Characteristic(0x2A19, gatt.READ, bytes([rng.randint(5, 100)]))]),
            gatt.device_information(model.manufacturer, model.model, firmware),
        ]
        adv = hci.ad_flags(0x06) + hci.ad_uuid128_list([LOG_SERVICE])
    scan_rsp = hci.ad_name(model.name) + hci.ad_tx_power(rng.choice((-4, 0, 4)))
    p = Peripheral(model.name, addr, Database(services), adv, scan_rsp,
                   adv_interval_ms=rng.choice((100, 152.5, 211.25, 318.75)), rssi=rng.randint(-90, -45),
                   mtu=rng.choice((247, 247, 185, 158, 65)),
                   max_tx_octets=rng.choice((27, 27, 27, 251)))
    p.bonded = rng.random() < 0.25
    p.model = model
    return p


class Profile:
    """What a session does, by weight: `gateway` (the default bench capture) or `att-heavy`."""

    def __init__(self, name: str, handles: int, bursts: tuple[int, int], mix: tuple[int, ...],
                 stream: tuple[int, int], notify_size: tuple[int, int]):
        self.name, self.handles, self.bursts, self.mix = name, handles, bursts, mix
        self.stream, self.notify_size = stream, notify_size


# Activity kinds, in the order of `Profile.mix`: stream, write, wcmd, indicate, read, idle.
PROFILES = {
    "gateway": Profile("gateway", 12, (3, 40), (45, 15, 10, 8, 15, 7), (5, 80), (100, 244)),
    "att-heavy": Profile("att-heavy", 48, (40, 160), (70, 8, 4, 5, 9, 4), (10, 120), (150, 244)),
}


class Bench:
    def __init__(self, out, records: int, seed: int, concurrency: int, profile: Profile = PROFILES["gateway"],
                 lost_at_end: bool = False):
        self.cap = Capture(out, unix_us("2026-03-02T08:00:00Z"), seed, limit=records)
        self.lost_at_end = lost_at_end
        self.profile = profile
        self.central = Central(self.cap, "4C:11:7E:20:9A:3D", own_addr_type=1, enhanced=True,
                               handle_base=0x0001, handle_count=profile.handles)
        self.concurrency = concurrency
        self.fleet = [build_device(self.cap, MODELS[i % len(MODELS)], i) for i in range(300)]
        if profile.name == "att-heavy":
            # The LE default data length and a large MTU: a notification is 7-10 ACL fragments.
            for dev in self.fleet:
                dev.max_tx_octets, dev.mtu = 27, 247
        self.sessions = 0

    def run(self) -> None:
        cap, rng = self.cap, self.cap.rng
        self.central.power_on("00:1A:7D:DA:71:99")
        active: list = []
        busy: set[str] = set()
        while not cap.full:
            if len(active) < self.concurrency and rng.random() < 0.6:
                dev = rng.choice(self.fleet)
                if dev.address in busy:
                    continue
                busy.add(dev.address)
                active.append((dev, self.session(dev)))
                self.sessions += 1
                continue
            if not active:
                continue
            i = rng.randrange(len(active))
            dev, gen = active[i]
            try:
                next(gen)
            except StopIteration:
                active.pop(i)
                busy.discard(dev.address)
                cap.advance(rng.randint(10 * MS, 800 * MS))
        if self.lost_at_end:
            self.lose_open_links()
        cap.close()

    def lose_open_links(self) -> None:
        """Every link still up goes silent at once (the gateway's radio lost them all) and ends one
        supervision timeout later with Disconnection Complete 0x08, one record each beyond the limit."""
        cap = self.cap
        links = sorted(self.central.connections.values(), key=lambda c: c.handle)
        cap.limit = cap.writer.records + len(self.cap._heap) + len(links)
        silent_from, last_done = cap.now, cap.now
        # As Connection.supervision_timeout times it, every link's report queued before any is
        # written (each link's timeout is its own, so the reports come in another order).
        for conn in links:
            last = conn.event_at_or_after(silent_from) - conn.interval_us
            done = conn.event_at_or_after(last + conn.timeout * 10 * MS) + cap.uniform_us(300, 900)
            cap.emit(done, hci.disconnection_complete(conn.handle, 0x08))
            last_done = max(last_done, done)
        cap.advance_to(last_done + 1000)
        for conn in links:
            conn._closed()

    def session(self, dev: Peripheral):
        cap, rng, central = self.cap, self.cap.rng, self.central
        others = rng.sample(self.fleet, 12)
        central.scan(dev, [o for o in others if o is not dev], rng.randint(300 * MS, 2500 * MS))
        outcome = rng.choices(("ok", "fail", "cancel"), (94, 4, 2))[0]
        interval = rng.choice((6, 12, 24, 24, 36, 40))
        latency = rng.choice((0, 0, 0, 4))
        timeout = max(rng.choice((200, 400, 500, 600)), (1 + latency) * interval * 3 // 8 + 10)
        conn = central.create_connection(dev, interval, latency, timeout, outcome=outcome,
                                         cancel_after_us=rng.randint(1 * S, 6 * S))
        if conn is None:
            return
        yield
        if dev.bonded:
            conn.start_encryption(bytes(rng.getrandbits(8) for _ in range(8)), rng.getrandbits(16),
                                  bytes(rng.getrandbits(8) for _ in range(16)))
        if rng.random() < 0.9:
            bring_up(conn, data_length=rng.random() < 0.8)
        else:
            conn.read_remote_features()
        yield
        services = discover(conn)
        yield
        read_device_information(conn, services)
        yield
        data = find_characteristic(services, LOG_DATA)
        control = find_characteristic(services, LOG_CONTROL)
        subscribe(conn, data)
        subscribe(conn, control, indications=True)
        yield
        mtu = conn.mtu
        profile = self.profile
        for _ in range(rng.randint(*profile.bursts)):
            kind = rng.choices(("stream", "write", "wcmd", "indicate", "read", "idle"), profile.mix)[0]
            if kind == "stream":
                t = cap.now
                for _ in range(rng.randint(*profile.stream)):
                    size = rng.randint(*profile.notify_size) if mtu >= profile.notify_size[0] + 3 else mtu - 3
                    size = min(size, mtu - 3)
                    t = conn.notify(data.value, bytes(rng.getrandbits(8) for _ in range(size)), t) + 100
                cap.advance_to(t)
            elif kind == "write":
                for _ in range(rng.randint(1, 4)):
                    value = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, min(mtu - 3, 60))))
                    if rng.random() < 0.12:
                        conn.request(att.write_req(control.value, value),
                                     att.error_rsp(att.WRITE_REQ, control.value, rng.choice(WRITE_ERRORS)))
                    else:
                        conn.request(att.write_req(control.value, value))
            elif kind == "wcmd" and dev.model.kind == "logger":
                config = find_characteristic(services, LOG_CONFIG)
                for _ in range(rng.randint(4, 40)):
                    size = min(mtu - 3, rng.randint(20, 244))
                    conn.write_command(config.value, bytes(rng.getrandbits(8) for _ in range(size)))
                    cap.advance(rng.randint(100, 2000))
            elif kind == "indicate":
                for _ in range(rng.randint(1, 5)):
                    conn.indicate(control.value, bytes(rng.getrandbits(8) for _ in range(rng.randint(2, 20))),
                                  cap.now + rng.randint(0, 200 * MS))
            elif kind == "read":
                ch = rng.choice([c for s in services for c in s.characteristics if c.properties & gatt.READ])
                if rng.random() < 0.15:
                    conn.request(att.read_req(ch.value), att.error_rsp(att.READ_REQ, ch.value, rng.choice(READ_ERRORS)))
                else:
                    conn.request(att.read_req(ch.value))
            else:
                cap.advance(rng.randint(50 * MS, 3 * S))
            yield
        ending = rng.choices(("host", "peer13", "peer14", "peer15", "timeout", "lltimeout", "mic", "params"),
                             (55, 14, 3, 8, 12, 4, 2, 2))[0]
        if ending == "host":
            conn.disconnect(0x13)
        elif ending == "timeout":
            conn.supervision_timeout(silent_from=cap.now + rng.randint(10 * MS, 500 * MS))
        elif ending == "lltimeout":
            conn.peer_disconnects(0x22, at=cap.now + rng.randint(40 * MS, 4 * S))
        elif ending == "mic" and dev.bonded:
            conn.peer_disconnects(0x3D, at=cap.now + rng.randint(10 * MS, 300 * MS))
        elif ending == "params":
            conn.peer_disconnects(0x3B, at=cap.now + rng.randint(10 * MS, 300 * MS))
        else:
            reason = {"peer14": 0x14, "peer15": 0x15}.get(ending, 0x13)
            conn.peer_disconnects(reason, at=cap.now + rng.randint(10 * MS, 2 * S))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--concurrency", type=int, default=None,
                    help="connections open at once (at most; default 3, 40 for att-heavy)")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="gateway")
    ap.add_argument("--verify", action="store_true", help="check host-stack invariants afterwards (blegen.verify)")
    ap.add_argument("--lost-at-end", action="store_true",
                    help="end every link still up with a supervision timeout (0x08) after the last record")
    args = ap.parse_args()
    started = time.perf_counter()
    with open(args.out, "wb", buffering=1 << 20) as f:
        concurrency = args.concurrency or (40 if args.profile == "att-heavy" else 3)
        bench = Bench(f, args.records, args.seed, concurrency, PROFILES[args.profile], lost_at_end=args.lost_at_end)
        bench.run()
    elapsed = time.perf_counter() - started
    n = bench.cap.writer.records
    print(f"wrote {args.out}: {n} records, {args.out.stat().st_size} bytes, {bench.sessions} sessions, "
          f"{elapsed:.1f} s ({n / elapsed:,.0f} records/s)", file=sys.stderr)
    if args.verify:
        from blegen.verify import verify
        problems = verify(str(args.out), allow_truncated=True)
        print("\n".join(problems) if problems else "host-stack invariants hold", file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
