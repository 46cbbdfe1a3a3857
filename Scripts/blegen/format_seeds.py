"""Seeds for `make fuzz` of the containers the adversarial corpus does not hold (wave 2).

    python3 -m blegen.format_seeds OUTDIR        (run from Scripts/)

`blegen.adversarial` makes hostile numbers inside well-formed containers; these are the
containers themselves, each holding the adversarial corpus's GATT session (`adversarial.session`):

  pcapng-4if, pcapng-6if   one section, Interface Description Blocks of LINKTYPE 187, 201, 272,
                           256 and 251 (draft-ietf-opsawg-pcapng 4.2) with if_tsresol 6, 9 or 2^-10
                           (4.2, option 9), packets spread over them in Enhanced Packet Blocks (4.3)
  pcapng-2sections         two sections (4.1), the second with interfaces of its own
  pcapng-undescribed       an Enhanced Packet Block naming an interface no IDB describes
  pcapng-spb               a Simple Packet Block (4.4)
  pklg, btmon-3ctl, btsnoop, pcap-201, pcap-256
                           the session as PacketLogger, btmon (three controllers), btsnoop H4,
                           pcap LINKTYPE 201 and 256 write it
and of each: `.gz` (gzip, RFC 1952), three cuts, three copies with four bits flipped, a gzip cut
at two thirds, and two gzip members joined (RFC 1952 2.2). In OUTDIR/zips, Android bugreport zips
holding the btsnoop, btmon, PacketLogger and pcapng logs in the two layouts Android has used
(`FS/data/misc/bluetooth/logs/`, `FS/data/log/bt/`, each with a `.last` log cut in half), whole,
cut and with a byte flipped; zips go through the command lines, not the reader fuzzer.

Deterministic: the cuts and flips come from a generator seeded with 7. The first of these
seeds found a read past readdir(3)'s buffer (`DirectoryEntry.name(of:)`) and a gzip capture's
scratch file left behind by a run that imported nothing.
"""

from __future__ import annotations

import gzip
import io
import random
import struct
import sys
import zipfile
from pathlib import Path

from . import adversarial as A

T0 = 1_700_000_000_000_000
SHB_TYPE = 0x0A0D0D0A
BYTE_ORDER_MAGIC = 0x1A2B3C4D
ADVERTISING_ACCESS_ADDRESS = 0x8E89BED6
# An ADV_IND header and an empty advertiser address (Core v5.4 Vol 6 Part B 2.3).
ADV_PDU = b"\x00\x06" + bytes(6)


def h4_records() -> list[tuple[int, bytes, bool]]:
    """The adversarial corpus's session, 1 ms apart from T0 (Unix µs)."""
    return [(T0 + i * 1000, packet, received) for i, (packet, received, _) in enumerate(A.session())]


def block(kind: int, body: bytes) -> bytes:
    """A pcapng block (3.1): type, total length, body padded to 32 bits, total length again."""
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)


def option(code: int, value: bytes) -> bytes:
    """A pcapng option (3.5), padded to 32 bits."""
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def section_header() -> bytes:
    """A Section Header Block (4.1), little-endian, version 1.0, section length unknown."""
    return block(SHB_TYPE, struct.pack("<IHHq", BYTE_ORDER_MAGIC, 1, 0, -1))


def interface(linktype: int, tsresol: int | None = None) -> bytes:
    """An Interface Description Block (4.2), with if_tsresol (option 9) when given."""
    options = option(9, bytes([tsresol])) + option(0, b"") if tsresol is not None else b""
    return block(1, struct.pack("<HHI", linktype, 0, 0) + options)


def enhanced_packet(interface_id: int, ticks: int, data: bytes) -> bytes:
    """An Enhanced Packet Block (4.3)."""
    ticks &= 0xFFFF_FFFF_FFFF_FFFF
    return block(6, struct.pack("<IIIII", interface_id, ticks >> 32, ticks & 0xFFFF_FFFF, len(data), len(data)) + data)


def le_ll_with_phdr() -> bytes:
    """LINKTYPE 256 (LE LL with pseudo-header): channel, signal, noise, access address offenses,
    reference access address, flags, then the access address, the PDU and a CRC."""
    aa = ADVERTISING_ACCESS_ADDRESS
    return struct.pack("<BbbBIH", 37, -50, -90, 0, aa, 0x0013) + struct.pack("<I", aa) + ADV_PDU + bytes(3)


def nordic_ble() -> bytes:
    """LINKTYPE 272 (nRF Sniffer): a version 3 header around an advertising packet."""
    body = struct.pack("<BBHB", 10, 0, 0, 0) + struct.pack("<I", ADVERTISING_ACCESS_ADDRESS) + ADV_PDU + bytes(3)
    return struct.pack("<BHBHB", 0, 6 + len(body), 3, 1, 6) + body


