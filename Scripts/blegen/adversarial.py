"""Hostile captures: the shapes plain mutation does not reach (issue 17).

    python3 -m blegen.adversarial OUTDIR [--full] [--only NAME ...] [--list]   (run from Scripts/)

Every packet is laid out as the Core spec (v5.4) says; what is hostile is the container's
numbers: timestamps at the ends of the 64-bit range, records as large as the format allows,
tens of thousands of connection handles, reassemblies that never complete. Without `--full`
each shape is written at a small scale (the `make test` sample, a few seconds in all); with
`--full` at the scale the issue measured (`make fuzz`).

  ts-<name>.btsnoop        one GATT session (connect, MTU exchange, reads, writes, an
                           indication, notifications, disconnect) whose records carry the
                           extreme raw btsnoop timestamp <name> on the request, the response,
                           the connection complete and the disconnect: zero, minus-one, int64-max,
                           int64-min, unix-int64-max and unix-int64-min (the raw values a reader
                           turns into Unix time int64 max and min), backwards (each record an
                           hour earlier than the one before), jumps (alternating +-2^62 µs)
  ts-int64-max.pcapng      the same session in pcapng (LINKTYPE 201) with 64-bit timestamps
                           of 2^64-1 ticks: more seconds than a time_t of µs holds
  ts-int64-max-monitor.btsnoop  the session as btmon writes it (datalink 2001)
  huge-att.pklg            PacketLogger records of 64 KiB ATT (Write Requests, Notifications,
                           Read Responses), record length 65535, the largest Wireshark reads
  huge-att.btsnoop         the same in btsnoop H4 at the largest ACL packet (4 + 65535 bytes,
                           included length 65540)
  huge-fragmented.btsnoop  64 KiB L2CAP PDUs in 27-byte ACL fragments, interleaved on 8 links
                           (the sample: 251-byte fragments on 4 links)
  many-links.btsnoop       datalink 2001, 16 controllers x 3840 handles (0x0000-0x0EFF): an
                           ACL packet on each link (inferred connections), then Number Of
                           Completed Packets for each, then a second round of ACL
  never-complete.btsnoop   on each link a start fragment announcing a 65535-byte L2CAP PDU
                           whose continuations never come
  mix.btsnoop              datalink 2001: many links with NOCP, never-completing reassemblies,
                           64 KiB PDUs and extreme timestamps in one file

`--same-handle OUT` writes two controllers' links on one handle at once, each past its buffers with
its own Number Of Completed Packets, and OUT.json the per-link answers (with `--link-loss`: one
link lost with two packets its controller never returned, the other's all returned). `--links C H OUT` writes one many-links file of C controllers x H handles, `--never-complete C H
OUT` one never-complete file of C controllers x H handles, `--huge-att N OUT`
one file of N 64 KiB ATT records (PacketLogger for OUT.pklg, else btsnoop), for measuring
memory and time against the number of links and records.

The expected counts are the generator's own (`EXPECTED` per file, printed with --list): how many
records each file has and how many carry an absurd timestamp (outside 0000-9999 AD).
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

from . import att, hci, l2cap
from .btsnoop import EPOCH_OFFSET_US, unix_us

START = unix_us("2026-05-01T12:00:00Z")
PEER = "C4:7A:3B:12:9E:51"
H = 0x0040

INT64_MAX = 0x7FFF_FFFF_FFFF_FFFF
INT64_MIN = -0x8000_0000_0000_0000
# Unix µs of 0000-01-01 and 10000-01-01: what a timestamp may be before it is absurd.
PLAUSIBLE_MIN = -EPOCH_OFFSET_US
PLAUSIBLE_MAX = 253_402_300_800 * 1_000_000 - 1

# Largest ACL data length (u16) and the ATT PDU that fills it (L2CAP header 4 bytes).
ACL_MAX = 65_535
ATT_MAX = ACL_MAX - 4


# --- containers -----------------------------------------------------------------------------

def btsnoop_h4(records: list[tuple[int, bytes, bool]]) -> bytes:
    """btsnoop v1 datalink 1002; each record (raw timestamp as the file holds it, H4, received)."""
    out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 1002))
    for raw_ts, h4, received in records:
        flags = (1 if received else 0) | (0b10 if h4[0] in (0x01, 0x04) else 0)
        out += struct.pack(">IIIIQ", len(h4), len(h4), flags, 0, raw_ts & 0xFFFF_FFFF_FFFF_FFFF) + h4
    return bytes(out)


MONITOR_OPCODE = {0x01: 2, 0x04: 3}


def btsnoop_monitor(records: list[tuple[int, bytes, bool, int]], controllers: int) -> bytes:
    """btsnoop v1 datalink 2001 (btmon): flags = index << 16 | opcode (REFERENCE.md)."""
    out = bytearray(struct.pack(">8sII", b"btsnoop\0", 1, 2001))

    def record(raw_ts: int, index: int, opcode: int, body: bytes) -> None:
        out.extend(struct.pack(">IIIIQ", len(body), len(body), index << 16 | opcode, 0,
                               raw_ts & 0xFFFF_FFFF_FFFF_FFFF))
        out.extend(body)

    first = START + EPOCH_OFFSET_US
    for index in range(controllers):
        # New Index: type u8 (0 primary), bus u8, bdaddr 6, name 8 (btmon monitor/bt.h)
        name = f"hci{index}".encode()
        record(first, index, 0, struct.pack("<BB6s8s", 0, 1, bytes([index, 0x71, 0xDA, 0x7D, 0x1A, 0x00]), name))
        record(first, index, 8, b"")   # Open Index
    for raw_ts, h4, received, index in records:
        kind, body = h4[0], h4[1:]
        opcode = MONITOR_OPCODE.get(kind) or (5 if received else 4)
        record(raw_ts, index, opcode, body)
    return bytes(out)


def packetlogger(records: list[tuple[int, bytes, bool]]) -> bytes:
    """Apple PacketLogger, big-endian headers: u32 length (8 + 1 + payload), u32 seconds,
    u32 microseconds, u8 type, payload (captures/MANIFEST.md)."""
    types = {(0x01, False): 0x00, (0x04, True): 0x01, (0x02, False): 0x02, (0x02, True): 0x03}
    out = bytearray()
    for ts, h4, received in records:
        out += struct.pack(">IIIB", 9 + len(h4) - 1, ts // 1_000_000, ts % 1_000_000, types[(h4[0], received)])
        out += h4[1:]
    return bytes(out)


def pcapng_h4_phdr(records: list[tuple[int, bytes, bool]]) -> bytes:
    """pcapng, one LINKTYPE 201 interface (µs ticks, the default), Enhanced Packet Blocks with a
    64-bit tick count; each record (ticks, H4, received)."""
    def block(kind: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        return struct.pack("<II", kind, n) + body + struct.pack("<I", n)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 201, 0, 0))
    for ticks, h4, received in records:
        data = struct.pack(">I", 1 if received else 0) + h4
        ticks &= 0xFFFF_FFFF_FFFF_FFFF
        out += block(6, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), len(data)) + data)
    return out


# --- packets --------------------------------------------------------------------------------

def att_packet(pdu: bytes, received: bool, handle: int = H) -> bytes:
    pb = hci.PB_FIRST_FLUSHABLE if received else hci.PB_FIRST_NON_FLUSHABLE
    return hci.acl(handle, pb, l2cap.frame(4, pdu))


def session() -> list[tuple[bytes, bool, str]]:
    """A short GATT session; each packet with a role that decides which timestamp it gets."""
    s: list[tuple[bytes, bool, str]] = []
    s.append((hci.le_connection_complete(0, H, 0, 0, PEER, 24, 0, 400), True, "connect"))
    s.append((att_packet(struct.pack("<BH", att.EXCHANGE_MTU_REQ, 247), False), False, "request"))
    s.append((att_packet(struct.pack("<BH", att.EXCHANGE_MTU_RSP, 185), True), True, "response"))
    for handle in (0x0003, 0x0005, 0x0007):
        s.append((att_packet(struct.pack("<BH", att.READ_REQ, handle), False), False, "request"))
        s.append((att_packet(bytes([att.READ_RSP]) + b"value-%04x" % handle, True), True, "response"))
    s.append((att_packet(struct.pack("<BH", att.WRITE_REQ, 0x0010) + b"\x01\x00", False), False, "request"))
    s.append((att_packet(att.error_rsp(att.WRITE_REQ, 0x0010, att.WRITE_NOT_PERMITTED), True), True, "response"))
    s.append((att_packet(struct.pack("<BH", att.HANDLE_VALUE_IND, 0x0012) + b"\x05", True), True, "request"))
    s.append((att_packet(bytes([att.HANDLE_VALUE_CFM]), False), False, "response"))
    for i in range(3):
        s.append((att_packet(struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0014) + bytes([i]), True), True, "plain"))
    s.append((att_packet(struct.pack("<BH", att.READ_REQ, 0x0020), False), False, "request"))
    s.append((hci.disconnection_complete(H, 0x08), True, "disconnect"))
    return s


# Raw btsnoop timestamps (µs since 0000-01-01 as the file holds them, u64 bit pattern).
EXTREMES = {
    "zero": 0,
    "minus-one": -1,
    "int64-max": INT64_MAX,
    "int64-min": INT64_MIN,
    # raw values a reader turns into Unix int64 max and min (the raw minus the epoch offset)
    "unix-int64-max": INT64_MAX + EPOCH_OFFSET_US - (1 << 64),
    "unix-int64-min": INT64_MIN + EPOCH_OFFSET_US,
}


def absurd(unix_us: int) -> bool:
    return not PLAUSIBLE_MIN <= unix_us <= PLAUSIBLE_MAX


def to_unix(raw: int) -> int:
    """What a reader makes of a raw btsnoop timestamp: two's complement minus the epoch, wrapping."""
    v = (raw - EPOCH_OFFSET_US) & 0xFFFF_FFFF_FFFF_FFFF
    return v - (1 << 64) if v >= 1 << 63 else v


