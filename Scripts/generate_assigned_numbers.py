#!/usr/bin/env python3
"""Generate BLECore's assigned-number tables from the `bumble` PyPI package.

Source: bumble 0.0.236 (Google's Python Bluetooth stack, Apache-2.0), pinned below.
  - bumble/company_ids.py  COMPANY_IDENTIFIERS            -> CompanyIdentifiers.swift
  - bumble/gatt.py         UUID.from_16_bits(0x..., name)  -> GATTNames.swift
    bumble/core.py         UUID.from_16_bits(0x..., name)  (protocol and service-class UUIDs)
    bumble/sdp.py          UUID.from_16_bits(0x..., name)  (PublicBrowseRoot)
  - bumble/core.py         Appearance.Category / *Subcategory enums -> AppearanceNames.swift

The modules are parsed as text with `ast`; nothing from bumble is imported or executed.

bumble 0.0.236 names only part of the 16-bit UUIDs (it lacks the Fitness Machine
characteristics 0x2ACC-0x2ADA, Local Time Information 0x2A0F, New Alert 0x2A46, Temperature
0x2A6E, ... 368 in all). The names it lacks come from a second source, the UUID table of the
installed tshark (Wireshark's `bluetooth_uuid_vals`, which follows the SIG's Assigned Numbers
document): the script writes a btsnoop capture with one characteristic declaration per UUID in
the SIG ranges below (`TSHARK_RANGES`), lets `tshark -V` dissect it and reads back the name it
prints for each. tshark only fills gaps: where bumble names a UUID, bumble's name stays (except
`SPEC_NAMES`). The tshark version is written in the header; `--check` needs the same version.

Usage:
    Scripts/generate_assigned_numbers.py                   # pip-downloads the wheel to a temp dir
    Scripts/generate_assigned_numbers.py --wheel PATH      # a .whl file or an unpacked wheel dir
    Scripts/generate_assigned_numbers.py --check           # fail if the checked-in files differ
    Scripts/generate_assigned_numbers.py --tshark PATH     # the tshark to read names from (default: on PATH)

When bumble names one 16-bit UUID more than once (0.0.236 gives 0x290F three names), the
first name in source order wins (gatt.py, then core.py, then sdp.py) and the others are listed
in the generated file's header.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

BUMBLE_VERSION = "0.0.236"
REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "Sources" / "BLECore" / "AssignedNumbers"
SCRIPT = "Scripts/generate_assigned_numbers.py"


# --- reading the wheel ---------------------------------------------------------------------

class WheelSource:
    """Reads `bumble/*.py` text from a .whl file or an unpacked wheel directory."""

    def __init__(self, path: Path):
        self.path = path
        self.zip = zipfile.ZipFile(path) if path.is_file() else None

    def read(self, member: str) -> str:
        if self.zip is not None:
            return self.zip.read(member).decode("utf-8")
        return (self.path / member).read_text(encoding="utf-8")


def download_wheel(dest: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "--quiet", "-d", str(dest), f"bumble=={BUMBLE_VERSION}"],
        check=True,
    )
    wheels = sorted(dest.glob(f"bumble-{BUMBLE_VERSION}-*.whl"))
    if not wheels:
        sys.exit(f"error: pip did not produce a bumble {BUMBLE_VERSION} wheel in {dest}")
    return wheels[0]


def bumble_version(src: WheelSource) -> str:
    tree = ast.parse(src.read("bumble/_version.py"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Assign, ast.Constant)):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if "__version__" in names or "version" in names:
                return node.value.value
    sys.exit("error: no __version__ in bumble/_version.py")


# --- parsing --------------------------------------------------------------------------------

def company_identifiers(src: WheelSource) -> dict[int, str]:
    tree = ast.parse(src.read("bumble/company_ids.py"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "COMPANY_IDENTIFIERS"):
            table = {}
            for k, v in zip(node.value.keys, node.value.values):
                key, name = ast.literal_eval(k), ast.literal_eval(v)
                if key in table:
                    sys.exit(f"error: company id 0x{key:04X} appears twice")
                table[key] = name
            return table
    sys.exit("error: COMPANY_IDENTIFIERS not found in bumble/company_ids.py")


def uuid16_definitions(src: WheelSource, module: str) -> list[tuple[int, str, str, str]]:
    """Every `UUID.from_16_bits(<int>, '<name>')` call: (value, name, symbol, module), in source order."""
    tree = ast.parse(src.read(module))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "from_16_bits"):
            continue
        if len(call.args) != 2:
            continue
        value, name = ast.literal_eval(call.args[0]), ast.literal_eval(call.args[1])
        symbol = node.targets[0].id if isinstance(node.targets[0], ast.Name) else "?"
        found.append((node.lineno, value, name, symbol))
    found.sort()
    return [(value, name, symbol, module) for _, value, name, symbol in found]


# Names bumble gets wrong or shortens, as the Assigned Numbers document (and Wireshark) spell them.
SPEC_NAMES = {
    0x1859: "Mesh Proxy Solicitation",        # Assigned Numbers 3.4; bumble: 'Mesh Audio Solicitation'
    0x2904: "Characteristic Presentation Format",
    0x2907: "External Report Reference",
    0x2BCA: "Sink Audio Locations",           # Assigned Numbers 3.8; bumble drops the plural
    0x2BCC: "Source Audio Locations",
    0x2BF5: "LE GATT Security Levels",        # bumble: 'E GATT Security Levels'
}


# --- tshark, the second source ----------------------------------------------------------------

# SIG 16-bit UUID ranges asked of tshark: services, declarations, descriptors, characteristics
# (Assigned Numbers 3.4, 3.5, 3.7, 3.8).
TSHARK_RANGES = [(0x1800, 0x18FF), (0x2800, 0x28FF), (0x2900, 0x29FF), (0x2A00, 0x2CFF)]
BTSNOOP_EPOCH_OFFSET_US = 0x00DCDDB30F2F8000


def tshark_version(tshark: str) -> str:
    out = subprocess.run([tshark, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"TShark \(Wireshark\) (\S+)", out)
    return m.group(1).rstrip(".") if m else out.splitlines()[0]


def tshark_uuid16_names(tshark: str, tmp: Path) -> dict[int, str]:
    """Names tshark gives 16-bit UUIDs: each UUID as the characteristic a Read By Type Response
    (ATT 0x09, Core Vol 3 Part F 3.4.4.2) declares, after a Read By Type Request for 0x2803, on
    one LE connection (LE Connection Complete, Vol 4 Part E 7.7.65.1), in a btsnoop H4 file."""
    def record(ts: int, h4: bytes, received: bool, command_or_event: bool) -> bytes:
        flags = (1 if received else 0) | (2 if command_or_event else 0)
        return struct.pack(">IIIIq", len(h4), len(h4), flags, 0, BTSNOOP_EPOCH_OFFSET_US + ts) + h4

    def acl(pdu: bytes, received: bool) -> bytes:
        l2cap = struct.pack("<HH", len(pdu), 0x0004) + pdu
        return b"\x02" + struct.pack("<HH", 0x0040 | (0x2000 if received else 0), len(l2cap)) + l2cap

    out = b"btsnoop\0" + struct.pack(">II", 1, 1002)
    complete = bytes([0x3E, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00]) + bytes(6) + struct.pack("<HHHB", 24, 0, 400, 0)
    out += record(0, b"\x04" + complete, True, True)
    ts = 0
    for lo, hi in TSHARK_RANGES:
        for uuid in range(lo, hi + 1):
            ts += 1000
            out += record(ts, acl(bytes([0x08]) + struct.pack("<HHH", 0x0001, 0xFFFF, 0x2803), False), False, False)
            out += record(ts + 500, acl(bytes([0x09, 7]) + struct.pack("<HBHH", 0x0002, 0x02, 0x0003, uuid), True), True, False)
    path = tmp / "uuid-names.btsnoop"
    path.write_bytes(out)
    text = subprocess.run([tshark, "-r", str(path), "-V"], capture_output=True, text=True, check=True).stdout
    names: dict[int, str] = {}
    for m in re.finditer(r"^\s+UUID: (.*) \(0x([0-9a-f]{4})\)$", text, re.M):
        value, name = int(m.group(2), 16), m.group(1)
        if value == 0x2803 or name.startswith("Unknown"):
            continue
        names.setdefault(value, name)
    return names

ACRONYMS = {"AV", "CD", "DVD", "HID", "HVAC", "LED", "PC", "PDA"}
SPECIAL = {"IOT": "IoT"}
SMALL = {"AND", "OR", "IN", "ON", "WITH"}


def words_from_identifier(identifier: str) -> str:
    """`HEART_RATE_SENSOR` -> `Heart Rate Sensor` (bumble names appearances only by identifier)."""
    out = []
    for i, w in enumerate(identifier.split("_")):
        if w in SPECIAL:
            out.append(SPECIAL[w])
        elif w in ACRONYMS:
            out.append(w)
        elif w in SMALL and i > 0:
            out.append(w.lower())
        else:
            out.append(w.capitalize())
    return " ".join(out)


def appearances(src: WheelSource) -> tuple[dict[int, str], dict[int, str]]:
    """(category -> name, full 16-bit appearance value -> subcategory name)."""
    tree = ast.parse(src.read("bumble/core.py"))
    appearance = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Appearance")
    enums: dict[str, dict[str, int]] = {}
    mapping: dict[str, str] = {}
    for node in appearance.body:
        if isinstance(node, ast.ClassDef):
            members = {}
            for s in node.body:
                if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                    members[s.targets[0].id] = ast.literal_eval(s.value)
            enums[node.name] = members
        elif (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id == "SUBCATEGORY_CLASSES"):
            for k, v in zip(node.value.keys, node.value.values):
                mapping[k.attr] = v.id  # Category.HEART_RATE_SENSOR: HeartRateSensorSubcategory
    categories = {value: words_from_identifier(name) for name, value in enums["Category"].items()}
    subcategories: dict[int, str] = {}
    for cat_name, class_name in mapping.items():
        cat = enums["Category"][cat_name]
        for sub_name, sub in enums[class_name].items():
            subcategories[cat << 6 | sub] = words_from_identifier(sub_name)
    return categories, subcategories


# --- Swift output ---------------------------------------------------------------------------

def swift_string(s: str) -> str:
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):X}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def header(version: str, modules: list[str], notes: list[str] = (), also: str = "") -> str:
    lines = [
        f"// Generated by {SCRIPT} from bumble {version} ({', '.join(modules)}){also} — do not edit.",
        f"// Regenerate: python3 {SCRIPT}",
    ]
    lines += [f"// {n}" for n in notes]
    return "\n".join(lines) + "\n"


def table(enum_name: str, doc: str, prefix: str, items: list[tuple[int, str]],
          comments: dict[int, str] | None = None) -> str:
    """Two parallel arrays sorted by key: the form that type-checks fastest (see AssignedNumbers.swift)."""
    items = sorted(items)
    lines = [f"/// {doc}", f"enum {enum_name} {{",
             f"    /// Keys, strictly increasing; `{prefix}Names[i]` names `{prefix}Keys[i]`.",
             f"    static let {prefix}Keys: [UInt16] = ["]
    for k, _ in items:
        lines.append(f"        0x{k:04X},")
    lines.append("    ]")
    lines.append("")
    lines.append(f"    static let {prefix}Names: [StaticString] = [")
    for k, v in items:
        c = f"  // 0x{k:04X}" + (f" {comments[k]}" if comments and k in comments else "")
        lines.append(f"        {swift_string(v)},{c}")
    lines.append("    ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(src: WheelSource, tshark_names: dict[int, str], tshark_ver: str) -> dict[str, str]:
    version = bumble_version(src)
    if version != BUMBLE_VERSION:
        sys.exit(f"error: wheel is bumble {version}, this script is pinned to {BUMBLE_VERSION}")

    companies = company_identifiers(src)
    files = {}
    files["CompanyIdentifiers.swift"] = (
        header(version, ["bumble/company_ids.py"], [f"{len(companies)} company identifiers."]) + "\n"
        + table("CompanyIdentifierTable", "Bluetooth SIG company identifiers (Assigned Numbers 7.1).",
                "company", list(companies.items()))
    )

    modules = ["bumble/gatt.py", "bumble/core.py", "bumble/sdp.py"]
    chosen: dict[int, tuple[str, str, str]] = {}
    dropped = []
    for module in modules:
        for value, name, symbol, mod in uuid16_definitions(src, module):
            if value in chosen:
                if chosen[value][0] != name:
                    dropped.append(f"0x{value:04X} {name!r} ({mod} {symbol}) dropped; kept {chosen[value][0]!r}")
                continue
            chosen[value] = (name, symbol, mod)
    for value, name in SPEC_NAMES.items():
        if value in chosen and chosen[value][0] != name:
            dropped.append(f"0x{value:04X} {chosen[value][0]!r} renamed {name!r} (the Assigned Numbers name)")
            chosen[value] = (name,) + chosen[value][1:]
    filled = []
    for value, name in sorted(tshark_names.items()):
        if value not in chosen:
            chosen[value] = (name, "tshark", "tshark")
            filled.append(value)
    notes = [f"{len(chosen)} 16-bit UUIDs; first name in source order wins; "
             f"{len(filled)} names bumble lacks are tshark {tshark_ver}'s."]
    if dropped:
        notes.append("Names bumble gives to a UUID already named:")
        notes += ["  " + d for d in dropped]
    files["GATTNames.swift"] = (
        header(version, modules, notes, also=f" and tshark {tshark_ver} (its UUID table, for the names bumble lacks)") + "\n"
        + table("UUID16NameTable",
                "Names of 16-bit SIG UUIDs: GATT services, characteristics, descriptors, declarations, "
                "protocol and service-class identifiers.",
                "uuid16", [(k, v[0]) for k, v in chosen.items()],
                {k: v[1] for k, v in chosen.items()})
    )

    categories, subcategories = appearances(src)
    files["AppearanceNames.swift"] = (
        header(version, ["bumble/core.py"], [
            "Appearance categories (value >> 6) and subcategories (full 16-bit value).",
            "bumble names them only by identifier: HEART_RATE_SENSOR is written here as 'Heart Rate Sensor'.",
        ]) + "\n"
        + table("AppearanceCategoryTable", "GAP Appearance categories, keyed by category (appearance >> 6).",
                "category", list(categories.items()))
        + "\n"
        + table("AppearanceSubcategoryTable", "GAP Appearance subcategories, keyed by the full appearance value.",
                "subcategory", list(subcategories.items()))
    )
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, help="bumble wheel (.whl) or unpacked wheel directory")
    ap.add_argument("--out", type=Path, default=OUT_DIR, help="output directory")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    ap.add_argument("--tshark", default="tshark", help="the tshark whose UUID table fills bumble's gaps")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or download_wheel(Path(tmp))
        names = tshark_uuid16_names(args.tshark, Path(tmp))
        files = generate(WheelSource(wheel), names, tshark_version(args.tshark))

    stale = []
    for name, text in files.items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
