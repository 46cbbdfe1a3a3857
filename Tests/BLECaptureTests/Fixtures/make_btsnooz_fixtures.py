#!/usr/bin/env python3
"""Writes the btsnooz bugreport fixtures for BtsnoozReaderTests.

Mirrors the layout AOSP's btif_debug_btsnoop.cc dumps into a bugreport: a
"--- BEGIN:BTSNOOP_LOG_SUMMARY (N bytes in) ---" line, base64 of (u8 version,
u64 last timestamp LE, zlib(records)) in 128-character lines, then
"--- END:BTSNOOP_LOG_SUMMARY ---". Record headers are little-endian:
v1 <HIB (length, delta, type), v2 <HHIB (length, packet length, delta, type);
length counts the type byte. Times are microseconds (Unix epoch), as AOSP stores them.

Run from this folder: python3 make_btsnooz_fixtures.py
"""
import base64
import struct
import zlib

LAST_US = 1_700_000_000_123_456

# (type, delta_us, included bytes, original packet length without the type byte)
RECORDS = [
    (0x20, 0, bytes.fromhex("030c00"), 3),                             # HCI Reset
    (0x10, 1500, bytes.fromhex("0e0401030c00"), 6),                    # Command Complete (Reset)
    (0x21, 2_000_000, bytes.fromhex("40000700030004000a0300"), 11),    # ACL: ATT Read Request 0x0003
    (0x11, 25_000, bytes.fromhex("40001a00160004000102030405 06".replace(" ", "")), 30),  # ACL in, cut to 14 of 30 bytes
    (0x10, 4_000_000_000, bytes.fromhex("050400400013"), 6),              # Disconnection Complete 0x13
    (0x2D, 7, bytes.fromhex("60000400aabbccdd"), 8),                   # ISO out
]


def stream(version):
    out = b""
    for kind, delta, data, original in RECORDS:
        if version == 1:
            out += struct.pack("<HIB", len(data) + 1, delta, kind)
        else:
            out += struct.pack("<HHIB", len(data) + 1, original + 1, delta, kind)
        out += data
    return out


def bugreport(version):
    records = stream(version)
    blob = struct.pack("<BQ", version, LAST_US) + zlib.compress(records)
    text = base64.b64encode(blob).decode()
    lines = [text[i:i + 128] for i in range(0, len(text), 128)]
    return (
        "========================================================\n"
        "== dumpstate: 2023-11-14 22:13:20\n"
        "========================================================\n"
        "Build: UQ1A.240105.004\n"
        "\n"
        "DUMP OF SERVICE bluetooth_manager:\n"
        "Bluetooth Status\n"
        "  enabled: true\n"
        f"--- BEGIN:BTSNOOP_LOG_SUMMARY ({len(records)} bytes in) ---\n"
        + "\n".join(lines)
        + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n"
        "\nDUMP OF SERVICE bugreport:\n"
        "done\n"
    )


for version in (1, 2):
    with open(f"bugreport-btsnooz-v{version}.txt", "w") as f:
        f.write(bugreport(version))
