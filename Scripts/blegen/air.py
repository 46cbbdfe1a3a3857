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

    python3 -m blegen.air --nordic VERSION OUT.pcap      (VERSION 2 or 3)
    python3 -m blegen.air --rf direction|none OUT.pcap
    python3 -m blegen.air --encrypted OUT.pcap
    python3 -m blegen.air --plain OUT.pcap
    python3 -m blegen.air --extended OUT.pcap
    python3 -m blegen.air --silent EVENTS OUT.pcap
    python3 -m blegen.air --silent-ppi EVENTS OUT.pcap
    python3 -m blegen.air --nordic-ending LENGTH OUT.pcap

write an nRF Sniffer capture (LINKTYPE 272, header version 2 or 3) of a followed connection with
LL procedures, a retransmission, a CRC error, a connection update with its instant and encryption
the sniffer cannot read (`nordic_session`); the same packets as LINKTYPE 256 (as Sniffle writes
them, with or without the direction bits; `rf_capture`) and as LINKTYPE 251 (`plain_capture`: no
CRC verdict from the sniffer); extended advertising (a chained advertisement, AUX_CONNECT_REQ
on LE Coded) and two connections followed at once (`extended_session`); a peripheral that goes
silent after EVENTS events while the central sends on until its supervision timeout
(`silent_peripheral_session`; `--silent-ppi`: the same packets at the same times as Ubertooth
writes them, PPI around LINKTYPE 251, `silent_ppi_capture`); and a link encrypted at once, with no
plaintext ATT (`encrypted_session`).

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


# nRF Sniffer for Bluetooth LE (LINKTYPE_NORDIC_BLE 272): a followed connection with the LL
# procedures, acknowledgement and encryption a real link shows; outcome known by construction.

NORDIC_INTERVAL = 24        # 30 ms before the connection update
NORDIC_NEW_INTERVAL = 40    # 50 ms from the update's instant on
NORDIC_UPDATE_EVENT = 8     # the event carrying LL_CONNECTION_UPDATE_IND
NORDIC_INSTANT = 14


def nordic_frame(version: int, packet: bytes, flags: int, channel: int, event_counter: int, time_field: int,
                 counter: int) -> bytes:
    """One nRF Sniffer frame (Wireshark's nordic_ble dissector; header version 2 or 3): board u8,
    payload length u16, protocol version u8, packet counter u16, packet id u8 (v2 0x06 EVENT_PACKET;
    v3 0x02 advertising PDU, 0x06 data PDU), then the event header: length u8 = 10, flags u8,
    channel u8, RSSI sample u8, event counter u16, delta time (v2: µs from the end of the previous
    packet to the start of this one) or timestamp (v3: µs) u32; then the LE packet."""
    aa = struct.unpack_from("<I", packet)[0]
    packet_id = 0x06 if version == 2 or aa != ADV_AA else 0x02
    event = struct.pack("<BBBBHI", 10, flags, channel, 60, event_counter, time_field & 0xFFFFFFFF)
    body = event + packet
    return struct.pack("<BHBHB", 0x4B, len(body), version, counter & 0xFFFF, packet_id) + body


