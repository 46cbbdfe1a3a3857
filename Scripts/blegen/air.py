"""LE link-layer (air) captures as Ubertooth writes them: pcap LINKTYPE_PPI (192) around
LINKTYPE_BLUETOOTH_LE_LL (251) packets, and the same packets as a plain LINKTYPE 251 pcap.

    python3 -m blegen.air OUTDIR        (run from Scripts/)

writes ppi-ubertooth.pcap and le-ll.pcap: one session, outcome known by construction.

    python3 -m blegen.air --lost SECONDS OUT.pcap

writes a LINKTYPE 251 pcap where the sniffer follows a connection (30 ms interval, 4 s
supervision timeout) through an MTU exchange and a Read Request (handle 0x000A) the peripheral
never answers, then SECONDS more of Empty PDU events, then no more of the connection: 40 s of
the peripheral's ADV_IND every 100 ms follow (the sniffer back on the advertising channels).
With SECONDS >= 30 the request was seen unanswered for 30 s (an ATT timeout, Core v5.4 Vol 3
Part F 3.3.3); below, the capture shows neither its answer nor its timeout.

Layouts:
- PPI header ("Per-Packet Information Header Specification" 1.0.10, section 3), little-endian:
  pph_version u8 = 0, pph_flags u8 = 0, pph_len u16, pph_dlt u32 = 251; then one field of
  pfh_type u16 = 30006 (Ubertooth's PPI_BTLE), pfh_datalen u16 = 12 and its data: btle_version
  u8, btle_channel u16 (MHz), btle_clkn_high u8, btle_clk100ns u32, rssi max/min/avg i8,
  rssi_count u8.
- LE packet (tcpdump.org LINKTYPE_BLUETOOTH_LE_LL; Core v5.4 Vol 6 Part B 2.1): access address
  u32 LE, PDU (header u16, payload), CRC-24 (3 bytes, Vol 6 Part B 3.1.1).
- Advertising PDUs (Vol 6 Part B 2.3): ADV_IND (type 0), CONNECT_IND (type 5) with LLData.
- Data PDUs (Vol 6 Part B 2.4): LLID 2 start of an L2CAP PDU, 1 continuation or empty, 3 LL
  control; LL_TERMINATE_IND (opcode 0x02, error code).

Counts by construction (each file, 15 packets): 1 ADV_IND, 1 CONNECT_IND, 12 data PDUs (10
carrying ATT: 0x02 0x03 0x10 0x11 0x10 0x01 0x0A 0x0B 0x1B 0x12, one Error Response 0x0A, and 2
empty), 1 LL_TERMINATE_IND with 0x13. tshark 4.0 dissects ppi-ubertooth.pcap as
ppi:pcap_pktdata:bluetooth:btle with these counts.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att

ADV_AA = 0x8E89BED6
CONN_AA = 0x50654C17
CRC_INIT = 0x3A5F1B
ADV_CRC_INIT = 0x555555
START_S = 1_775_034_000  # 2026-04-01T09:00:00Z
ADVERTISER = "C4:7A:3B:12:9E:51"
INITIATOR = "5A:11:22:33:44:55"


def _reverse24(v: int) -> int:
    return int(f"{v:024b}"[::-1], 2)


def crc24(pdu: bytes, init: int) -> bytes:
    """CRC-24 of a PDU (header and payload), as transmitted (Vol 6 Part B 3.1.1): the LFSR is
    preset with the CRC init, fed least significant bit first; x^24+x^10+x^9+x^6+x^4+x^3+x+1."""
    state = _reverse24(init)
    for byte in pdu:
        for bit in range(8):
            nxt = (state ^ (byte >> bit)) & 1
            state >>= 1
            if nxt:
                state |= 1 << 23
                state ^= 0x5A6000
    return bytes([state & 0xFF, (state >> 8) & 0xFF, (state >> 16) & 0xFF])


def addr(a: str) -> bytes:
    return bytes(int(x, 16) for x in reversed(a.split(":")))


def adv_packet(pdu_type: int, payload: bytes, tx_random: bool = False, rx_random: bool = False) -> bytes:
    header = bytes([pdu_type | (0x40 if tx_random else 0) | (0x80 if rx_random else 0), len(payload)])
    pdu = header + payload
    return struct.pack("<I", ADV_AA) + pdu + crc24(pdu, ADV_CRC_INIT)


def data_packet(llid: int, nesn: int, sn: int, payload: bytes) -> bytes:
    header = bytes([llid | (nesn << 2) | (sn << 3), len(payload)])
    pdu = header + payload
    return struct.pack("<I", CONN_AA) + pdu + crc24(pdu, CRC_INIT)


def l2cap_att(pdu: bytes) -> bytes:
    return struct.pack("<HH", len(pdu), 0x0004) + pdu


def session() -> list[tuple[int, bytes]]:
    """(channel MHz, LE packet) in air order. Central and peripheral alternate in each
    connection event (central first); SN/NESN acknowledge as Vol 6 Part B 4.5.9 says."""
    out: list[tuple[int, bytes]] = []
    adv_data = bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock"
    out.append((2402, adv_packet(0, addr(ADVERTISER) + adv_data)))
    # CONNECT_IND: InitA, AdvA, LLData: AA, CRCInit, WinSize 2, WinOffset 0, Interval 24 (30 ms),
    # Latency 0, Timeout 400 (4 s), ChM all 37 data channels, Hop 7 | SCA 0
    ll_data = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little") + struct.pack("<BHHHH", 2, 0, 24, 0, 400)
               + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F]) + bytes([7]))
    out.append((2402, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll_data, tx_random=True)))
    central_sn = peripheral_sn = 0
    channel = 2404

    def event(central: bytes, peripheral: bytes, c_llid: int = 2, p_llid: int = 2) -> None:
        nonlocal central_sn, peripheral_sn, channel
        # Central: SN, NESN = the peripheral's next expected; peripheral acknowledges.
        out.append((channel, data_packet(c_llid if central else 1, peripheral_sn, central_sn, central)))
        out.append((channel, data_packet(p_llid if peripheral else 1, central_sn ^ 1, peripheral_sn, peripheral)))
        central_sn ^= 1
        peripheral_sn ^= 1
        channel = 2404 + (channel - 2404 + 2) % 72

    event(l2cap_att(struct.pack("<BH", att.EXCHANGE_MTU_REQ, 247)), l2cap_att(struct.pack("<BH", att.EXCHANGE_MTU_RSP, 65)))
    event(l2cap_att(struct.pack("<BHHH", 0x10, 0x0001, 0xFFFF, 0x2800)),
          l2cap_att(bytes([0x11, 0x06]) + struct.pack("<HHH", 0x0001, 0x0007, 0x1800) + struct.pack("<HHH", 0x0008, 0x000F, 0x180F)))
    event(l2cap_att(struct.pack("<BHHH", 0x10, 0x0010, 0xFFFF, 0x2800)), l2cap_att(bytes([0x01, 0x10, 0x10, 0x00, 0x0A])))
    event(l2cap_att(struct.pack("<BH", 0x0A, 0x000A)), l2cap_att(bytes([0x0B, 0x5A])))
    event(b"", l2cap_att(struct.pack("<BH", 0x1B, 0x000A) + b"\x59"))
    event(l2cap_att(struct.pack("<BH", 0x12, 0x000B) + b"\x01\x00"), b"")
    # LL_TERMINATE_IND 0x13 Remote User Terminated Connection, from the central
    out.append((channel, data_packet(3, peripheral_sn, central_sn, bytes([0x02, 0x13]))))
    return out


def ppi_record(channel: int, packet: bytes, clk100ns: int, rssi: int) -> bytes:
    btle = struct.pack("<BHBIbbbB", 0, channel, 0, clk100ns & 0xFFFFFFFF, rssi, rssi, rssi, 1)
    field = struct.pack("<HH", 30006, len(btle)) + btle
    header = struct.pack("<BBHI", 0, 0, 8 + len(field), 251)
    return header + field + packet


def pcap(link_type: int, frames: list[bytes]) -> bytes:
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link_type))
    for i, f in enumerate(frames):
        us = i * 1250
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)


def ppi_capture() -> bytes:
    s = session()
    return pcap(192, [ppi_record(ch, p, i * 12_500, -60) for i, (ch, p) in enumerate(s)])


def le_ll_capture() -> bytes:
    return pcap(251, [p for _, p in session()])


FILES = {"ppi-ubertooth.pcap": ppi_capture, "le-ll.pcap": le_ll_capture}

INTERVAL_US = 30_000


def lost_session(followed_s: float) -> list[tuple[int, bytes]]:
    """(µs from the start, LE packet): see the module's `--lost`."""
    out: list[tuple[int, bytes]] = []
    adv_data = bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock"
    adv = adv_packet(0, addr(ADVERTISER) + adv_data)
    out.append((0, adv))
    ll_data = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little") + struct.pack("<BHHHH", 2, 0, 24, 0, 400)
               + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F]) + bytes([7]))
    out.append((500, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll_data, tx_random=True)))
    t = 500 + 1_250 + INTERVAL_US
    sn = {"c": 0, "p": 0}

    def event(central: bytes, peripheral: bytes) -> None:
        nonlocal t
        out.append((t, data_packet(2 if central else 1, sn["p"], sn["c"], central)))
        out.append((t + 150, data_packet(2 if peripheral else 1, sn["c"] ^ 1, sn["p"], peripheral)))
        sn["c"] ^= 1
        sn["p"] ^= 1
        t += INTERVAL_US

    event(l2cap_att(struct.pack("<BH", att.EXCHANGE_MTU_REQ, 247)), l2cap_att(struct.pack("<BH", att.EXCHANGE_MTU_RSP, 65)))
    event(l2cap_att(struct.pack("<BH", 0x0A, 0x000A)), b"")
    for _ in range(int(followed_s * 1_000_000) // INTERVAL_US):
        event(b"", b"")
    end = t + 40_000_000
    t += 100_000
    while t < end:
        out.append((t, adv))
        t += 100_000
    return out


def lost_capture(followed_s: float) -> bytes:
    frames = lost_session(followed_s)
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 251))
    for us, f in frames:
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "--lost":
        Path(argv[3]).write_bytes(lost_capture(float(argv[2])))
        return 0
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, make in FILES.items():
        (out / name).write_bytes(make())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
