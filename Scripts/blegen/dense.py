"""A dense, ATT-heavy session for the replay benchmark (issue 12): one central host, a fixed
number of links (default 40), most records ACL fragments of notifications, with discovery, reads
and writes between.

    python3 -m blegen.dense OUT [--records N] [--links L] [--seed S] [--concurrency C]   (run from Scripts/)

The default is the session issue 12 measured: 500,000 records, 40 links; this generator spreads them over about 640 s of traffic.
The same seed gives the same bytes (`random.Random(seed)` inside `Capture`, no wall clock); the
capture ends at the N-th record, as a snoop log copied while running does, so the last links may
still be open. Records stream to the file as the virtual clock passes them (flat memory).

Per link (blegen.session, every packet as Core v5.4 lays it out): LE Create Connection and LE
(Enhanced) Connection Complete, remote features, data length, MTU exchange (Vol 3 Part F 3.4.2),
full discovery (3.4.4, 3.4.3.1), Device Information reads, two CCCD writes (Vol 3 Part G 3.3.3.3),
then rounds of: notification streams of 100-244 byte values from a peripheral sending 27-byte LL
payloads (an L2CAP PDU of up to 248 bytes in up to 10 ACL fragments, Vol 3 Part A 7.2.1), Write
Requests, Write Commands, indications with confirmations, reads (some answered with an ATT
error), short idle gaps; the link ends by a host or peer disconnect or a supervision timeout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import att, gatt, hci
from .btsnoop import unix_us
from .gatt import Characteristic, Database, Service, uuid128
from .session import MS, Capture, Central, Peripheral, bring_up, discover, find_characteristic, \
    read_device_information, subscribe

S = 1_000_000
STREAM_SERVICE = uuid128("5E1D2001-7A43-4C1B-8F2E-6B0D9C3A4E71")
STREAM_DATA = uuid128("5E1D2002-7A43-4C1B-8F2E-6B0D9C3A4E71")
STREAM_CONTROL = uuid128("5E1D2003-7A43-4C1B-8F2E-6B0D9C3A4E71")
STREAM_CONFIG = uuid128("5E1D2004-7A43-4C1B-8F2E-6B0D9C3A4E71")


def device(cap: Capture, index: int) -> Peripheral:
    """A streaming sensor: its own address, a 247-byte MTU and 27-byte LL payloads (so a
    244-byte notification is 10 ACL fragments)."""
    rng = cap.rng
    addr = ":".join(f"{b:02X}" for b in [0xC0 | rng.getrandbits(6)] + [rng.getrandbits(8) for _ in range(5)])
    services = [
        gatt.generic_access(f"Dense Sensor {index:02d}", 0x0000),
        gatt.generic_attribute(),
        Service(STREAM_SERVICE, [
            Characteristic(STREAM_DATA, gatt.NOTIFY, b""),
            Characteristic(STREAM_CONTROL, gatt.WRITE | gatt.INDICATE, b""),
            Characteristic(STREAM_CONFIG, gatt.READ | gatt.WRITE | gatt.WRITE_WITHOUT_RESPONSE, b"\x00" * 8),
        ], handle=0x0020),
        Service(0x180F, [Characteristic(0x2A19, gatt.READ, bytes([rng.randint(5, 100)]))]),
        gatt.device_information("Dense Devices", "DS-1", "1.0.0"),
    ]
    adv = hci.ad_flags(0x06) + hci.ad_uuid128_list([STREAM_SERVICE])
    return Peripheral(f"Dense Sensor {index:02d}", addr, Database(services), adv, hci.ad_name("Dense"),
                      adv_interval_ms=100, rssi=rng.randint(-80, -45), mtu=247, max_tx_octets=27)


class Dense:
    def __init__(self, out, records: int, links: int, seed: int, concurrency: int):
        self.cap = Capture(out, unix_us("2026-04-07T09:00:00Z"), seed, limit=records)
        self.central = Central(self.cap, "4C:11:7E:20:9A:3D", own_addr_type=1, enhanced=True,
                               handle_base=0x0001, handle_count=max(12, concurrency + 2))
        self.records, self.links, self.concurrency = records, links, concurrency
        self.fleet = [device(self.cap, i) for i in range(links)]
        self.started = 0
        self.start_us = self.cap.now

    def run(self) -> None:
        cap, rng = self.cap, self.cap.rng
        self.central.power_on("00:1A:7D:DA:71:99")
        active: list = []
        # Each link's share of the records decides how many rounds it runs (~27 records a round).
        rounds = max(3, self.records // max(1, self.links) // 27)
        while not cap.full and (active or self.started < self.links):
            if self.started < self.links and len(active) < self.concurrency:
                dev = self.fleet[self.started]
                self.started += 1
                active.append(self.session(dev, rounds))
                continue
            i = rng.randrange(len(active))
            try:
                next(active[i])
            except StopIteration:
                active.pop(i)
                cap.advance(rng.randint(10 * MS, 200 * MS))
        cap.close()

    def session(self, dev: Peripheral, rounds: int):
        cap, rng, central = self.cap, self.cap.rng, self.central
        central.scan(dev, [], rng.randint(200 * MS, 600 * MS))
        conn = central.create_connection(dev, 6, 0, 400)
        yield
        bring_up(conn, data_length=True)
        services = discover(conn)
        yield
        read_device_information(conn, services)
        data = find_characteristic(services, STREAM_DATA)
        control = find_characteristic(services, STREAM_CONTROL)
        config = find_characteristic(services, STREAM_CONFIG)
        subscribe(conn, data)
        subscribe(conn, control, indications=True)
        yield
        for _ in range(rng.randint(rounds * 3 // 4, rounds * 5 // 4)):
            kind = rng.choices(("stream", "write", "wcmd", "indicate", "read", "idle"), (66, 9, 8, 5, 9, 3))[0]
            if kind == "stream":
                t = cap.now
                for _ in range(rng.randint(3, 9)):
                    value = bytes(rng.getrandbits(8) for _ in range(rng.randint(100, 244)))
                    t = conn.notify(data.value, value, t) + 100
                cap.advance_to(t)
            elif kind == "write":
                value = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 60)))
                if rng.random() < 0.1:
                    conn.request(att.write_req(control.value, value),
                                 att.error_rsp(att.WRITE_REQ, control.value, att.WRITE_NOT_PERMITTED))
                else:
                    conn.request(att.write_req(control.value, value))
            elif kind == "wcmd":
                for _ in range(rng.randint(2, 8)):
                    conn.write_command(config.value, bytes(rng.getrandbits(8) for _ in range(rng.randint(20, 120))))
                    cap.advance(rng.randint(100, 2000))
            elif kind == "indicate":
                conn.indicate(control.value, bytes(rng.getrandbits(8) for _ in range(rng.randint(2, 20))),
                              cap.now + rng.randint(0, 50 * MS))
            elif kind == "read":
                if rng.random() < 0.1:
                    conn.request(att.read_req(config.value),
                                 att.error_rsp(att.READ_REQ, config.value, att.INSUFFICIENT_AUTHENTICATION))
                else:
                    conn.request(att.read_req(config.value))
            else:
                cap.advance(rng.randint(5 * MS, 50 * MS))
            yield
        ending = rng.choices(("host", "peer", "timeout"), (60, 30, 10))[0]
        if ending == "host":
            conn.disconnect(0x13)
        elif ending == "peer":
            conn.peer_disconnects(0x13, at=cap.now + rng.randint(10 * MS, 500 * MS))
        else:
            conn.supervision_timeout(silent_from=cap.now + rng.randint(10 * MS, 300 * MS))


def write(path: Path, records: int = 500_000, links: int = 40, seed: int = 12, concurrency: int = 16) -> Dense:
    with open(path, "wb", buffering=1 << 20) as f:
        dense = Dense(f, records, links, seed, concurrency)
        dense.run()
    return dense


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=500_000)
    ap.add_argument("--links", type=int, default=40)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--concurrency", type=int, default=16, help="links open at once (at most)")
    args = ap.parse_args()
    dense = write(args.out, args.records, args.links, args.seed, args.concurrency)
    w = dense.cap.writer
    print(f"wrote {args.out}: {w.records} records, {dense.started} links, "
          f"{((w.last_ts or dense.start_us) - dense.start_us) / S:.1f} s of traffic", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