def nordic_session(end_length: int = 6) -> list[tuple[int, int, int, int, bytes]]:
    """(µs from the start, flags, channel index, event counter, LE packet) in air order.

    Flags (nordic_ble): bit 0 CRC OK, bit 1 central to peripheral, bit 2 encrypted, bit 3 MIC OK.
    Events: 0 LL_VERSION_IND both ways; 1 LL_FEATURE_REQ/RSP; 2 LL_LENGTH_REQ/RSP; 3 ATT Exchange
    MTU; 4 Read Request 0x000A, Read Response; 5 the central does not acknowledge it (NESN
    unchanged) and the peripheral sends it again (same SN and bytes: a retransmission); 6 the
    peripheral's Handle Value Notification arrives with a bad CRC (a flipped bit makes it an
    Indication, flag CRC OK clear); 7 the central does not acknowledge and it comes again, good;
    8 LL_CONNECTION_UPDATE_IND (interval 24 -> 40, timeout 400 -> 500, instant 14); 9-13 Empty
    PDUs 30 ms apart; from 14 on 50 ms apart: 14 Write Request 0x000B / Write Response; 15
    LL_ENC_REQ / LL_ENC_RSP; 16 LL_START_ENC_REQ; 17 LL_START_ENC_RSP both ways, encrypted (MIC
    not checked: the sniffer has no key); 18-20 encrypted L2CAP both ways; 21 an encrypted LL
    Control PDU of 6 bytes from the central (LL_TERMINATE_IND, unreadable), the peripheral's
    Empty PDU; then the peripheral advertises again, every 100 ms for 1 s. `end_length` other than
    6 makes event 21's encrypted LL Control PDU that long instead (`--nordic-ending LENGTH`).

    Counts by construction: 2 ADV_IND before the connection, 1 CONNECT_IND, 10 after; ATT (as
    the hosts see it, each PDU once): 0x02 0x03 0x0A 0x0B 0x1B 0x12 0x13 = 7; retransmissions 2;
    CRC-bad 1; encrypted non-empty PDUs 10."""
    out: list[tuple[int, int, int, int, bytes]] = []
    adv_data = bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock"
    adv = adv_packet(0, addr(ADVERTISER) + adv_data)
    out.append((0, 0x01, 37, 0, adv))
    out.append((400, 0x01, 38, 0, adv))
    ll_data = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little")
               + struct.pack("<BHHHH", 2, 0, NORDIC_INTERVAL, 0, 400) + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 7]))
    out.append((800, 0x01, 38, 0, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll_data, tx_random=True)))
    t = 800 + 1_250 + 2_500
    ev = 0
    sn = {"c": 0, "p": 0}
    nesn = {"c": 0, "p": 0}

    def send(side: str, llid: int, payload: bytes, at: int, ack: bool = True, new: bool = True,
             flags: int = 0x01, packet: bytes | None = None) -> None:
        """One PDU from `side`; `ack` False leaves the sender's NESN where it was (a NACK)."""
        peer = "p" if side == "c" else "c"
        flag = flags | (0x02 if side == "c" else 0)
        out.append((at, flag, (ev + 1) * 7 % 37, ev, packet or data_packet(llid, nesn[side], sn[side], payload)))
        _ = (peer, ack, new)

    def event(c: tuple[int, bytes] | None, p: tuple[int, bytes] | None, *, c_flags: int = 0x01,
              p_flags: int = 0x01, c_acks: bool = True, p_repeat: bytes | None = None,
              p_bad: bytes | None = None, interval: int = NORDIC_INTERVAL) -> None:
        nonlocal t, ev
        c_llid, c_payload = c if c else (1, b"")
        send("c", c_llid, c_payload, t, flags=c_flags)
        # The peripheral received the central's PDU: acknowledges it, takes the next SN.
        nesn["p"] = sn["c"] ^ 1
        p_llid, p_payload = p if p else (1, b"")
        if p_repeat is not None:
            out.append((t + 500, 0x01, (ev + 1) * 7 % 37, ev, p_repeat))
        elif p_bad is not None:
            out.append((t + 500, 0x00, (ev + 1) * 7 % 37, ev, p_bad))
        else:
            send("p", p_llid, p_payload, t + 500, flags=p_flags)
        sn["c"] ^= 1
        if c_acks:
            nesn["c"] = sn["p"] ^ 1
            sn["p"] ^= 1
        t += interval * 1_250
        ev += 1

    def ctrl(op: int, params: bytes = b"") -> tuple[int, bytes]:
        return (3, bytes([op]) + params)

    def l2(pdu: bytes) -> tuple[int, bytes]:
        return (2, l2cap_att(pdu))

    event(ctrl(0x0C, struct.pack("<BHH", 0x0D, 0x0059, 0x0001)), ctrl(0x0C, struct.pack("<BHH", 0x0C, 0x000F, 0x2222)))
    event(ctrl(0x08, bytes([0xFF, 0x79, 0x01, 0, 0, 0, 0, 0])), ctrl(0x09, bytes([0x2F, 0x00, 0, 0, 0, 0, 0, 0])))
    event(ctrl(0x14, struct.pack("<HHHH", 251, 2120, 251, 2120)), ctrl(0x15, struct.pack("<HHHH", 251, 2120, 251, 2120)))
    event(l2(struct.pack("<BH", att.EXCHANGE_MTU_REQ, 247)), l2(struct.pack("<BH", att.EXCHANGE_MTU_RSP, 65)))
    read_rsp = l2(bytes([att.READ_RSP, 0x5A]))
    event(l2(struct.pack("<BH", att.READ_REQ, 0x000A)), read_rsp, c_acks=False)
    # The peripheral did not see its Read Response acknowledged: the same SN and bytes again.
    event(None, None, p_repeat=data_packet(2, nesn["p"] if False else (sn["c"] ^ 1), sn["p"], read_rsp[1]))
    ntf = l2cap_att(struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x000A) + b"\x59")
    bad = bytearray(data_packet(2, sn["c"] ^ 1, sn["p"], ntf))
    bad[4 + 2 + 4] ^= 0x06   # 0x1B -> 0x1D on air; the CRC no longer matches
    event(None, None, p_bad=bytes(bad), c_acks=False)
    event(None, l2(struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x000A) + b"\x59"))
    event(ctrl(0x00, struct.pack("<BHHHHH", 1, 0, NORDIC_NEW_INTERVAL, 0, 500, NORDIC_INSTANT)), None)
    while ev < NORDIC_INSTANT - 1:
        event(None, None)
    event(None, None, interval=NORDIC_NEW_INTERVAL + 0)   # the last 30 ms event; the instant follows
    event(l2(struct.pack("<BH", att.WRITE_REQ, 0x000B) + b"\x01\x00"), l2(bytes([att.WRITE_RSP])),
          interval=NORDIC_NEW_INTERVAL)
    event(ctrl(0x03, bytes(range(22))), ctrl(0x04, bytes(range(100, 112))), interval=NORDIC_NEW_INTERVAL)
    event(None, ctrl(0x05), interval=NORDIC_NEW_INTERVAL)
    enc = 0x01 | 0x04
    event((3, bytes([0x9C, 0x11, 0x52, 0xE0, 0x07])), (3, bytes([0x31, 0xA8, 0x4D, 0x02, 0xF6])),
          c_flags=enc, p_flags=enc, interval=NORDIC_NEW_INTERVAL)
    for i in range(3):
        event((2, bytes((i * 37 + k * 11) & 0xFF for k in range(15))), (2, bytes((i * 53 + k * 7) & 0xFF for k in range(13))),
              c_flags=enc, p_flags=enc, interval=NORDIC_NEW_INTERVAL)
    event((3, bytes((0x5E + 0x35 * k) & 0xFF for k in range(end_length)) if end_length != 6
           else bytes([0x5E, 0xC3, 0x19, 0x88, 0x20, 0x4B])), None, c_flags=enc, interval=NORDIC_NEW_INTERVAL)
    t += 100_000
    for _ in range(10):
        out.append((t, 0x01, 37, 0, adv))
        t += 100_000
    return out