def extreme_session(raw: int) -> list[tuple[int, bytes, bool]]:
    """The session with `raw` on the connect, every response, one request and the disconnect."""
    out = []
    t = START + EPOCH_OFFSET_US
    requests = 0
    for h4, rx, role in session():
        t += 10_000
        stamp = t
        if role in ("connect", "response", "disconnect"):
            stamp = raw
        elif role == "request":
            requests += 1
            if requests == 3:
                stamp = raw
        out.append((stamp, h4, rx))
    return out


def backwards_session() -> list[tuple[int, bytes, bool]]:
    t = START + EPOCH_OFFSET_US
    return [(t - i * 3_600_000_000, h4, rx) for i, (h4, rx, _) in enumerate(session())]


def jumps_session() -> list[tuple[int, bytes, bool]]:
    t = START + EPOCH_OFFSET_US
    return [(t + (1 << 62) * (1 if i % 2 else -1), h4, rx) for i, (h4, rx, _) in enumerate(session())]


# --- huge records ---------------------------------------------------------------------------

# Largest ACL data length whose PacketLogger record length (8 + 1 + 4 + data) Wireshark still
# reads (its packetlogger.c takes lengths below 65536), for the tshark cross-check.
ACL_MAX_PKLG = 65_535 - 13


def huge_att_h4(count: int, acl_length: int = ACL_MAX) -> list[tuple[int, bytes, bool]]:
    """`count` ACL packets of `acl_length` data bytes, each one whole ATT PDU, after a connection."""
    recs = [(START, hci.le_connection_complete(0, H, 0, 0, PEER, 24, 0, 400), True)]
    value = bytes(i & 0xFF for i in range(acl_length - 4 - 3))
    t = START
    for i in range(count):
        t += 7_500
        kind = i % 3
        if kind == 0:
            pdu, rx = struct.pack("<BH", att.WRITE_REQ, 0x0010) + value, False
        elif kind == 1:
            pdu, rx = struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0014) + value, True
        else:
            pdu, rx = bytes([att.READ_RSP]) + value + b"\0\0", True
        recs.append((t, att_packet(pdu, rx), rx))
    recs.append((t + 10_000, hci.disconnection_complete(H, 0x13), True))
    return recs


