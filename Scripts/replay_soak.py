#!/usr/bin/env python3
"""Replay soak (issue 11): generate N sessions from SEED with Scripts/blegen/sessions.py, replay
each faithfully with the blereplay CLI, and check every connection against what the session
holds by construction (its handle, kind, ATT PDUs and ending) and against the replay's verdict.

    Scripts/replay_soak.py --seed S --count N [--bin .build/release/blereplay] [--batch 250] [--shapes A,B]

Besides the N random sessions it runs N/10 sessions of each named shape the random draw does not
make (Enhanced ATT bearers, GATT over BR/EDR, ATT and LL procedures, reconnections, capture
clocks; reproduce one with --shape NAME below).

Sessions go through the CLI in batches (one `import` of many captures into one timeline, then one
`replay DB --json`), so thousands run in minutes. Each divergence is printed with its seed, the
connection and the shapes that session holds; reproduce one with

    python3 -m blegen.sessions /tmp/s --seed SEED        (from Scripts/), then blereplay replay /tmp/s/session-SEED.btsnoop

Exit status 0 when every connection reproduced and matched its construction, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from blegen import sessions  # noqa: E402

# Named shapes of Scripts/blegen/sessions.py the random draw does not make (Enhanced ATT, GATT
# over BR/EDR, ...); Tests/BLEReplayTests/GeneratedSessions.swift `extraShapes` and `newShapes` name the same.
EXTRA_SHAPES = ("eatt-overlap", "eatt-timeout", "bredr-att",
                # ATT and link-layer procedures, reconnections, capture clocks (sessions.py SHAPES)
                "att-variety", "att-variety-peripheral", "ll-procedures", "reconnect", "same-timestamps", "clock-back",
                "padded-name")


def expected_end(link: dict) -> str:
    if link["kind"].endswith("attempt"):
        return "LE Connection Complete status"
    if link["end"] is None:
        return "still connected"
    return f"disconnected 0x{link['end']:02X}"


def check(manifest: dict, result: dict | None, gaps: list[str] | None = None) -> list[str]:
    """The problems with one session's replay, each a line naming the seed and the connection.
    Capture gaps (a link the capture cannot settle, reported as such by the replay) go to `gaps`."""
    seed = manifest["seed"]
    if result is None:
        return [f"seed {seed}: no replay result for {manifest['file']}"]
    verdicts = result["connections"]
    links = manifest["links"]
    problems = []
    if len(verdicts) != len(links):
        return [f"seed {seed}: {len(verdicts)} connection(s) replayed, the session holds {len(links)}"]
    for link, v in zip(links, verdicts):
        where = f"seed {seed} connection {v['connection_id']} handle 0x{v['handle']:04X} ({', '.join(link['shapes']) or 'plain'})"
        if link["kind"] != v["kind"]:
            problems.append(f"{where}: kind {v['kind']!r}, built as {link['kind']!r}")
            continue
        if not link["kind"].endswith("attempt") and v["handle"] != link["handle"]:
            problems.append(f"{where}: handle, built as 0x{link['handle']:04X}")
        if not link["kind"].endswith("attempt") and v["recorded_att_pdus"] != link["att_pdus"]:
            problems.append(f"{where}: the timeline holds {v['recorded_att_pdus']} ATT PDUs, the session {link['att_pdus']}")
        if not v["recorded_end"].startswith(expected_end(link)):
            problems.append(f"{where}: recorded end {v['recorded_end']!r}, built as {expected_end(link)!r}")
        if v.get("capture_gap") and not v["reproduced"]:
            if gaps is not None:
                gaps.append(f"{where}: capture gap: {v['capture_gap']}")
            if not link.get("gap"):
                problems.append(f"{where}: a capture gap the session was not built with: {v['capture_gap']}")
            continue
        if not v["reproduced"]:
            d = v["divergence"] or {}
            problems.append(f"{where}: DIVERGED ({d.get('kind')}) at {d.get('time_us')} µs: expected {d.get('expected')}"
                            f" (packet {d.get('expected_packet_id')}), got {d.get('got')}")
        elif not v["simulated_end"].startswith(expected_end(link)):
            problems.append(f"{where}: replay ended {v['simulated_end']!r}, built as {expected_end(link)!r}")
    return problems


def run_batch(binary: str, directory: Path, manifests: list[dict], gaps: list[str]) -> tuple[list[str], int]:
    db = directory / "batch.db"
    files = [str(directory / m["file"]) for m in manifests]
    imp = subprocess.run([binary, "import", *files, "--db", str(db)], capture_output=True, text=True)
    if imp.returncode != 0:
        return [f"seeds {manifests[0]['seed']}-{manifests[-1]['seed']}: import failed ({imp.returncode}): {imp.stderr.strip()[:400]}"], 0
    rep = subprocess.run([binary, "replay", str(db), "--json"], capture_output=True, text=True)
    if rep.returncode not in (0, 1):
        return [f"seeds {manifests[0]['seed']}-{manifests[-1]['seed']}: replay exited {rep.returncode}: {rep.stderr.strip()[:400]}"], 0
    doc = json.loads(rep.stdout)
    results = doc if isinstance(doc, list) else [doc]
    by_file = {r["capture"]: r for r in results}
    problems = []
    connections = 0
    for m in manifests:
        r = by_file.get(m["file"])
        connections += len(r["connections"]) if r else 0
        problems += check(m, r, gaps)
    db.unlink(missing_ok=True)
    return problems, connections


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description="Replay soak over generated sessions (issue 11).")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--bin", default=str(HERE.parent / ".build/release/blereplay"))
    p.add_argument("--batch", type=int, default=250)
    p.add_argument("--shapes", default=",".join(EXTRA_SHAPES),
                   help="named shapes the random draw does not make, each run for a tenth of COUNT seeds "
                        "(comma-separated; empty for none)")
    a = p.parse_args(argv)
    started = time.monotonic()
    problems: list[str] = []
    gaps: list[str] = []
    connections = 0
    shapes = [x for x in a.shapes.split(",") if x]
    runs = [(None, a.count)] + [(shape, max(1, a.count // 10)) for shape in shapes]
    total = 0
    with tempfile.TemporaryDirectory(prefix="replay-soak-") as tmp:
        for shape, count in runs:
            total += count
            for first in range(a.seed, a.seed + count, a.batch):
                n = min(a.batch, a.seed + count - first)
                d = Path(tmp) / f"{shape or 'random'}-{first}"
                manifests = sessions.write(d, first, n, shape)
                found, c = run_batch(a.bin, d, manifests, gaps)
                connections += c
                for line in found:
                    print((f"[{shape}] " if shape else "") + line, flush=True)
                problems += found
                for f in d.iterdir():
                    f.unlink()
    seeds = len({line.split(":")[0].split(" connection")[0] for line in problems if line.startswith("seed")})
    for line in gaps:
        print(line)
    print(f"replay soak: {total} session(s) from seed {a.seed} ({a.count} random"
          + "".join(f", {n} {shape}" for shape, n in runs[1:]) + f"), {connections} connection(s), "
          f"{len(problems)} problem(s) in {seeds} session(s), {len(gaps)} capture gap(s), "
          f"{time.monotonic() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
