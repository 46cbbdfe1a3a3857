#!/usr/bin/env python3
"""Validate captures with tshark and count what they contain.

    tshark_counts.py FILE...     prints one line of counts per file; exit 1 when tshark finds a
                                 malformed packet or an expert item of severity error

Counts (all as tshark decodes them): packets; LE (Enhanced) Connection Complete events by status;
Disconnection Complete events by reason; ATT PDUs; ATT Error Responses by code; SMP PDUs;
SMP Pairing Failed by reason.
"""

from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import Path

FIELDS = ["frame.number", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_evt.status",
          "bthci_evt.reason", "btatt.opcode", "btatt.error_code", "btsmp.opcode", "btsmp.reason"]


def tshark(args: list[str]) -> str:
    return subprocess.run(["tshark", *args], check=True, capture_output=True, text=True).stdout


def problems(path: Path) -> list[str]:
    out = tshark(["-r", str(path), "-Y", "_ws.malformed || _ws.expert.severity >= error"])
    return [line for line in out.splitlines() if line.strip()]


def counts(path: Path) -> dict:
    out = tshark(["-r", str(path), "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
                  *sum((["-e", f] for f in FIELDS), [])])
    c = {"packets": 0, "conn": collections.Counter(), "disc": collections.Counter(), "att": 0,
         "att_err": collections.Counter(), "smp": 0, "smp_fail": collections.Counter()}
    for line in out.splitlines():
        row = dict(zip(FIELDS, line.split("\t")))
        c["packets"] += 1
        code, sub = row.get("bthci_evt.code", ""), row.get("bthci_evt.le_meta_subevent", "")
        if code == "0x3e" and sub in ("0x01", "0x0a"):
            c["conn"][int(row["bthci_evt.status"], 16)] += 1
        if code == "0x05":
            c["disc"][int(row["bthci_evt.reason"], 16)] += 1
        if row.get("btatt.opcode"):
            c["att"] += 1
            if row["btatt.opcode"] == "0x01":
                c["att_err"][int(row["btatt.error_code"], 16)] += 1
        if row.get("btsmp.opcode"):
            c["smp"] += 1
            if row["btsmp.opcode"] == "0x05":
                c["smp_fail"][int(row["btsmp.reason"], 16)] += 1
    return c


def fmt(counter: collections.Counter) -> str:
    return ", ".join(f"0x{k:02X}×{v}" for k, v in sorted(counter.items())) or "—"


def summary(path: Path, c: dict) -> str:
    return (f"{path.name}: packets {c['packets']}, conn {fmt(c['conn'])}, disc {fmt(c['disc'])}, "
            f"att {c['att']}, att err {fmt(c['att_err'])}, smp {c['smp']}, smp fail {fmt(c['smp_fail'])}")


def check_files(paths: list[Path]) -> tuple[bool, dict[str, dict]]:
    ok, rows = True, {}
    for p in paths:
        bad = problems(p)
        if bad:
            ok = False
            print(f"{p.name}: {len(bad)} malformed/expert-error packets:\n  " + "\n  ".join(bad[:10]))
        c = counts(p)
        rows[p.name] = c
        print(summary(p, c))
    return ok, rows


BEGIN, END = "<!-- counts:begin -->", "<!-- counts:end -->"


def write_readme_table(readme: Path, files: list[tuple[str, str]], rows: dict[str, dict]) -> None:
    """Replace the table between the markers in the README (or write the README)."""
    version = tshark(["--version"]).splitlines()[0]
    lines = [BEGIN, "",
             f"| file | what it contains | packets | conn (status×n) | disc (reason×n) | ATT | ATT err (code×n) | SMP |",
             "|---|---|---:|---|---|---:|---|---:|"]
    for name, what in files:
        c = rows[name]
        smp = str(c["smp"]) + (f" (Pairing Failed {fmt(c['smp_fail'])})" if c["smp_fail"] else "")
        lines.append(f"| `{name}` | {what} | {c['packets']} | {fmt(c['conn'])} | {fmt(c['disc'])} | "
                     f"{c['att']} | {fmt(c['att_err'])} | {smp} |")
    lines += ["", f"Counts measured by `Scripts/tshark_counts.py` with {version}: every file has no "
              "malformed packet and no expert item of severity error.", "", END]
    table = "\n".join(lines)
    text = readme.read_text(encoding="utf-8") if readme.exists() else f"# Sample captures\n\n{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    readme.write_text(head + table + tail, encoding="utf-8")


def main() -> int:
    ok, _ = check_files([Path(p) for p in sys.argv[1:]])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
