#!/usr/bin/env python3
"""Runs blereplay on the captures make_bumble_captures.py wrote and checks its answers against
what the script did (truth.json) and against tshark's counts.

    check_bumble_captures.py OUTDIR [--bin .build/release/blereplay]

For each scenario and each side (central.btsnoop, peripheral.btsnoop): import; ATT and SMP
counts equal tshark's; every command (timeline, timeline -v, diagnose, gatt, replay, replay
--json, export btsnoop/pcap/trace) exits 0; replay reproduces every connection; the ending is
told from the right side (the side that disconnected, per truth.json); the long write is the
characteristic's value. Exit 1 on any mismatch, listing each.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

LONG = "12345678-0002-1000-8000-00805F9B34FB"


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def tshark_count(path: Path, display_filter: str) -> int:
    r = run(["tshark", "-r", str(path), "-Y", display_filter])
    return len([line for line in r.stdout.splitlines() if line.strip()])


def check(binary: str, scenario: Path, problems: list[str]) -> None:
    truth = json.loads((scenario / "truth.json").read_text())
    events = {e["what"]: e for e in truth["events"]}
    for side in ("central", "peripheral"):
        capture = scenario / f"{side}.btsnoop"
        where = f"{scenario.name}/{side}"
        with tempfile.TemporaryDirectory() as tmp:
            db = f"{tmp}/t.db"
            r = run([binary, "import", str(capture), "--db", db])
            if r.returncode != 0:
                problems.append(f"{where}: import exited {r.returncode}: {r.stderr.strip()}")
                continue
            con = sqlite3.connect(db)
            for table, display_filter in (("att_pdus", "btatt"), ("smp_events", "btsmp")):
                ours = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                theirs = tshark_count(capture, display_filter)
                if ours != theirs:
                    problems.append(f"{where}: {table} {ours}, tshark {theirs}")
            con.close()
            for command in (["timeline", db], ["timeline", db, "-v"], ["diagnose", db], ["gatt", db],
                            ["export", db, "--format", "btsnoop", "-o", f"{tmp}/x.btsnoop"],
                            ["export", db, "--format", "pcap", "-o", f"{tmp}/x.pcap"],
                            ["export", db, "--format", "trace", "-o", f"{tmp}/x.json"]):
                r = run([binary] + command)
                if r.returncode != 0:
                    problems.append(f"{where}: {' '.join(command[:1] + command[2:])} exited {r.returncode}")
            r = run([binary, "replay", db, "--json"])
            if r.returncode != 0:
                problems.append(f"{where}: replay exited {r.returncode}")
            else:
                replay = json.loads(r.stdout)
                for v in replay["connections"]:
                    if not v["reproduced"]:
                        problems.append(f"{where}: replay diverged on connection {v['connection_id']}: {v['divergence']}")
                    rule = v.get("peripheral_ending") or ""
                    local_ended = ("central disconnects" in events and side == "central") or \
                                  ("peripheral disconnects" in events and side == "peripheral")
                    if side == "peripheral" and local_ended and rule != "the local peripheral disconnected":
                        problems.append(f"{where}: the local peripheral ended the link, replay says {rule!r}")
                    if side == "peripheral" and not local_ended and not rule.startswith("the remote central"):
                        problems.append(f"{where}: the remote central ended the link, replay says {rule!r}")
            r = run([binary, "diagnose", db, "--json"])
            text = r.stdout
            local_ended = ("central disconnects" in events and side == "central") or \
                          ("peripheral disconnects" in events and side == "peripheral")
            if "connected" in events and local_ended and '"local-terminated"' not in text:
                problems.append(f"{where}: the local host ended the link, diagnose has no local-terminated")
            if "connected" in events and not local_ended and '"local-terminated"' in text:
                problems.append(f"{where}: the peer ended the link, diagnose says local-terminated")
            if "long write" in events:
                g = json.loads(run([binary, "gatt", db, "--json"]).stdout)
                values = [c.get("value") for d in g for s in d["services"] for c in s["characteristics"] if c["uuid"] == LONG]
                want = bytes(reversed(range(200))).hex()
                if not values or not values[0] or values[0]["hex"] != want:
                    problems.append(f"{where}: the long-written value is {values[0]['hex'][:16] if values and values[0] else None}…, not the written one")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("outdir")
    p.add_argument("--bin", default=".build/release/blereplay")
    a = p.parse_args()
    problems: list[str] = []
    for scenario in sorted(Path(a.outdir).iterdir()):
        if (scenario / "truth.json").exists():
            check(a.bin, scenario, problems)
    for line in problems:
        print(line)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