def encrypted_session() -> list[tuple[int, int, int, int, bytes]]:
    """As `nordic_session`, a link encrypted at once: CONNECT_IND, LL_ENC_REQ/RSP (event 0),
    LL_START_ENC_REQ (1), LL_START_ENC_RSP both ways encrypted (2), 20 events of encrypted L2CAP
    both ways (3-22), 5 events of Empty PDUs; no plaintext ATT at all (the MTU exchange, if any,
    was encrypted). The first ciphertext is packet 7."""
    out: list[tuple[int, int, int, int, bytes]] = []
    adv = adv_packet(0, addr(ADVERTISER) + bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock")
    out.append((0, 0x01, 37, 0, adv))
    ll_data = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little")
               + struct.pack("<BHHHH", 2, 0, NORDIC_INTERVAL, 0, 400) + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 7]))
    out.append((800, 0x01, 37, 0, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll_data, tx_random=True)))
    t, ev, sn = 5_000, 0, [0, 0]

    def event(c: tuple[int, bytes] | None, p: tuple[int, bytes] | None, flags: int = 0x01) -> None:
        nonlocal t, ev
        c_llid, c_payload = c or (1, b"")
        p_llid, p_payload = p or (1, b"")
        out.append((t, flags | 0x02, (ev + 1) * 7 % 37, ev, data_packet(c_llid, sn[1], sn[0], c_payload)))
        out.append((t + 500, flags, (ev + 1) * 7 % 37, ev, data_packet(p_llid, sn[0] ^ 1, sn[1], p_payload)))
        sn[0] ^= 1
        sn[1] ^= 1
        t += NORDIC_INTERVAL * 1_250
        ev += 1

    event((3, bytes([0x03]) + bytes(range(22))), (3, bytes([0x04]) + bytes(range(100, 112))))
    event(None, (3, bytes([0x05])))
    event((3, bytes([0x9C, 0x11, 0x52, 0xE0, 0x07])), (3, bytes([0x31, 0xA8, 0x4D, 0x02, 0xF6])), 0x05)
    for i in range(20):
        event((2, bytes((i * 31 + k) & 0xFF for k in range(11))), (2, bytes((i * 17 + k) & 0xFF for k in range(9))), 0x05)
    for _ in range(5):
        event(None, None)
    return out



