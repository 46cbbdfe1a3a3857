"""An LE Audio session as an Android 13+ phone's HCI snoop log shows it: the phone (central)
connects to an earbud, discovers PACS and ASCS, drives the ASE state machine over the ASE
Control Point, sets up a CIG and a CIS on the ACL, streams ISO data both ways, tears the CIS
down while the ACL stays up, then ends the ACL. Optionally a broadcast (BIG) too.

    python3 -m blegen.leaudio OUT.btsnoop [--iso-packets N] [--cis-failure none|status|established]
                                          [--big] [--ending host|timeout] [--seed S]

Commands and events as Core v5.4 Vol 4 Part E lays them out: LE Set CIG Parameters (7.8.97),
LE Create CIS (7.8.99), LE Remove CIG (7.8.100), LE Create BIG (7.8.103), LE Terminate BIG
(7.8.105), LE Setup ISO Data Path (7.8.109), LE Remove ISO Data Path (7.8.110), LE CIS
Established (7.7.65.25), LE Create BIG Complete (7.7.65.27), LE Terminate BIG Complete
(7.7.65.28); ISO data packets (5.4.5); ASCS/PACS UUIDs from Assigned Numbers (ASCS 0x184E,
Sink ASE 0x2BC4, Source ASE 0x2BC5, ASE Control Point 0x2BC6; PACS 0x1850, Sink PAC 0x2BC9,
Available Audio Contexts 0x2BCD).
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

from . import att, gatt, hci, l2cap
from .btsnoop import unix_us
from .gatt import Characteristic, Database, Service
from .session import MS, Capture, Central, Peripheral, bring_up, cccd_handle, discover, find_characteristic

PHONE = "5A:21:9C:3E:77:01"
EARBUD = "F4:12:FA:6B:20:11"

LE_SET_CIG_PARAMETERS = 0x2062
LE_CREATE_CIS = 0x2064
LE_REMOVE_CIG = 0x2065
LE_CREATE_BIG = 0x2068
LE_TERMINATE_BIG = 0x206A
LE_SETUP_ISO_DATA_PATH = 0x206E
LE_REMOVE_ISO_DATA_PATH = 0x206F
DISCONNECT = 0x0406

CIS_HANDLE = 0x0061
BIS_HANDLES = (0x0070, 0x0071)


def u24(v: int) -> bytes:
    return struct.pack("<I", v)[:3]


def earbud() -> Peripheral:
    services = [
        gatt.generic_access("LE Audio Earbud", 0x0941),
        gatt.generic_attribute(),
        Service(0x1850, [   # PACS
            Characteristic(0x2BC9, gatt.READ | gatt.NOTIFY,   # Sink PAC: one LC3 record
                           bytes([1, 0x06, 0, 0, 0, 0, 0, 0]) + bytes([0])),
            Characteristic(0x2BCD, gatt.READ | gatt.NOTIFY, struct.pack("<HH", 0x0006, 0x0002)),
        ], handle=0x0020),
        Service(0x184E, [   # ASCS
            Characteristic(0x2BC4, gatt.READ | gatt.NOTIFY, bytes([1, 0])),   # Sink ASE 1, Idle
            Characteristic(0x2BC5, gatt.READ | gatt.NOTIFY, bytes([2, 0])),   # Source ASE 2, Idle
            Characteristic(0x2BC6, gatt.WRITE | gatt.WRITE_WITHOUT_RESPONSE | gatt.NOTIFY, b""),
        ], handle=0x0040),
    ]
    adv = hci.ad_flags(0x06) + hci.ad_uuid16_list([0x184E, 0x1850])
    return Peripheral("LE Audio Earbud", EARBUD, Database(services), adv, hci.ad_name("LE Audio Earbud"),
                      addr_type=0, mtu=247, max_tx_octets=251)


def iso_packet(handle: int, seq: int, sdu: bytes, timestamp: int | None = None) -> bytes:
    """A complete SDU (PB 0b10) in one ISO data packet (5.4.5): the ISO_Data_Load carries
    [Time_Stamp u32], Packet_Sequence_Number u16, ISO_SDU_Length (12 bits) | Packet_Status_Flag."""
    load = (struct.pack("<I", timestamp) if timestamp is not None else b"") + struct.pack("<HH", seq & 0xFFFF, len(sdu)) + sdu
    flags = handle | 0b10 << 12 | ((1 << 14) if timestamp is not None else 0)
    return struct.pack("<BHH", 0x05, flags, len(load)) + load


def cis_established(status: int, handle: int) -> bytes:
    """LE CIS Established (7.7.65.25)."""
    return hci.le_meta(0x19, struct.pack("<BH", status, handle) + u24(0x1000) + u24(0x0800) + u24(0x4E20)
                       + u24(0x4E20) + bytes([2, 2, 2, 1, 1, 1, 1]) + struct.pack("<HHH", 120, 120, 8))


def write(out, iso_packets: int, cis_failure: str, big: bool, ending: str, seed: int) -> Capture:
    cap = Capture(out, unix_us("2026-05-02T18:30:00Z"), seed)
    phone = Central(cap, PHONE, own_addr_type=1, acl_len=251, acl_num=8)
    bud = earbud()
    phone.power_on("00:1A:7D:DA:71:44")
    phone.scan(bud)
    conn = phone.create_connection(bud, interval=24, timeout=500)
    bring_up(conn)
    services = discover(conn)
    sink = find_characteristic(services, 0x2BC4)
    source = find_characteristic(services, 0x2BC5)
    cp = find_characteristic(services, 0x2BC6)
    pac = find_characteristic(services, 0x2BC9)
    conn.request(att.read_req(pac.value))
    for ch in (sink, source, cp):
        conn.request(att.write_req(cccd_handle(ch), b"\x01\x00"))

    def ase_op(op: bytes, states: list[tuple[int, bytes]]) -> None:
        conn.request(att.write_req(cp.value, op))
        t = conn.notify(cp.value, bytes([op[0], 1, op[2] if len(op) > 2 else 1, 0, 0]), cap.now + 5 * MS)
        for h, v in states:
            t = conn.notify(h, v, t + 2 * MS)
        cap.advance_to(t + 3 * MS)

    # Config Codec (0x01), QoS (0x02), Enable (0x03) on Sink ASE 1 (ASCS 5.1-5.3)
    ase_op(bytes([0x01, 1, 1, 0x06, 0, 0, 0, 0, 0]), [(sink.value, bytes([1, 1]) + bytes(20))])
    ase_op(bytes([0x02, 1, 1, 1, 1]) + u24(10000) + bytes([0, 2]) + struct.pack("<HBHI", 120, 2, 10, 40000)[:8],
           [(sink.value, bytes([1, 2]) + bytes(15))])
    ase_op(bytes([0x03, 1, 1, 0]), [(sink.value, bytes([1, 3, 1, 1, 0]))])

    # LE Set CIG Parameters (7.8.97): one CIS, CIS_ID 1
    cig = bytes([1]) + u24(10000) + u24(10000) + bytes([0, 0, 0]) + struct.pack("<HH", 20, 20) + bytes([1]) \
        + bytes([1]) + struct.pack("<HH", 120, 120) + bytes([2, 2, 2, 2])
    phone.command_complete(hci.command(LE_SET_CIG_PARAMETERS, cig), struct.pack("<BBBH", 0, 1, 1, CIS_HANDLE))
    create = hci.command(LE_CREATE_CIS, struct.pack("<BHH", 1, CIS_HANDLE, conn.handle))
    if cis_failure == "status":
        # Command Status with an error: the CIS is never attempted (7.8.99)
        phone.command_status(create, 0x1A)   # Unsupported Remote Feature
    elif cis_failure == "established":
        phone.command_status(create)
        cap.emit(cap.now + 40 * MS, cis_established(0x3E, CIS_HANDLE))
        cap.advance(45 * MS)
    if cis_failure != "none":
        # Retried once, successfully
        cap.advance(200 * MS)
    phone.command_status(hci.command(LE_CREATE_CIS, struct.pack("<BHH", 1, CIS_HANDLE, conn.handle)))
    cap.emit(cap.now + 30 * MS, cis_established(0, CIS_HANDLE))
    cap.advance(31 * MS)
    # LE Setup ISO Data Path (7.8.109): input (host to controller) and output, HCI data path, transparent codec
    for direction in (0, 1):
        params = struct.pack("<HBB", CIS_HANDLE, direction, 0) + bytes([0x03, 0, 0, 0, 0]) + u24(0) + bytes([0])
        phone.command_complete(hci.command(LE_SETUP_ISO_DATA_PATH, params), struct.pack("<BH", 0, CIS_HANDLE))
    # Receiver Start Ready (0x04) for the Source ASE is not used: Sink ASE goes Streaming
    conn.notify(sink.value, bytes([1, 4, 1, 1, 0]), cap.now + 5 * MS)
    cap.advance(8 * MS)

    # ISO stream: one SDU each way every 10 ms; NOCP every 4 sent.
    t = cap.now
    sent = 0
    for i in range(iso_packets // 2):
        t += 10 * MS
        cap.emit(t, iso_packet(CIS_HANDLE, i, bytes((i + k) & 0xFF for k in range(40)), timestamp=t & 0xFFFFFFFF),
                 received=False)
        cap.emit(t + 2 * MS, iso_packet(CIS_HANDLE, i, bytes(40)), received=True)
        sent += 1
        if sent == 4:
            cap.emit(t + 3 * MS, hci.number_of_completed_packets([(CIS_HANDLE, 4)]))
            sent = 0
        if i % 512 == 0:
            cap.advance_to(t)
    cap.advance_to(t + 5 * MS)
    if sent:
        cap.emit(cap.now, hci.number_of_completed_packets([(CIS_HANDLE, sent)]))

    if ending == "timeout-streaming":
        # The earbud goes out of range while streaming: its ISO and ACL packets stop at once; the
        # controller ends the CIS, then the ACL, both with 0x08 one supervision timeout later.
        last = cap.now
        done = conn.event_at_or_after(last + conn.timeout * 10 * MS) + cap.uniform_us(300, 900)
        cap.emit(done - 200, hci.disconnection_complete(CIS_HANDLE, 0x08))
        cap.emit(done, hci.disconnection_complete(conn.handle, 0x08))
        cap.close()
        return cap

    # Disable (0x05) then Release (0x08), Remove ISO Data Path (7.8.110), Disconnect on the CIS
    ase_op(bytes([0x05, 1, 1]), [(sink.value, bytes([1, 5, 1, 1, 0]))])
    phone.command_complete(hci.command(LE_REMOVE_ISO_DATA_PATH, struct.pack("<HB", CIS_HANDLE, 0x03)),
                           struct.pack("<BH", 0, CIS_HANDLE))
    phone.command_status(hci.disconnect(CIS_HANDLE, 0x13))
    cap.emit(cap.now + 15 * MS, hci.disconnection_complete(CIS_HANDLE, 0x16))
    cap.advance(16 * MS)
    phone.command_complete(hci.command(LE_REMOVE_CIG, bytes([1])), bytes([0, 1]))
    ase_op(bytes([0x08, 1, 1]), [(sink.value, bytes([1, 0]))])

    if big:
        # LE Create BIG (7.8.103) on advertising set 1, two BIS; Create BIG Complete (7.7.65.27)
        params = bytes([1, 1, 2]) + u24(10000) + struct.pack("<HH", 40, 20) + bytes([2, 2, 0, 0, 0]) + bytes(16)
        phone.command_status(hci.command(LE_CREATE_BIG, params))
        cap.emit(cap.now + 20 * MS, hci.le_meta(0x1B, bytes([0, 1]) + u24(0x1000) + u24(0x4E20)
                                                + bytes([2, 2, 1, 0, 1]) + struct.pack("<HHB", 40, 8, 2)
                                                + struct.pack("<HH", *BIS_HANDLES)))
        cap.advance(21 * MS)
        for h in BIS_HANDLES:
            params = struct.pack("<HBB", h, 0, 0) + bytes([0x03, 0, 0, 0, 0]) + u24(0) + bytes([0])
            phone.command_complete(hci.command(LE_SETUP_ISO_DATA_PATH, params), struct.pack("<BH", 0, h))
        t = cap.now
        for i in range(max(iso_packets // 10, 10)):
            t += 10 * MS
            for h in BIS_HANDLES:
                cap.emit(t, iso_packet(h, i, bytes(40), timestamp=t & 0xFFFFFFFF), received=False)
            if i % 2 == 1:
                cap.emit(t + 2 * MS, hci.number_of_completed_packets([(h, 2) for h in BIS_HANDLES]))
            if i % 512 == 0:
                cap.advance_to(t)
        cap.advance_to(t + 5 * MS)
        phone.command_status(hci.command(LE_TERMINATE_BIG, bytes([1, 0x16])))
        cap.emit(cap.now + 20 * MS, hci.le_meta(0x1C, bytes([1, 0x16])))
        cap.advance(21 * MS)

    cap.advance(500 * MS)
    if ending == "host":
        conn.disconnect(0x13)
    else:
        conn.supervision_timeout(cap.now)
    cap.close()
    return cap


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--iso-packets", type=int, default=400)
    ap.add_argument("--cis-failure", choices=("none", "status", "established"), default="none")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--ending", choices=("host", "timeout", "timeout-streaming"), default="host")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    with open(args.out, "wb") as f:
        cap = write(f, args.iso_packets, args.cis_failure, args.big, args.ending, args.seed)
    print(f"wrote {args.out}: {cap.writer.records} records", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
