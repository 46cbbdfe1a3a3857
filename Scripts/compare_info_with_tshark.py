#!/usr/bin/env python3
"""Compare `blereplay timeline --json` summaries with tshark's Info column, packet by packet.

    compare_info_with_tshark.py [--blereplay PATH] [--examples N] [--all] [FILE|DIR ...]

With no FILE, compares every HCI capture in ../shared/captures (btsnoop, pklg, HCI pcap and
pcapng; air captures are skipped) and the generated edge shapes, which it writes to a
temporary directory with `python3 -m blegen.shapes`. For each packet it takes tshark's
`frame.number`, `_ws.col.Info` and a few dissector fields (opcode, event code, status, reason,
handle, number of reports), and our NDJSON line with the same frame number (`id`), then groups
the packet by tshark's idea of its type:

    HCI cmd 0xOOOO            a command, by opcode
    HCI evt 0xCC              an event, by code
    HCI evt 0x0e/0xOOOO       Command Complete (0x0e) / Command Status (0x0f), by opcode
    HCI evt 0x3e/0xSS         LE Meta, by sub-event
    ATT 0xOO                  ATT, by opcode
    SMP 0xOO                  SMP, by code
    L2CAP sig 0xCC            L2CAP signalling (LE and BR/EDR), by code

and runs these checks (a failure is a disagreement, listed by type and check with example
frames; exit status 1 when there is one):

    direction   tshark's first word (Sent/Rcvd) differs from ours
    name        tshark's name of the command/event/sub-event/opcode/code is not ours
                (compared without case, `_`, `[vN]`, after the renames listed below)
    opcode      a vendor or unknown command whose opcode we print differently
    handle      a `Handle: 0x…` in tshark's Info (ATT) that is not in ours, in the same order
    range       a `0x…..0x…` handle range in tshark's Info that is not in ours
    uuid        the attribute type tshark names in a request (Read By Type, Read By Group Type,
                Find By Type Value) or in a Find Information Response is not ours
    error       an ATT Error Response code (tshark's name) or request opcode that is not ours
    status      tshark's bthci_evt.status is non-zero and we do not say `status 0xNN`, or we say
                a different status
    reason      tshark's bthci_evt.reason (Disconnect Complete) is not our `reason 0xNN`
    conn-handle we print `handle 0xNNNN` for an HCI packet and tshark's connection handle is
                different
    reports     tshark's number of advertising reports in an LE Meta event is not ours (we print
                the report when there is one and `N reports` otherwise)
    smp         an SMP Pairing Failed reason or Keypress type that is not ours
    cid         an L2CAP signalling `SCID:`/`DCID:`/`CID:` in tshark's Info that we do not print
    result      a Connection/Configure Response result (Success, Pending, Failure - …) we do not print
    info-type   an Information Request/Response type (Extended Features Mask, …) we do not print
    credits     an LE credit count in tshark's Info that is not ours

Counts are packets (a packet counts once per check). Run from anywhere after `swift build`;
needs tshark (4.0) and capinfos on PATH.

Intended differences (not counted; what tshark 4.0 prints is in quotes):

  * Names. We use the Core 5.4 names where tshark 4.0 keeps older ones: Filter Accept List
    ("White List"), Write LE Host Support ("Write LE Host Supported"), Write Local Name
    ("Change Local Name"), Read BD_ADDR ("Read BD ADDR"), Central/Peripheral ("Master"/"Slave");
    and we add `[v1]`/`[v2]` where the spec has versions. Commands and events that tshark 4.0
    does not know ("Unknown 0x0c84", "Unknown 0x59") are named by us from the spec.
  * Vendor commands and events: we print `Vendor 0xFCxx`/`Vendor event`; tshark names some
    Broadcom ones ("Broadcom LE Advertising Filter"). Only the opcode is compared.
  * Responses. tshark adds to a Read/Write/Read Blob Response and a Handle Value Confirmation
    the handle of the request it answers, and to handles the service and characteristic names of
    the GATT database it rebuilt ("Handle: 0x0041 (Unknown: Unknown)"), and to a Read By Type
    Response the types of the request. We print what the PDU carries; the request, its handle
    and the transaction are in the ATT transaction table. An Error Response names the request
    opcode in error where tshark names the attribute.
  * Fields we add: the status only when it is not success, handles, parameters, addresses, RSSI,
    local names, `[conn N]`, redacted SMP keys, the IO capability of a Pairing Request/Response.
  * A 16-bit UUID that our assigned numbers (BLECore, generated from bumble) do not name is
    printed in hex ("2B88"); tshark may name it ("Encrypted Data Key Material"). Not counted.
  * L2CAP: tshark names 0x16 "LE Flow Control Credit" (Core 5.4: Flow Control Credit), does not
    know 0x17/0x18 (Credit Based Connection Request/Response, "Unknown command").
  * ACL reassembly: a start fragment that interrupts an unfinished PDU drops it (Core 5.4 Vol 4
    Part E 5.4.2) and an orphan continuation is reported as such; tshark joins them. Packets we
    summarise as `ACL fragment` are not compared.
  * SMP AuthReq bit 5 is CT2 (Core 5.4 Vol 3 Part H 3.5.1); tshark 4.0 calls it "Reserved".
  * BR/EDR upper layers (RFCOMM, SDP, AVDTP, AVCTP) are named by channel, not decoded; monitor
    (btmon) control records and user logging, PacketLogger notes and vendor ACL diagnostics
    (handles 0x0EDC, 0x0FF1; tshark reads them as L2CAP) are summarised our way.
  * A file whose interfaces have different link types is refused (no summaries to compare).

Every other difference is a bug in our decoder or a tshark 4.0 gap worth a sentence here.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT.parent / "shared" / "captures"
HCI_SUFFIXES = (".btsnoop", ".pklg", ".log", ".cfa")
AIR_ENCAPSULATIONS = ("bluetooth-le-ll", "nordic_ble")

FIELDS = ["frame.number", "hci_h4.direction", "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.opcode",
          "bthci_evt.le_meta_subevent", "bthci_evt.status", "bthci_evt.reason",
          "bthci_evt.connection_handle", "bthci_evt.number_of_reports", "btatt.opcode", "btatt.error_code",
          "btatt.req_opcode_in_error", "btsmp.opcode", "btsmp.reason", "btl2cap.cmd_code", "_ws.col.Info"]

# Renames between tshark 4.0's names and the Core 5.4 names we use (applied to tshark's text).
RENAMES = [
    ("white list", "filter accept list"),
    ("write le host supported", "write le host support"),
    ("change local name", "write local name"),
    ("master", "central"),
    ("slave", "peripheral"),
    ("le flow control credit", "flow control credit"),
    ("le set advertise enable", "le set advertising enable"),   # HCI_LE_Set_Advertising_Enable (Vol 4 Part E 7.8.9)
]

ATT_OPCODES = {
    0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
    0x04: "Find Information Request", 0x05: "Find Information Response", 0x06: "Find By Type Value Request",
    0x07: "Find By Type Value Response", 0x08: "Read By Type Request", 0x09: "Read By Type Response",
    0x0A: "Read Request", 0x0B: "Read Response", 0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
    0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request",
    0x11: "Read By Group Type Response", 0x12: "Write Request", 0x13: "Write Response",
    0x16: "Prepare Write Request", 0x17: "Prepare Write Response", 0x18: "Execute Write Request",
    0x19: "Execute Write Response", 0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication",
    0x1E: "Handle Value Confirmation", 0x20: "Read Multiple Variable Request",
    0x21: "Read Multiple Variable Response", 0x23: "Multiple Handle Value Notification",
    0x52: "Write Command", 0xD2: "Signed Write Command",
}

# Responses whose `Handle:` tshark takes from the request (not in the PDU).
ATT_HANDLE_FROM_REQUEST = {0x0B, 0x0D, 0x13, 0x1E}


def norm(s: str) -> str:
    s = s.lower().replace("_", " ")
    s = re.sub(r"\s*\[v\d\]", "", s)
    s = re.sub(r"\[malformed packet\]", "", s)
    for old, new in RENAMES:
        s = s.replace(old, new)
    return re.sub(r"\s+", " ", s).strip()


def first(v: str) -> str:
    return v.split(",")[0] if v else ""


def hexint(v: str) -> int | None:
    try:
        return int(first(v), 16) if v else None
    except ValueError:
        return None


def tshark_rows(path: Path) -> dict[int, dict]:
    args = ["tshark", "-r", str(path), "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < len(FIELDS):
            parts += [""] * (len(FIELDS) - len(parts))
        row = dict(zip(FIELDS, parts[:len(FIELDS) - 1]))
        row["_ws.col.Info"] = "\t".join(parts[len(FIELDS) - 1:])
        rows[int(row["frame.number"])] = row
    return rows


def our_rows(blereplay: str, path: Path) -> dict[int, dict] | None:
    p = subprocess.run([blereplay, "timeline", str(path), "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return {o["id"]: o for o in map(json.loads, p.stdout.splitlines())}


def group(row: dict) -> str | None:
    if row["btatt.opcode"]:
        return f"ATT {first(row['btatt.opcode'])}"
    if row["btsmp.opcode"]:
        return f"SMP {first(row['btsmp.opcode'])}"
    if row["btl2cap.cmd_code"]:
        return f"L2CAP sig {first(row['btl2cap.cmd_code'])}"
    if row["bthci_cmd.opcode"]:
        return f"HCI cmd {first(row['bthci_cmd.opcode'])}"
    code = first(row["bthci_evt.code"])
    if code in ("0x0e", "0x0f") and row["bthci_evt.opcode"]:
        return f"HCI evt {code}/{first(row['bthci_evt.opcode'])}"
    if code == "0x3e" and row["bthci_evt.le_meta_subevent"]:
        return f"HCI evt 0x3e/{first(row['bthci_evt.le_meta_subevent'])}"
    if code:
        return f"HCI evt {code}"
    return None


def split_direction(text: str) -> tuple[str | None, str]:
    m = re.match(r"(Sent|Rcvd) (.*)", text, re.S)
    if m:
        return m.group(1), m.group(2)
    # tshark's word for a packet whose capture records no direction (LINKTYPE 187 without
    # epb_flags); we print no direction word there.
    m = re.match(r"UnknownDirection (.*)", text, re.S)
    return (None, m.group(1)) if m else (None, text)


def check(g: str, row: dict, ours: dict) -> list[tuple[str, str]]:
    """The disagreements of one packet: (check, detail)."""
    info = row["_ws.col.Info"].strip()
    summary = re.sub(r" \[conn \d+\]$", "", ours["summary"])
    problems = []
    if re.search(r"\((controller|vendor) diagnostics\)$|^(Sent|Rcvd) ACL fragment", summary):
        return problems  # vendor diagnostics on an ACL handle; an ACL fragment we did not join
    tdir, tbody = split_direction(info)
    odir, obody = split_direction(summary)
    if tdir and tdir != odir:
        problems.append(("direction", f"{tdir} vs {odir or ours['direction']}"))
    tb, ob = norm(tbody), norm(obody)
    kind, _, code = g.partition(" ")
    if g.startswith("HCI cmd") or re.match(r"HCI evt 0x0[ef]/", g):
        # "Name" or "Command Complete (Name)": vendor and unknown ones compare by opcode only
        m = re.match(r"(command (?:complete|status) \()?(.*?)\)?$", tb)
        name = m.group(2) if m else tb
        name = re.sub(r"^broadcom ", "", name)
        opcode = hexint(row["bthci_cmd.opcode"] or row["bthci_evt.opcode"])
        if opcode is not None and (opcode >> 10 == 0x3F or name.startswith("unknown")
                                   or "vendor command" in name):
            # Android's LE vendor commands (OCF 0x153-0x15F, AOSP hcidefs.h) are named by their
            # definer (README "What is decoded"), other vendors' by opcode.
            named = re.match(r"(command (complete|status) \()?android ", ob) and 0x153 <= opcode & 0x3FF <= 0x15F
            if opcode >> 10 == 0x3F and f"vendor 0x{opcode:04x}" not in ob and not named:
                problems.append(("opcode", f"0x{opcode:04X} not in ours"))
        elif not ob.startswith((m.group(1) or "") + name if m else tb):
            problems.append(("name", f"{name!r}"))
    elif g.startswith("HCI evt"):
        name = re.sub(r"\[malformed packet\]$", "", tb).strip()
        if name == "vendor-specific" or name.endswith(" vendor-specific"):
            name = "vendor event"
        if not re.match(r"(le meta \()?unknown ", name) and not ob.startswith(name):
            problems.append(("name", f"{name!r}"))
    elif kind == "ATT":
        op = hexint(row["btatt.opcode"])
        name = norm(ATT_OPCODES.get(op, "")) if op is not None else ""
        tname = re.split(r"[,:]| - ", tb)[0].strip()
        # tshark 4.0 names no opcode of Core 5.2 (Read Multiple Variable 0x20/0x21, Multiple Handle
        # Value Notification 0x23): `<unknown>`, where we name it.
        if tname == "<unknown>" and op in (0x20, 0x21, 0x23):
            pass
        elif not ob.startswith(tname):
            problems.append(("name", f"{tname!r}"))
        if op is not None and op not in ATT_HANDLE_FROM_REQUEST:
            th = re.findall(r"handle: (0x[0-9a-f]+)", tb)
            oh = re.findall(r"handle: (0x[0-9a-f]+)", ob)
            if th and th != oh[:len(th)]:
                problems.append(("handle", f"{th} vs {oh}"))
        tr = re.findall(r"0x[0-9a-f]+\.\.0x[0-9a-f]+", tb)
        if tr and tr != re.findall(r"0x[0-9a-f]+\.\.0x[0-9a-f]+", ob):
            problems.append(("range", f"{tr}"))
        if op in (0x06, 0x08, 0x10):
            parts = [p.strip() for p in tb.split(",")]
            if len(parts) > 1 and parts[1] not in ("unknown", "") and not parts[1].startswith("handles"):
                named = re.match(r"(?:read by (?:group )?type|find by type value) request, ([^,]*)", ob)
                if named and parts[1] != named.group(1) and not re.fullmatch(r"[0-9a-f]{4}", named.group(1)):
                    problems.append(("uuid", f"{parts[1]!r}"))
        if op == 0x05:
            for h, names in re.findall(r"handle: (0x[0-9a-f]+) \(([^)]*)\)", tb):
                last = names.split(":")[-1].strip()
                if last != "unknown" and f"handle: {h} ({last})" not in ob:
                    problems.append(("uuid", f"{h} {last!r}"))
        if op == 0x01:
            m = re.match(r"error response - (.*?)(, handle|$)", tb)
            if m and not ob.startswith(f"error response - {m.group(1)}"):
                problems.append(("error", f"{m.group(1)!r}"))
            req = hexint(row["btatt.req_opcode_in_error"])
            if req in ATT_OPCODES and f"({norm(ATT_OPCODES[req])})" not in ob:
                problems.append(("error", f"request {ATT_OPCODES[req]!r}"))
    elif kind == "SMP":
        name = re.split(r":", tb)[0].strip()
        if not ob.startswith(name):
            problems.append(("name", f"{name!r}"))
        if first(row["btsmp.opcode"]) in ("0x05", "0x0e") and ":" in tb and tb != ob:
            detail = tb.split(":", 1)[1].strip()
            if detail and detail != "<unknown>" and detail not in ob:
                problems.append(("smp", f"{detail!r}"))
    elif kind == "L2CAP":
        name = re.split(r" \(| - |,", tb)[0].strip()
        ob = re.sub(r"^br/edr l2cap ", "", ob)
        if name != "unknown command" and not ob.startswith(name):
            problems.append(("name", f"{name!r}"))
        flat = re.sub(r"[^a-z0-9 ]+", " ", ob)
        for label, cid in re.findall(r"\b(scid|dcid|cid): (?:0x)?([0-9a-f]{4})", tb):
            if not re.search(rf"\b{'[sd]?cid' if label == 'cid' else label} 0x{cid}\b", ob):
                problems.append(("cid", f"{label.upper()} 0x{cid.upper()} not in ours"))
        m = re.match(r"(?:connection|configure) response - (.*?) \(", tb)
        if m and not all(w in flat.split() for w in re.sub(r"[^a-z0-9 ]+", " ", m.group(1)).split()):
            problems.append(("result", f"{m.group(1)!r}"))
        m = re.match(r"information (?:request|response) \(([^,)]*)", tb)
        if m and m.group(1) not in ob:
            problems.append(("info-type", f"{m.group(1)!r}"))
        m = re.search(r"credits: (\d+)", tb)
        if m and not re.search(rf"\bcredits {m.group(1)}\b", ob):
            problems.append(("credits", f"{m.group(1)} not in ours"))
    if g.startswith("HCI evt"):
        status = hexint(row["bthci_evt.status"])
        m = re.search(r"\bstatus (0x[0-9a-f]{2})", ob)
        ostatus = int(m.group(1), 16) if m else None
        if status and ostatus is None and not g.startswith("HCI evt 0x0e/0xfc") and not g.startswith("HCI evt 0x0e/0xfd"):
            problems.append(("status", f"tshark 0x{status:02X}, ours none"))
        elif ostatus is not None and status is not None and ostatus != status:
            problems.append(("status", f"tshark 0x{status:02X}, ours 0x{ostatus:02X}"))
        reason = hexint(row["bthci_evt.reason"])
        m = re.search(r"\breason (0x[0-9a-f]{2})", ob)
        if reason is not None and (not m or int(m.group(1), 16) != reason):
            problems.append(("reason", f"tshark 0x{reason:02X}, ours {m.group(1) if m else 'none'}"))
        n = row["bthci_evt.number_of_reports"]
        if n and g in ("HCI evt 0x3e/0x02", "HCI evt 0x3e/0x0b", "HCI evt 0x3e/0x0d"):
            n = int(first(n))
            m = re.search(r"\b(\d+) reports\b", ob)
            ours_n = int(m.group(1)) if m else 1
            if ours_n != n:
                problems.append(("reports", f"tshark {n}, ours {ours_n}"))
    if g.startswith("HCI"):
        handles = {int(h, 16) & 0x0FFF for h in row["bthci_evt.connection_handle"].split(",") if h}
        m = re.search(r"(?<![a-z] )\bhandle (0x[0-9a-f]{4})", ob)
        if handles and m and int(m.group(1), 16) not in handles:
            problems.append(("conn-handle", f"tshark {sorted(hex(h) for h in handles)}, ours {m.group(1)}"))
    return problems


def inputs(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            sys.exit(f"compare_info_with_tshark: no such file or directory: {p}")
        files += sorted(f for f in p.iterdir() if f.is_file() and f.suffix != ".md") if p.is_dir() else [p]
    return files


def is_air(path: Path) -> bool:
    if path.suffix in HCI_SUFFIXES:
        return False
    out = subprocess.run(["capinfos", "-T", "-E", str(path)], capture_output=True, text=True).stdout
    return any(e in out for e in AIR_ENCAPSULATIONS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--blereplay", default=str(ROOT / ".build" / "debug" / "blereplay"))
    ap.add_argument("--examples", type=int, default=3, help="example frames per row")
    ap.add_argument("--all", action="store_true", help="print every disagreeing packet")
    a = ap.parse_args()
    paths = a.files
    if not paths:
        shapes = Path(tempfile.mkdtemp(prefix="blereplay-shapes-"))
        subprocess.run([sys.executable, "-m", "blegen.shapes", str(shapes)], cwd=ROOT / "Scripts", check=True,
                       capture_output=True)
        paths = [str(CAPTURES), str(shapes)]
    compared: collections.Counter = collections.Counter()
    bad: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for path in inputs(paths):
        if is_air(path):
            continue
        ours = our_rows(a.blereplay, path)
        if ours is None:
            print(f"skipped {path.name}: blereplay refused it", file=sys.stderr)
            continue
        for frame, row in tshark_rows(path).items():
            g = group(row)
            if g is None or frame not in ours:
                continue
            compared[g] += 1
            seen = set()
            for name, detail in check(g, row, ours[frame]):
                if name in seen:
                    continue  # one count per packet and check
                seen.add(name)
                bad[(g, name)].append(f"{path.name}#{frame}: {detail}\n      tshark: {row['_ws.col.Info'].strip()}"
                                      f"\n      ours:   {ours[frame]['summary']}")
    total = sum(len(v) for v in bad.values())
    print(f"{sum(compared.values())} packets of {len(compared)} types compared; "
          f"{total} disagreement(s) in {len(bad)} (type, check) row(s)\n")
    if bad:
        print(f"{'type':<24} {'check':<12} {'count':>6} {'of':>6}")
        for (g, name), items in sorted(bad.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"{g:<24} {name:<12} {len(items):>6} {compared[g]:>6}")
            for e in items if a.all else items[:a.examples]:
                print("    " + e)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