EXT_ADVERTISER = "D0:11:22:33:44:66"
CHAIN_ADVERTISER = "E1:22:33:44:55:77"
EXT_AA = 0x71764129
EXT_CRC_INIT = 0x123456
CHAINED_NAME = b"ChainedAdvertiserName"


def extended_header(mode: int, adva: str | None = None, targeta: str | None = None, adi: int | None = None,
                    aux_channel: int | None = None, aux_phy: int = 0) -> bytes:
    """Common Extended Advertising Payload header (Core v5.4 Vol 6 Part B 2.3.4): length | AdvMode,
    flags (0x01 AdvA, 0x02 TargetA, 0x08 ADI, 0x10 AuxPtr), then the fields in that order. AuxPtr:
    channel index (6 bits), CA 0, offset units 0 (30 µs); aux offset 10 (13 bits), aux PHY (3 bits)."""
    flags, body = 0, b""
    if adva:
        flags |= 0x01
        body += addr(adva)
    if targeta:
        flags |= 0x02
        body += addr(targeta)
    if adi is not None:
        flags |= 0x08
        body += struct.pack("<H", adi)
    if aux_channel is not None:
        flags |= 0x10
        body += bytes([aux_channel & 0x3F, 10, aux_phy << 5])
    h = bytes([flags]) + body
    return bytes([len(h) | (mode << 6)]) + h