def packet_data(linktype: int, packet: bytes, received: bool) -> bytes:
    if linktype == 201:
        return struct.pack(">I", 1 if received else 0) + packet
    if linktype == 256:
        return le_ll_with_phdr()
    if linktype == 272:
        return nordic_ble()
    if linktype == 251:
        return struct.pack("<I", ADVERTISING_ACCESS_ADDRESS) + ADV_PDU + bytes(3)
    return packet


def multi_interface_pcapng(linktypes: list[int], rng: random.Random) -> bytes:
    """One section whose packets go round its interfaces in turn."""
    out = section_header()
    for linktype in linktypes:
        out += interface(linktype, tsresol=rng.choice([6, 9, 0x8A]))
    for i, (ts, packet, received) in enumerate(h4_records()):
        k = i % len(linktypes)
        out += enhanced_packet(k, ts, packet_data(linktypes[k], packet, received))
    return out


def pcap(linktype: int, records: list[tuple[int, bytes]]) -> bytes:
    """A classic pcap file (microseconds, little-endian)."""
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)
    return header + b"".join(struct.pack("<IIII", ts // 1_000_000, ts % 1_000_000, len(d), len(d)) + d for ts, d in records)


def containers(rng: random.Random) -> dict[str, bytes]:
    records = h4_records()
    files = {
        "pcapng-4if": multi_interface_pcapng([187, 201, 272, 256], rng),
        "pcapng-6if": multi_interface_pcapng([201, 187, 256, 251, 272, 201], rng),
        "pcapng-2sections": multi_interface_pcapng([201, 187], rng) + multi_interface_pcapng([256, 272], rng),
        "pcapng-undescribed": section_header() + interface(201)
            + enhanced_packet(5, T0, b"\0\0\0\0\x04\x0e\x04\x01\x03\x0c\x00"),
        "pcapng-spb": section_header() + interface(187) + block(3, struct.pack("<I", 4) + b"\x04\x0e\x01\x00"),
        "pklg": A.packetlogger(records),
        "btmon-3ctl": A.btsnoop_monitor([(T0 + A.EPOCH_OFFSET_US + i, p, rx, i % 3)
                                         for i, (_, p, rx) in enumerate(records)], 3),
        "btsnoop": A.btsnoop_h4([(T0 + A.EPOCH_OFFSET_US + i, p, rx) for i, (_, p, rx) in enumerate(records)]),
        "pcap-201": pcap(201, [(ts, struct.pack(">I", 1 if rx else 0) + p) for ts, p, rx in records]),
        "pcap-256": pcap(256, [(T0 + i, le_ll_with_phdr()) for i in range(5)]),
    }
    out = dict(files)
    for name, data in files.items():
        packed = gzip.compress(data, mtime=0)
        out[name + ".gz"] = packed
        for k in range(3):
            cut = rng.randrange(1, len(data))
            out[f"{name}-cut{cut}"] = data[:cut]
            flipped = bytearray(data)
            for _ in range(4):
                j = rng.randrange(len(flipped))
                flipped[j] ^= 1 << rng.randrange(8)
            out[f"{name}-flip{k}"] = bytes(flipped)
        out[name + "-gzcut.gz"] = packed[: len(packed) * 2 // 3]
        out[name + "-gzmembers.gz"] = packed + gzip.compress(data[:50], mtime=0)
    return out


def bugreports(files: dict[str, bytes]) -> dict[str, bytes]:
    out = {}
    for name in ("btsnoop", "btmon-3ctl", "pklg", "pcapng-4if"):
        for layout, member in (("misc", "FS/data/misc/bluetooth/logs/btsnoop_hci.log"), ("log", "FS/data/log/bt/btsnoop_hci.log")):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("bugreport-seed.txt", "Build fingerprint: 'seed/seed/seed'\n[ro.product.model]: [Pixel]\n")
                z.writestr(member, files[name])
                z.writestr(member + ".last", files[name][: len(files[name]) // 2])
            data = buffer.getvalue()
            out[f"{name}-{layout}.zip"] = data
            out[f"{name}-{layout}-cut.zip"] = data[: len(data) * 3 // 4]
            flipped = bytearray(data)
            flipped[len(flipped) // 3] ^= 0xFF
            out[f"{name}-{layout}-flip.zip"] = bytes(flipped)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = Path(argv[0])
    (out / "zips").mkdir(parents=True, exist_ok=True)
    files = containers(random.Random(7))
    for name, data in files.items():
        (out / name).write_bytes(data)
    zips = bugreports(files)
    for name, data in zips.items():
        (out / "zips" / name).write_bytes(data)
    print(f"{len(files)} captures, {len(zips)} bugreport zips in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
