#!/usr/bin/env python3
"""Check that the commands agree with each other, and with tshark, on each capture's errors.

    commands_agree.py [--blereplay PATH] FILE|DIR ...

For every capture: `import` into a scratch timeline, `diagnose --json` of it, `report -o DIR
--format json` of the capture, and tshark's `-T fields`. Then, per capture:

    diagnose vs the timeline   each connection's disconnect reason (`connections` view) is the one
                               `diagnose --json` gives
    diagnose vs report         LE disconnect reasons of established links, by code (the report's
                               inferred air endings aside)
    errors view vs report      ATT Error Response codes and SMP Pairing Failed reasons, by code
    att_transactions vs report ATT transactions that timed out
    tshark vs report           Disconnection Complete reasons (status 0) on the handles of LE links,
                               ATT error codes, SMP Pairing Failed reasons (HCI captures only: an
                               air capture's ends are LL_TERMINATE_IND, not HCI events)

Prints one line per capture with its counts and `!!` lines for each disagreement; exit status 1
when there is one. By design the report leaves out BR/EDR links and a CIS's own Disconnection
Complete (its ACL carries it), which the handle filter above keeps out of the comparison.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TSHARK_FIELDS = ["frame.number", "bthci_evt.code", "bthci_evt.status", "bthci_evt.reason",
                 "bthci_evt.connection_handle", "btatt.error_code", "btsmp.reason"]


def tshark_counts(path: Path, le_handles: set[int]):
    args = ["tshark", "-r", str(path), "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in TSHARK_FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, errors="replace").stdout
    disc, att, smp = collections.Counter(), collections.Counter(), collections.Counter()
    for line in out.splitlines():
        d = dict(zip(TSHARK_FIELDS, (line.split("\t") + [""] * len(TSHARK_FIELDS))[:len(TSHARK_FIELDS)]))
        codes = d["bthci_evt.code"].split("|")
        if "0x05" in codes and d["bthci_evt.status"].split("|")[0] == "0x00" and d["bthci_evt.reason"]:
            handle = d["bthci_evt.connection_handle"].split("|")[0]
            if handle and int(handle, 16) in le_handles:
                disc[int(d["bthci_evt.reason"].split("|")[0], 16)] += 1
        for e in filter(None, d["btatt.error_code"].split("|")):
            att[int(e, 16)] += 1
        for e in filter(None, d["btsmp.reason"].split("|")):
            smp[int(e, 16)] += 1
    return disc, att, smp


def is_air(con: sqlite3.Connection) -> bool:
    return any(r[0] in (251, 256, 272, 192) for r in con.execute("SELECT link_type FROM capture"))


def check(blereplay: str, path: Path, work: Path) -> list[str] | None:
    db = work / "t.db"
    if subprocess.run([blereplay, "import", str(path), "--db", str(db)], capture_output=True).returncode != 0:
        return None
    diagnosis = json.loads(subprocess.run([blereplay, "diagnose", str(db), "--json"], capture_output=True, text=True).stdout)
    subprocess.run([blereplay, "report", str(path), "-o", str(work / "report"), "--format", "json"], capture_output=True)
    report = json.loads((work / "report" / "report.json").read_text())
    con = sqlite3.connect(db)
    problems: list[str] = []

    def differ(what: str, a, b) -> None:
        if a != b:
            problems.append(f"{what}: {dict(sorted(a.items()))} vs {dict(sorted(b.items()))}")

    rows = {r[0]: r for r in con.execute("SELECT id, disconnect_reason, transport, status, handle FROM connections")}
    diagnosed = collections.Counter()
    for c in (c for capture in diagnosis for c in capture["connections"]):
        row = rows.get(c["id"])
        if row is None or row[1] != c["disconnect_reason"]:
            problems.append(f"connection {c['id']}: the timeline's disconnect reason {row and row[1]}, diagnose's {c['disconnect_reason']}")
        if c["disconnect_reason"] is not None and c["transport"] == "le" and c["status"] == 0:
            diagnosed[c["disconnect_reason"]] += 1
    reported = collections.Counter({d["code"]: d["count"] for d in report["disconnect_reasons"] if not d.get("inferred")})
    differ("disconnect reasons, diagnose vs report", diagnosed, reported)
    att = collections.Counter({d["code"]: d["count"] for d in report["att_errors"]})
    smp = collections.Counter({d["code"]: d["count"] for d in report["smp_failures"]})
    differ("ATT errors, errors view vs report",
           collections.Counter(r[0] for r in con.execute("SELECT e.code FROM errors e LEFT JOIN connection c ON c.id = e.connection_id "
                                                         "WHERE e.layer = 'att' AND coalesce(c.transport, 'le') = 'le'")), att)
    differ("SMP failures, errors view vs report",
           collections.Counter(r[0] for r in con.execute("SELECT e.code FROM errors e LEFT JOIN connection c ON c.id = e.connection_id "
                                                         "WHERE e.layer = 'smp' AND coalesce(c.transport, 'le') = 'le'")), smp)
    timeouts = con.execute("SELECT count(*) FROM att_transactions t JOIN connection c ON c.id = t.connection_id "
                           "WHERE t.outcome = 'timeout' AND c.transport = 'le'").fetchone()[0]
    if timeouts != sum(d["count"] for d in report["att_timeouts"]):
        problems.append(f"ATT timeouts: att_transactions {timeouts}, report {sum(d['count'] for d in report['att_timeouts'])}")
    if not is_air(con):
        le_handles = {r[4] for r in rows.values() if r[2] == "le"}
        t_disc, t_att, t_smp = tshark_counts(path, le_handles)
        differ("disconnect reasons, tshark vs report", t_disc, reported)
        differ("ATT errors, tshark vs report", t_att, att)
        differ("SMP failures, tshark vs report", t_smp, smp)
    con.close()
    print(f"{path.name}: {sum(reported.values())} disconnect(s), {sum(att.values())} ATT error(s), "
          f"{sum(smp.values())} SMP failure(s), {timeouts} ATT timeout(s)", file=sys.stderr)
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--blereplay", default=str(ROOT / ".build" / "release" / "blereplay"))
    a = ap.parse_args()
    files: list[Path] = []
    for p in map(Path, a.files):
        files += sorted(f for f in p.iterdir() if f.is_file() and f.suffix not in (".md", ".json")) if p.is_dir() else [p]
    bad = 0
    for path in files:
        work = Path(tempfile.mkdtemp(prefix="blereplay-agree-"))
        try:
            problems = check(a.blereplay, path, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if problems is None:
            print(f"skipped {path.name}: blereplay refused it", file=sys.stderr)
            continue
        for p in problems:
            print(f"{path.name}: {p}")
        bad += len(problems)
    print(f"{len(files)} capture(s), {bad} disagreement(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