def extended_session() -> list[tuple[int, int, int, int, bytes]]:
    """(µs, nRF flags, channel index, event counter, LE packet): extended advertising and two
    connections followed at once.

    1-3: a non-connectable advertiser (CHAIN_ADVERTISER, SID 1) whose Complete Local Name
    CHAINED_NAME is split over ADV_EXT_IND -> AUX_ADV_IND (AdvA, first 10 bytes of data, AuxPtr)
    -> AUX_CHAIN_IND (ADI only, the rest; nRF flags aux type 1); 4-7: a connectable advertiser
    (EXT_ADVERTISER "Ext", SID 2) on LE Coded: ADV_EXT_IND, AUX_ADV_IND, AUX_CONNECT_REQ (access
    address EXT_AA, 50 ms) and AUX_CONNECT_RSP; 8-9: ADV_IND and CONNECT_IND (CONN_AA, 30 ms) of
    ADVERTISER "Lock". Then both connections' events interleaved: each reads handle 0x0003 once
    (Read Request / Read Response); the central ends CONN_AA in its event 25 (LL_TERMINATE_IND
    0x13), the peripheral ends EXT_AA in its event 29 (LL_TERMINATE_IND 0x13)."""
    out: list[tuple[int, int, int, int, bytes]] = []
    coded = 2 << 4
    adi = (1 << 12) | 0x123
    ad = bytes([len(CHAINED_NAME) + 1, 0x09]) + CHAINED_NAME
    out.append((0, 0x01, 37, 0, adv_packet(7, extended_header(0, adi=adi, aux_channel=3))))
    out.append((300, 0x01, 3, 0, adv_packet(7, extended_header(0, adva=CHAIN_ADVERTISER, adi=adi, aux_channel=9) + ad[:10],
                                            tx_random=True)))
    out.append((600, 0x01 | (1 << 1), 9, 0, adv_packet(7, extended_header(0, adi=adi) + ad[10:])))
    adi2 = (2 << 12) | 0x456
    out.append((1_000, 0x01 | coded, 37, 0, adv_packet(7, extended_header(1, adi=adi2, aux_channel=5, aux_phy=2))))
    out.append((1_400, 0x01 | coded, 5, 0, adv_packet(7, extended_header(1, adva=EXT_ADVERTISER, adi=adi2)
                                                     + bytes([0x02, 0x01, 0x06, 0x04, 0x09]) + b"Ext")))
    ll = (struct.pack("<I", EXT_AA) + EXT_CRC_INIT.to_bytes(3, "little") + struct.pack("<BHHHH", 2, 0, 40, 0, 300)
          + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 5]))
    out.append((1_800, 0x01 | coded, 5, 0, adv_packet(5, addr(INITIATOR) + addr(EXT_ADVERTISER) + ll, tx_random=True)))
    out.append((2_100, 0x01 | coded, 5, 0, adv_packet(8, extended_header(0, adva=EXT_ADVERTISER, targeta=INITIATOR),
                                                     rx_random=True)))
    adv = adv_packet(0, addr(ADVERTISER) + bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock")
    out.append((3_000, 0x01, 37, 0, adv))
    ll1 = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little") + struct.pack("<BHHHH", 2, 0, 24, 0, 400)
           + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 7]))
    out.append((3_400, 0x01, 37, 0, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll1, tx_random=True)))

    def packet(aa: int, crc_init: int, llid: int, nesn: int, sn: int, payload: bytes) -> bytes:
        pdu = bytes([llid | (nesn << 2) | (sn << 3), len(payload)]) + payload
        return struct.pack("<I", aa) + pdu + crc24(pdu, crc_init)

    links = {EXT_AA: {"sn": [0, 0], "crc": EXT_CRC_INIT, "phy": coded, "ev": 0, "name": b"Ext"},
             CONN_AA: {"sn": [0, 0], "crc": CRC_INIT, "phy": 0, "ev": 0, "name": b"Lock"}}

    def event(aa: int, t: int, c: tuple[int, bytes] | None = None, p: tuple[int, bytes] | None = None) -> None:
        link = links[aa]
        sn, ev = link["sn"], link["ev"]
        c_llid, c_payload = c or (1, b"")
        p_llid, p_payload = p or (1, b"")
        out.append((t, 0x03 | link["phy"], ev % 37, ev, packet(aa, link["crc"], c_llid, sn[1], sn[0], c_payload)))
        out.append((t + 900, 0x01 | link["phy"], ev % 37, ev, packet(aa, link["crc"], p_llid, sn[0] ^ 1, sn[1], p_payload)))
        sn[0] ^= 1
        sn[1] ^= 1
        link["ev"] = ev + 1

    events = sorted([(5_000 + i * 50_000, EXT_AA, i) for i in range(30)] + [(8_000 + i * 30_000, CONN_AA, i) for i in range(26)])
    for t, aa, i in events:
        read = ((2, l2cap_att(struct.pack("<BH", att.READ_REQ, 0x0003))), (2, l2cap_att(bytes([att.READ_RSP]) + links[aa]["name"])))
        if i == 2 + (aa == CONN_AA):
            event(aa, t, *read)
        elif aa == EXT_AA and i == 29:
            event(aa, t, None, (3, bytes([0x02, 0x13])))
        elif aa == CONN_AA and i == 25:
            event(aa, t, (3, bytes([0x02, 0x13])), None)
        else:
            event(aa, t)
    out.sort(key=lambda f: f[0])
    return out