def huge_fragmented(count: int, links: int = 8, fragment: int = 27) -> list[tuple[int, bytes, bool]]:
    """`count` 64 KiB L2CAP PDUs in `fragment`-byte ACL fragments, round-robin over `links` handles."""
    recs = []
    t = START
    for link in range(links):
        t += 1_000
        recs.append((t, hci.le_connection_complete(0, H + link, 0, 0, f"C4:7A:3B:12:9E:{link:02X}", 24, 0, 400), True))
    value = bytes(i & 0xFF for i in range(ATT_MAX - 3))
    frames = [hci.acl_fragments(H + link, l2cap.frame(4, struct.pack("<BH", att.HANDLE_VALUE_NTF, 0x0014) + value),
                                fragment, outgoing=False) for link in range(links)]
    for round_ in range(count // links):
        for i in range(len(frames[0])):
            for link in range(links):
                t += 100
                recs.append((t, frames[link][i], True))
    return recs


# --- many links -----------------------------------------------------------------------------

HANDLES_PER_CONTROLLER = 0x0F00
# ACL on handle 0x0EDC with no Connection Complete is Android/Broadcom controller diagnostics, not
# a link (Wireshark and the decoder agree): its records are stored, but it opens no connection.
DIAGNOSTIC_HANDLE = 0x0EDC


def links_opened(controllers: int, handles: int) -> int:
    """The connections a many-links or never-complete file of that size opens."""
    return controllers * sum(1 for h in range(handles) if h != DIAGNOSTIC_HANDLE)


def many_links(controllers: int, handles: int) -> list[tuple[int, bytes, bool, int]]:
    """ACL on every (controller, handle), NOCP for each, then a second round of ACL."""
    recs = []
    t = START + EPOCH_OFFSET_US
    for rnd in range(2):
        for c in range(controllers):
            for h in range(handles):
                t += 100
                recs.append((t, att_packet(struct.pack("<BH", att.WRITE_CMD, 0x0010) + bytes([rnd, c, h & 0xFF]), False, h),
                             False, c))
        for c in range(controllers):
            for first in range(0, handles, 8):
                t += 100
                counts = [(h, 1) for h in range(first, min(handles, first + 8))]
                recs.append((t, hci.number_of_completed_packets(counts), True, c))
    return recs


def never_complete(controllers: int, handles: int) -> list[tuple[int, bytes, bool, int]]:
    """On every (controller, handle), a start fragment announcing a 65535-byte L2CAP PDU with
    20 bytes of it; the continuations never come."""
    recs = []
    t = START + EPOCH_OFFSET_US
    head = struct.pack("<HH", 0xFFFF, 4) + bytes([att.HANDLE_VALUE_NTF]) + b"\x14\x00" + bytes(13)
    for c in range(controllers):
        for h in range(handles):
            t += 100
            recs.append((t, hci.acl(h, hci.PB_FIRST_FLUSHABLE, head), True, c))
    return recs


def mix(controllers: int, handles: int, huge: int) -> list[tuple[int, bytes, bool, int]]:
    recs = many_links(controllers, handles)
    recs += never_complete(controllers, handles)
    big = huge_att_h4(huge)
    recs += [(ts + EPOCH_OFFSET_US, h4, rx, 0) for ts, h4, rx in big]
    # extreme timestamps sprinkled over every 97th record
    out = []
    values = list(EXTREMES.values())
    for i, (ts, h4, rx, c) in enumerate(recs):
        if i % 97 == 5:
            ts = values[(i // 97) % len(values)]
        out.append((ts, h4, rx, c))
    return out


# --- the corpus -----------------------------------------------------------------------------

def corpus(full: bool) -> dict[str, tuple[bytes, dict]]:
    """name -> (bytes, expected): `records` and `absurd` (records with an absurd timestamp)."""
    files: dict[str, tuple[bytes, dict]] = {}

    def h4file(name: str, recs: list[tuple[int, bytes, bool]]) -> None:
        files[name] = (btsnoop_h4(recs), {"records": len(recs),
                                          "absurd": sum(absurd(to_unix(r[0])) for r in recs)})

    for name, raw in EXTREMES.items():
        h4file(f"ts-{name}.btsnoop", extreme_session(raw))
    h4file("ts-backwards.btsnoop", backwards_session())
    h4file("ts-jumps.btsnoop", jumps_session())
    recs = extreme_session(INT64_MAX)
    files["ts-int64-max-monitor.btsnoop"] = (
        btsnoop_monitor([(ts, h4, rx, 0) for ts, h4, rx in recs], 1),
        {"records": len(recs) + 2, "absurd": sum(absurd(to_unix(r[0])) for r in recs)})
    ticks = [(0xFFFF_FFFF_FFFF_FFFF if ts == INT64_MAX else ts - EPOCH_OFFSET_US, h4, rx) for ts, h4, rx in recs]
    files["ts-int64-max.pcapng"] = (pcapng_h4_phdr(ticks),
                                    {"records": len(ticks), "absurd": sum(t[0] == 0xFFFF_FFFF_FFFF_FFFF for t in ticks)})

    huge = 3000 if full else 48
    big = huge_att_h4(huge)
    pklg = huge_att_h4(huge, ACL_MAX_PKLG)
    files["huge-att.pklg"] = (packetlogger(pklg), {"records": len(pklg), "absurd": 0})
    files["huge-att.btsnoop"] = (btsnoop_h4([(ts + EPOCH_OFFSET_US, h4, rx) for ts, h4, rx in big]),
                                 {"records": len(big), "absurd": 0})
    frag = huge_fragmented(64, 8, 27) if full else huge_fragmented(4, 4, 251)
    files["huge-fragmented.btsnoop"] = (btsnoop_h4([(ts + EPOCH_OFFSET_US, h4, rx) for ts, h4, rx in frag]),
                                        {"records": len(frag), "absurd": 0})

    controllers, handles = (16, HANDLES_PER_CONTROLLER) if full else (2, 512)
    links = many_links(controllers, handles)
    files["many-links.btsnoop"] = (btsnoop_monitor(links, controllers),
                                   {"records": len(links) + 2 * controllers, "absurd": 0, "links": links_opened(controllers, handles)})
    nc = never_complete(controllers, handles)
    files["never-complete.btsnoop"] = (btsnoop_monitor(nc, controllers),
                                       {"records": len(nc) + 2 * controllers, "absurd": 0, "links": links_opened(controllers, handles)})
    m = mix(4 if full else 2, 1024 if full else 128, 200 if full else 8)
    mc = 4 if full else 2
    files["mix.btsnoop"] = (btsnoop_monitor(m, mc),
                            {"records": len(m) + 2 * mc, "absurd": sum(absurd(to_unix(r[0])) for r in m)})
    return files


def restamp(btsnoop: bytes, frames: list[int], raw: int) -> bytes:
    """A btsnoop file with the raw timestamp of each 1-based record in `frames` set to `raw`
    (the rest of the file unchanged): a real capture made hostile in one field."""
    out = bytearray(btsnoop)
    offset, frame = 16, 0
    while offset + 24 <= len(out):
        frame += 1
        included = struct.unpack_from(">I", out, offset + 4)[0]
        if frame in frames:
            struct.pack_into(">Q", out, offset + 16, raw & 0xFFFF_FFFF_FFFF_FFFF)
        offset += 24 + included
    return bytes(out)


# Two controllers, one handle: each opens a link on 0x0040 at about the same time, bursts eight
# Write Commands past its four LE ACL buffers and returns them at its own times. (controller,
# peer address, its Number Of Completed Packets as (µs after its Connection Complete, count), the
# µs of its eight writes after its Connection Complete; the first four fill the buffers, each
# later one follows a return).
SAME_HANDLE_LINKS = [
    (0, "C4:7A:3B:12:9E:51", [(10_000, 2), (20_000, 2), (30_000, 2), (40_000, 2)],
     [1_000, 1_100, 1_200, 1_300, 10_100, 10_200, 20_100, 20_200]),
    (1, "D8:3C:55:01:7B:22", [(5_000, 1), (25_000, 3), (45_000, 4)],
     [1_500, 1_600, 1_700, 1_800, 5_100, 25_100, 25_200, 25_300]),
]
SAME_HANDLE_CONNECTED = [1_000, 1_100]   # µs after the capture's start, per controller
SAME_HANDLE_END = 60_000                 # Disconnection Complete, µs after each Connection Complete


def same_handle_two_controllers() -> tuple[list[tuple[int, bytes, bool, int]], dict]:
    """A btmon capture (datalink 2001) of two controllers, each with a link on handle 0x0040 at the
    same time and its own buffer returns (Core v5.4 Vol 4 Part E 7.7.19: handles are per
    controller), and the expected answers: per link its controller, handle, Connection Complete
    time, one buffer return per packet (µs after the Connection Complete) and its write times."""
    start = START + EPOCH_OFFSET_US
    recs: list[tuple[int, bytes, bool, int]] = []
    links = []
    for (c, peer, returns, writes), connected in zip(SAME_HANDLE_LINKS, SAME_HANDLE_CONNECTED):
        recs.append((start + 100 * c, hci.le_read_buffer_size(), False, c))
        # LE Read Buffer Size return parameters: status, LE ACL data packet length u16, total packets u8
        recs.append((start + 100 * c + 50, hci.command_complete(hci.LE_READ_BUFFER_SIZE, struct.pack("<BHB", 0, 27, 4)), True, c))
        origin = start + connected
        recs.append((origin, hci.le_connection_complete(0, H, 0, 0, peer, 24, 0, 400), True, c))
        for k, w in enumerate(writes):
            pdu = struct.pack("<BH", att.WRITE_CMD, 0x0010) + bytes([c, k])
            recs.append((origin + w, att_packet(pdu, False, H), False, c))
        for at, n in returns:
            recs.append((origin + at, hci.number_of_completed_packets([(H, n)]), True, c))
        recs.append((origin + SAME_HANDLE_END, hci.disconnection_complete(H, 0x13), True, c))
        links.append({"controller": c, "handle": H, "peer": peer, "connected_us": connected,
                      "completions_us": [at for at, n in returns for _ in range(n)], "writes_us": writes})
    recs.sort(key=lambda r: r[0])
    return recs, {"links": links, "controllers": len(SAME_HANDLE_LINKS)}


def same_handle_link_loss() -> tuple[list[tuple[int, bytes, bool, int]], dict]:
    """Two controllers, a link each on handle 0x0040: controller 0's host sends four Write Commands,
    its controller returns two, then reports 0x08 Connection Timeout; controller 1's host sends four
    and its controller returns all four in between. The answer per link: the packets its own
    controller never returned (a peer that stopped acknowledging: 2 on controller 0, 0 on 1)."""
    start = START + EPOCH_OFFSET_US
    peers = ["C4:7A:3B:12:9E:51", "D8:3C:55:01:7B:22"]
    recs: list[tuple[int, bytes, bool, int]] = []
    for c, peer in enumerate(peers):
        recs.append((start + 1_000 + 100 * c, hci.le_connection_complete(0, H, 0, 0, peer, 24, 0, 400), True, c))
        for k in range(4):
            pdu = struct.pack("<BH", att.WRITE_CMD, 0x0010) + bytes([c, k])
            recs.append((start + 2_000 + 100 * c + 10 * k, att_packet(pdu, False, H), False, c))
    recs.append((start + 10_000, hci.number_of_completed_packets([(H, 2)]), True, 0))
    recs.append((start + 12_000, hci.number_of_completed_packets([(H, 4)]), True, 1))
    recs.append((start + 4_010_000, hci.disconnection_complete(H, 0x08), True, 0))
    recs.append((start + 4_020_000, hci.disconnection_complete(H, 0x13), True, 1))
    recs.sort(key=lambda r: r[0])
    return recs, {"controllers": 2, "links": [{"controller": c, "peer": p, "never_acknowledged": 2 if c == 0 else 0}
                                              for c, p in enumerate(peers)]}


def many_links_file(controllers: int, handles: int) -> bytes:
    """For timing against the number of links: `controllers` x `handles` links."""
    return btsnoop_monitor(many_links(controllers, handles), controllers)


OPTIONS = {"--full", "--list", "--only", "--restamp", "--links", "--never-complete", "--same-handle",
           "--link-loss", "--huge-att"}


def _is_number(text: str) -> bool:
    """A negative number argument (--restamp's RAW, e.g. -0x7f23224cf0d08000), not an option."""
    try:
        int(text, 0)
        return True
    except ValueError:
        return False


def main(argv: list[str]) -> int:
    args = argv[1:]
    # --help printed nothing and wrote the whole corpus into the current directory (it read as
    # an unknown flag, and no OUTDIR meant "."): help is help, and an unknown option or a
    # missing OUTDIR is a usage error that writes nothing.
    if "--help" in args or "-h" in args:
        print(__doc__.strip())
        return 0
    unknown = [a for a in args if a.startswith("-") and a not in OPTIONS and not _is_number(a)]
    if unknown:
        print(f"blegen.adversarial: unknown option {unknown[0]} (--help lists them)", file=sys.stderr)
        return 2
    full = "--full" in args
    listing = "--list" in args
    only = [a for i, a in enumerate(args) if i > 0 and args[i - 1] == "--only"]
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and not (i > 0 and args[i - 1] == "--only")]
    if "--restamp" in args:
        # python3 -m blegen.adversarial --restamp CAPTURE.btsnoop FRAME[,FRAME...] RAW OUT.btsnoop
        i = args.index("--restamp")
        frames = [int(f) for f in args[i + 2].split(",")]
        Path(args[i + 4]).write_bytes(restamp(Path(args[i + 1]).read_bytes(), frames, int(args[i + 3], 0)))
        return 0
    if "--links" in args:
        # python3 -m blegen.adversarial --links CONTROLLERS HANDLES OUT.btsnoop
        i = args.index("--links")
        Path(args[i + 3]).write_bytes(many_links_file(int(args[i + 1]), int(args[i + 2])))
        return 0
    if "--never-complete" in args:
        # python3 -m blegen.adversarial --never-complete CONTROLLERS HANDLES OUT.btsnoop
        i = args.index("--never-complete")
        controllers = int(args[i + 1])
        Path(args[i + 3]).write_bytes(btsnoop_monitor(never_complete(controllers, int(args[i + 2])), controllers))
        return 0
    if "--same-handle" in args:
        # python3 -m blegen.adversarial --same-handle OUT.btsnoop [--link-loss]  (and OUT.btsnoop.json: the answers)
        i = args.index("--same-handle")
        recs, expected = same_handle_link_loss() if "--link-loss" in args else same_handle_two_controllers()
        Path(args[i + 1]).write_bytes(btsnoop_monitor(recs, expected["controllers"]))
        Path(args[i + 1] + ".json").write_text(json.dumps(expected, indent=1))
        return 0
    if "--huge-att" in args:
        # python3 -m blegen.adversarial --huge-att COUNT OUT.pklg|OUT.btsnoop  (memory against record size)
        i = args.index("--huge-att")
        count, target = int(args[i + 1]), Path(args[i + 2])
        if target.suffix == ".pklg":
            target.write_bytes(packetlogger(huge_att_h4(count, ACL_MAX_PKLG)))
        else:
            target.write_bytes(btsnoop_h4([(ts + EPOCH_OFFSET_US, h4, rx) for ts, h4, rx in huge_att_h4(count)]))
        return 0
    if not rest and not listing:
        print("usage: python3 -m blegen.adversarial OUTDIR [--full] [--only NAME ...] [--list] (--help for more)",
              file=sys.stderr)
        return 2
    out = Path(rest[0] if rest else ".")
    if not listing:
        out.mkdir(parents=True, exist_ok=True)
    for name, (data, expected) in corpus(full).items():
        if only and name not in only:
            continue
        if not listing:
            (out / name).write_bytes(data)
        fields = " ".join(f"{k}={v}" for k, v in expected.items())
        print(f"{out / name} {fields}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
