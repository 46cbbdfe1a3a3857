#!/usr/bin/env python3
"""Builds Android bugreport zips (`adb bugreport`) around btsnoop captures, for tests and by hand.

Deterministic: the same arguments give the same bytes (fixed member times, order and
compression, Python's zipfile with zlib). The layouts follow what dumpstate writes
(AOSP frameworks/native/cmds/dumpstate/bugreport-format.md and dumpstate.cpp):

  m         Android 6 (M): Shell zips the flat bugreport-DATE.txt alone; no snoop log in it,
            the btsnooz ring buffer in the text is the only Bluetooth log.
  n         Android 7 (N): dumpstate writes the zip: bugreport-BUILD-DATE.txt, version.txt
            ("1.0"), main_entry.txt; the snoop log lived on /sdcard then, so btsnooz only.
  o         Android 8 and later: FS/data/misc/bluetooth/logs/btsnoop_hci.log (and .last, from a
            second capture), copied by ds.AddDir("/data/misc/bluetooth/logs").
  filtered  the filtered snoop mode of newer Android: btsnoop_hci.log.filtered (and
            .filtered.last) in the same directory.
  vendor    phones that keep the log in /data/log/bt: FS/data/log/bt/btsnoop_hci.log.
  plain     no bugreport at all: the capture(s) zipped alone, as `zip plain.zip btsnoop_hci.log`
            does (any format; named by --log-name, default btsnoop_hci.log).

--log-name MEMBER puts the log under another member name (Samsung's
FS/data/log/bt/hci_snoop20250125165300.cfa, say); its rotation gets MEMBER.last.

Every layout's main text has the dumpstate header (`Build fingerprint: '...'`), a SYSTEM
PROPERTIES section with `[ro.product.model]: [...]` lines, and dumpsys bluetooth_manager's
btsnooz section made from the first capture (btsnooz v2, AOSP btif_debug_btsnoop.cc).

--btsnooz-acl-bytes N cuts every ACL record of the btsnooz section to its first N bytes (HCI
ACL header included), the packet length keeping the original size, as the ring buffer does.

--data-descriptor writes the zip as to a stream that cannot seek (a pipe): every member's local
header has general purpose bit 3 set and no sizes, and a data descriptor (PK\\7\\8, CRC-32,
sizes) follows its data (APPNOTE.TXT 4.3.9, 4.4.4), as libziparchive's ZipWriter (dumpstate's
writer) does when its output is not seekable. --store-logs stores the logs uncompressed
(method 0) instead of deflating them.

Bad inputs (--bad) for the refusal tests:
  no-log    a bugreport with no snoop log and no btsnooz section;
  damaged   the log member's deflate stream damaged in its middle;
  bomb      a 64 MiB log member of zeros that deflates about 1000:1;
  absurd    the log member's directory entries claim 4 GiB - 2 bytes uncompressed;
  empty-log the log member empty (the btsnooz section is read instead, with a warning).

Usage: make_bugreport_zip.py --layout o -o OUT.zip CAPTURE [CAPTURE_LAST]
"""
import argparse
import base64
import io
import struct
import sys
import zipfile
import zlib

DATE = (2024, 3, 1, 12, 0, 0)
BTSNOOP_EPOCH_DELTA_US = 0x00DCDDB30F2F8000
LOG_DIR = "FS/data/misc/bluetooth/logs/"


def btsnoop_records(data):
    """(flags, timestamp_us_unix, packet bytes with the H4 type) of a btsnoop v1 H4 file."""
    if data[:8] != b"btsnoop\0" or struct.unpack(">I", data[12:16])[0] != 1002:
        sys.exit("btsnooz needs a btsnoop H4 (datalink 1002) capture")
    offset, out = 16, []
    while offset + 24 <= len(data):
        _, included, flags, _, ts = struct.unpack(">IIIIq", data[offset:offset + 24])
        packet = data[offset + 24:offset + 24 + included]
        if len(packet) < included:
            break
        out.append((flags, ts - BTSNOOP_EPOCH_DELTA_US, packet))
        offset += 24 + included
    return out