def silent_peripheral_session(answered_events: int) -> list[tuple[int, int, int, int, bytes]]:
    """(µs, nRF flags, channel index, event counter, LE packet): CONNECT_IND (30 ms interval,
    supervision timeout 100 = 1 s), `answered_events` connection events with both sides' Empty
    PDUs, then the peripheral is gone: the central sends on alone, its PDU unacknowledged (same
    SN) every event for 34 events (1.02 s, past the 1 s timeout; Core v5.4 Vol 6 Part B 4.5.2)
    and stops; another device's ADV_IND every 100 ms for 3 s follows. With `answered_events` 0
    the peripheral never answers: the central gives up after 6 events (0x3E)."""
    out: list[tuple[int, int, int, int, bytes]] = []
    out.append((0, 0x01, 37, 0, adv_packet(0, addr(ADVERTISER) + bytes([0x02, 0x01, 0x06, 0x05, 0x09]) + b"Lock")))
    ll_data = (struct.pack("<I", CONN_AA) + CRC_INIT.to_bytes(3, "little") + struct.pack("<BHHHH", 2, 0, 24, 0, 100)
               + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 7]))
    out.append((800, 0x01, 37, 0, adv_packet(5, addr(INITIATOR) + addr(ADVERTISER) + ll_data, tx_random=True)))
    t, sn = 5_000, [0, 0]
    for ev in range(answered_events):
        out.append((t, 0x03, ev % 37, ev, data_packet(1, sn[1], sn[0], b"")))
        out.append((t + 500, 0x01, ev % 37, ev, data_packet(1, sn[0] ^ 1, sn[1], b"")))
        sn[0] ^= 1
        sn[1] ^= 1
        t += 30_000
    for ev in range(answered_events, answered_events + (34 if answered_events else 6)):
        out.append((t, 0x03, ev % 37, ev, data_packet(1, sn[1], sn[0], b"")))
        t += 30_000
    other = adv_packet(0, addr("11:22:33:44:55:66") + bytes([0x02, 0x01, 0x06]))
    for i in range(30):
        out.append((t + i * 100_000, 0x01, 37, 0, other))
    return out


def nordic_capture(version: int = 2, encrypted: bool = False, extended: bool = False,
                   silent_after: int | None = None, end_length: int = 6) -> bytes:
    """The `nordic_session` (or `encrypted_session`, `extended_session`) as pcap LINKTYPE 272:
    pcap times are the packets' times; the header's delta time (v2) or timestamp (v3) agrees."""
    frames = (silent_peripheral_session(silent_after) if silent_after is not None else extended_session() if extended
              else encrypted_session() if encrypted else nordic_session(end_length))
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 272))
    previous_end = 0
    for i, (us, flags, channel, counter, packet) in enumerate(frames):
        airtime = 8 * (1 + len(packet))   # LE 1M: preamble and packet, 1 µs a bit
        time_field = us - previous_end if version == 2 else us
        previous_end = us + airtime
        f = nordic_frame(version, packet, flags, channel, counter, time_field, i)
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)