def btsnooz_section(data, acl_bytes=None):
    """dumpsys bluetooth_manager's BTSNOOP_LOG_SUMMARY section (v2) for a btsnoop H4 capture.
    With `acl_bytes`, ACL records keep only their first `acl_bytes` bytes (the ring buffer keeps
    ACL payloads short: v2's packet length still says how long each was)."""
    records = []
    for flags, ts, packet in btsnoop_records(data):
        if not packet:
            continue
        h4, body, received = packet[0], packet[1:], flags & 1
        kind = {1: 0x20, 4: 0x10}.get(h4)
        if kind is None:
            pair = {2: (0x21, 0x11), 3: (0x22, 0x12), 5: (0x2D, 0x17)}.get(h4)
            if pair is None:
                continue
            kind = pair[1] if received else pair[0]
        records.append((kind, ts, body))
    stream, previous = b"", records[0][1] if records else 0
    for kind, ts, body in records:
        delta = max(0, ts - previous) & 0xFFFFFFFF
        previous = ts
        kept = body[:acl_bytes] if acl_bytes is not None and kind in (0x11, 0x21) else body
        stream += struct.pack("<HHIB", len(kept) + 1, len(body) + 1, delta, kind) + kept
    last = records[-1][1] if records else 0
    blob = struct.pack("<BQ", 2, last & 0xFFFFFFFFFFFFFFFF) + zlib.compress(stream, 9)
    text = base64.b64encode(blob).decode()
    lines = [text[i:i + 128] for i in range(0, len(text), 128)]
    return (f"--- BEGIN:BTSNOOP_LOG_SUMMARY ({len(stream)} bytes in) ---\n" + "\n".join(lines)
            + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n")


def main_text(args, btsnooz):
    fingerprint = args.fingerprint or f"{args.brand}/{args.device}/{args.device}:{args.release}/{args.build}/11269751:user/release-keys"
    properties = {
        "ro.build.fingerprint": fingerprint, "ro.build.id": args.build, "ro.build.version.release": args.release,
        "ro.product.brand": args.brand, "ro.product.device": args.device, "ro.product.manufacturer": args.manufacturer,
        "ro.product.model": args.model, "persist.bluetooth.btsnooplogmode": "full",
    }
    text = ("========================================================\n"
            "== dumpstate: 2024-03-01 12:00:00\n"
            "========================================================\n\n"
            f"Build: {args.build}\n"
            f"Build fingerprint: '{fingerprint}'\n"
            "Bootloader: unknown\nRadio: unknown\nNetwork: (unknown)\n"
            "Kernel: Linux version 5.10.0 (build@host)\n"
            "Command line: console=ttyMSM0\n"
            "Bugreport format version: 2.0\n\n"
            "------ UPTIME (uptime) ------\n up 3 days\n\n")
    # A long section before the properties, so the identity is not all in the first chunk read.
    text += "------ KERNEL LOG (dmesg) ------\n" + "".join(f"[{i:9d}.000000] line {i}\n" for i in range(40000))
    text += "------ SYSTEM PROPERTIES (getprop) ------\n"
    text += "".join(f"[{k}]: [{v}]\n" for k, v in sorted(properties.items()))
    text += "\n------ DUMPSYS (dumpsys) ------\nDUMP OF SERVICE bluetooth_manager:\nBluetooth Status\n  enabled: true\n"
    text += btsnooz
    text += "\nDUMP OF SERVICE bugreport:\ndone\n"
    return text


def add(z, name, data, compress=zipfile.ZIP_DEFLATED):
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    z.writestr(info, data, compresslevel=6 if compress == zipfile.ZIP_DEFLATED else None)


class Unseekable(io.RawIOBase):
    """A write-only stream without seek or tell: zipfile writes data descriptors to it."""

    def __init__(self, out):
        self.out = out

    def writable(self):
        return True

    def seekable(self):
        return False

    def write(self, data):
        self.out.write(data)
        return len(data)


def open_zip(args):
    if args.data_descriptor:
        args.stream = open(args.out, "wb")
        return zipfile.ZipFile(Unseekable(args.stream), "w")
    return zipfile.ZipFile(args.out, "w")


def log_method(args):
    return zipfile.ZIP_STORED if args.store_logs else zipfile.ZIP_DEFLATED


def build(args):
    try:
        build_zip(args)
    finally:
        if getattr(args, "stream", None):
            args.stream.close()


def build_zip(args):
    captures = [open(p, "rb").read() for p in args.captures]
    name = f"bugreport-{args.device}-{args.build}-2024-03-01-12-00-00"
    if args.layout == "plain":
        with open_zip(args) as z:
            member = args.log_name or "btsnoop_hci.log"
            add(z, member, captures[0], log_method(args))
            if len(captures) > 1:
                add(z, member + ".last", captures[1], log_method(args))
        return
    btsnooz = "" if args.bad == "no-log" else btsnooz_section(captures[0], args.btsnooz_acl_bytes)
    text = main_text(args, btsnooz).encode()
    log_name = {"o": LOG_DIR + "btsnoop_hci.log", "filtered": LOG_DIR + "btsnoop_hci.log.filtered",
                "vendor": "FS/data/log/bt/btsnoop_hci.log"}.get(args.layout)
    if args.log_name and log_name is not None:
        log_name = args.log_name
    with open_zip(args) as z:
        if args.layout == "m":
            add(z, name + ".txt", text)
            return
        add(z, name + ".txt", text)
        add(z, "version.txt", b"1.0" if args.layout == "n" else b"2.0")
        add(z, "main_entry.txt", (name + ".txt").encode())
        add(z, "FS/data/anr/anr_2024-03-01-11-59-00-000", b"----- pid 1234 at 2024-03-01 11:59:00 -----\n")
        add(z, "FS/data/tombstones/tombstone_00", b"*** *** *** *** *** *** *** *** *** ***\n")
        if args.bad == "no-log" or log_name is None:
            return
        if args.bad == "empty-log":
            add(z, log_name, b"")
            return
        if args.bad == "bomb":
            add(z, log_name, captures[0][:16] + bytes(64 << 20))
            return
        add(z, log_name, captures[0], zipfile.ZIP_STORED if args.bad == "absurd" else log_method(args))
        if len(captures) > 1:
            add(z, log_name + ".last", captures[1], log_method(args))
    if args.bad == "damaged":
        damage(args.out, log_name)
    if args.bad == "absurd":
        claim_size(args.out, log_name, 0xFFFFFFFE)


def member_data_offset(zipdata, name):
    """Offset of a member's data: after its local header (APPNOTE 4.3.7), name and extra field."""
    with zipfile.ZipFile(io.BytesIO(zipdata)) as z:
        info = z.getinfo(name)
    start = info.header_offset
    name_length, extra_length = struct.unpack("<HH", zipdata[start + 26:start + 30])
    return start + 30 + name_length + extra_length, info.compress_size


def damage(path, name):
    data = bytearray(open(path, "rb").read())
    offset, size = member_data_offset(bytes(data), name)
    middle = offset + size // 2
    data[middle:middle + 64] = bytes([0xFF]) * 64
    open(path, "wb").write(bytes(data))


def claim_size(path, name, size):
    """Rewrites the uncompressed size in the member's local header and central directory entry."""
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as z:
        start = z.getinfo(name).header_offset
    struct.pack_into("<I", data, start + 22, size)
    encoded = name.encode()
    at = data.find(b"PK\x01\x02")
    while at != -1:
        name_length = struct.unpack("<H", data[at + 28:at + 30])[0]
        if bytes(data[at + 46:at + 46 + name_length]) == encoded:
            struct.pack_into("<I", data, at + 24, size)
        at = data.find(b"PK\x01\x02", at + 4)
    open(path, "wb").write(bytes(data))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("captures", nargs="+", help="btsnoop capture(s): the log, then the rotated .last one")
    p.add_argument("-o", "--out", required=True)
    p.add_argument("--layout", choices=["m", "n", "o", "filtered", "vendor", "plain"], default="o")
    p.add_argument("--log-name", help="the log's member name (default: the layout's)")
    p.add_argument("--bad", choices=["no-log", "damaged", "bomb", "absurd", "empty-log"])
    p.add_argument("--data-descriptor", action="store_true",
                   help="no sizes in the local headers (bit 3): a data descriptor after each member's data")
    p.add_argument("--store-logs", action="store_true", help="store the logs uncompressed (method 0)")
    p.add_argument("--btsnooz-acl-bytes", type=int, help="cut the btsnooz section's ACL records to this many bytes")
    p.add_argument("--manufacturer", default="Google")
    p.add_argument("--model", default="Pixel 7")
    p.add_argument("--brand", default="google")
    p.add_argument("--device", default="panther")
    p.add_argument("--release", default="14")
    p.add_argument("--build", default="UQ1A.240205.004")
    p.add_argument("--fingerprint", help="default: brand/device/device:release/build/11269751:user/release-keys")
    args = p.parse_args()
    if args.bad and args.layout == "plain":
        sys.exit("--bad needs a bugreport layout")
    if args.bad in ("damaged", "bomb", "absurd", "empty-log") and args.layout in ("m", "n"):
        sys.exit(f"--bad {args.bad} needs a layout with a log member (o, filtered, vendor)")
    if args.data_descriptor and args.bad in ("damaged", "absurd"):
        sys.exit(f"--bad {args.bad} rewrites the zip in place: not with --data-descriptor")
    build(args)


if __name__ == "__main__":
    main()