def silent_ppi_capture(answered_events: int) -> bytes:
    """The `silent_peripheral_session` as pcap LINKTYPE_PPI (192) around LINKTYPE 251 (as Ubertooth
    writes it): each packet at its time, its channel the data channel's RF frequency."""
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 192))
    for us, _flags, channel, _counter, packet in silent_peripheral_session(answered_events):
        f = ppi_record(2402 + 2 * rf_channel(channel), packet, us * 10, -60)
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)


def rf_channel(index: int) -> int:
    """RF channel 0-39 of link-layer channel index `index` (Core v5.4 Vol 6 Part A 2, Part B 1.4.1)."""
    return {37: 0, 38: 12, 39: 39}.get(index, index + 1 if index <= 10 else index + 2)


def plain_capture() -> bytes:
    """The `nordic_session` as pcap LINKTYPE 251 (no pseudo-header, as Ubertooth writes it without
    PPI): no direction, no event counter, and no CRC verdict; the bad-CRC packet is known as
    such only by checking its CRC against the CONNECT_IND's CRCInit (Core v5.4 Vol 6 Part B 3.1.1)."""
    return pcap_at(251, [(us, packet) for us, _flags, _channel, _counter, packet in nordic_session()])


def pcap_at(link_type: int, frames: list[tuple[int, bytes]]) -> bytes:
    """A pcap of `link_type` with each frame at its µs from START_S."""
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link_type))
    for us, f in frames:
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)


def rf_capture(with_direction: bool) -> bytes:
    """The `nordic_session` as pcap LINKTYPE 256 (LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR, as Sniffle
    writes it): RF channel u8, signal i8 = -60, noise i8, access address offenses u8, reference
    access address u32, flags u16: 0x0001 dewhitened, 0x0002 signal valid, 0x0400 CRC checked,
    0x0800 CRC valid (from the session's CRC OK flag), PDU type << 7 (2 central to peripheral, 3
    peripheral to central) when `with_direction`, else 0 (unspecified). No event counter: the
    reader knows connection events only from the times."""
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 256))
    for us, flags, channel, _counter, packet in nordic_session():
        aa = struct.unpack_from("<I", packet)[0]
        phdr_flags = 0x0001 | 0x0002 | 0x0400 | (0x0800 if flags & 0x01 else 0)
        if with_direction and aa != ADV_AA:
            phdr_flags |= (2 if flags & 0x02 else 3) << 7
        f = struct.pack("<BbbBIH", rf_channel(channel), -60, -95, 0, 0, phdr_flags) + packet
        out += struct.pack("<IIII", START_S + us // 1_000_000, us % 1_000_000, len(f), len(f)) + f
    return bytes(out)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "--nordic":
        Path(argv[3]).write_bytes(nordic_capture(int(argv[2])))
        return 0
    if len(argv) == 4 and argv[1] == "--nordic-ending":
        Path(argv[3]).write_bytes(nordic_capture(2, end_length=int(argv[2])))
        return 0
    if len(argv) == 4 and argv[1] == "--silent":
        Path(argv[3]).write_bytes(nordic_capture(2, silent_after=int(argv[2])))
        return 0
    if len(argv) == 4 and argv[1] == "--silent-ppi":
        Path(argv[3]).write_bytes(silent_ppi_capture(int(argv[2])))
        return 0
    if len(argv) == 3 and argv[1] == "--extended":
        Path(argv[2]).write_bytes(nordic_capture(2, extended=True))
        return 0
    if len(argv) == 3 and argv[1] == "--plain":
        Path(argv[2]).write_bytes(plain_capture())
        return 0
    if len(argv) == 3 and argv[1] == "--encrypted":
        Path(argv[2]).write_bytes(nordic_capture(2, encrypted=True))
        return 0
    if len(argv) == 4 and argv[1] == "--rf":
        Path(argv[3]).write_bytes(rf_capture(argv[2] == "direction"))
        return 0
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
