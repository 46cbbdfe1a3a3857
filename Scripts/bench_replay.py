#!/usr/bin/env python3
"""`make bench`, replay stage (issue 12): how many times faster than real time `blereplay replay`
runs a dense, ATT-heavy session, measured end to end as a user runs it.

    python3 Scripts/bench_replay.py [--out DIR] [--records N] [--links L] [--runs K] [--bin PATH] [--memory]
                                    [--before OLD_BIN]

1. Builds the dense session (Scripts/blegen/dense.py: by default 500,000 records on 40 links,
   most of them ACL fragments of notifications; seeded, so the same bytes every time) unless
   DIR already holds it, and imports it into a timeline (`blereplay import`).
2. Times `blereplay replay DB` (the recording loaded from the timeline, models built, the
   faithful replay run, the verdicts printed) and `blereplay replay CAPTURE` (the import on the
   fly included), K runs each (default 5), and prints the medians with the simulated span over
   the wall time ("x real time") and the simulated events per second. The events and the span
   are the replay's own (`--json`), and every run must reproduce every connection.

   With `--before OLD_BIN`, `replay DB` of OLD_BIN and of this build then run alternately, K
   times each, on the same timeline, and both medians are printed with their ratio: a change's
   effect measured in one sitting (absolute times on the shared 2-core machine drift by more).
   Loading uses both cores (Docs/replay.md), so the CPU time can exceed the wall time.

3. With `--memory`, the peak RSS of `blereplay replay DB` on the adversarial shapes of issue 17
   (Scripts/blegen/adversarial.py): many links (16 controllers x 480/960/1,920/3,840 handles:
   7,680 to 61,440 links) and 64 KiB ATT values (PacketLogger, 750/1,500/3,000 records), each
   imported first; the bound is 100 MB whatever the links and value sizes.

Wall time is the process's, from fork to exit, so loading and start-up count. Figures vary with
the machine's load, so the CPU time (user + system, wait4(2)) is printed beside it; the target
(issue 12) is at least 3,000x real time from the timeline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3000


def timed(argv: list[str]) -> tuple[float, float, int, bytes]:
    """Runs argv; returns (wall seconds, CPU seconds (user + system), peak RSS in bytes, both from
    wait4(2), stdout). Fails on a bad exit."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit(f"{' '.join(argv)}: exit {code}\n{err.read().decode(errors='replace')[-2000:]}")
        return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out.read()


def build_capture(out: Path, records: int, links: int) -> Path:
    capture = out / f"dense-{records}-{links}.btsnoop"
    stamp = capture.with_suffix(".done")
    if capture.exists() and stamp.exists():
        return capture
    print(f"generating {capture.name} ...", flush=True)
    subprocess.run([sys.executable, "-m", "blegen.dense", str(capture), "--records", str(records), "--links", str(links)],
                   cwd=ROOT / "Scripts", check=True)
    stamp.write_text("ok\n")
    return capture


def replay_figures(binary: Path, source: Path, runs: int) -> tuple[float, float, int, int, int]:
    """Median wall and CPU seconds of `replay SOURCE` over `runs`, the events, simulated µs and peak RSS."""
    times, cpus = [], []
    events = span = rss = 0
    for _ in range(runs):
        secs, cpu, peak, _ = timed([str(binary), "replay", str(source)])
        times.append(secs)
        cpus.append(cpu)
        rss = max(rss, peak)
    _, _, _, doc = timed([str(binary), "replay", str(source), "--json"])
    parsed = json.loads(doc)
    results = parsed if isinstance(parsed, list) else [parsed]
    for r in results:
        if not r["passed"]:
            sys.exit(f"replay of {source} did not reproduce every connection")
        events += r["events"]
        span = max(span, r["simulated_us"])
    return statistics.median(times), statistics.median(cpus), events, span, rss


def before_against(old: Path, new: Path, db: Path, runs: int) -> None:
    """`replay DB` of `old` and `new` alternately, `runs` times each: medians and their ratio."""
    walls: dict[Path, list[float]] = {old: [], new: []}
    cpus: dict[Path, list[float]] = {old: [], new: []}
    for _ in range(runs):
        for binary in (old, new):
            secs, cpu, _, _ = timed([str(binary), "replay", str(db)])
            walls[binary].append(secs)
            cpus[binary].append(cpu)
    w = {b: statistics.median(v) for b, v in walls.items()}
    c = {b: statistics.median(v) for b, v in cpus.items()}
    print(f"  alternately, {runs} runs each, replay of the timeline: --before {w[old]:.3f} s (CPU {c[old]:.3f} s), "
          f"this build {w[new]:.3f} s (CPU {c[new]:.3f} s): {w[old] / w[new]:.2f}x the wall-clock speed")


MEMORY_LIMIT = 100_000_000


def memory_figures(binary: Path, out: Path) -> None:
    """Peak RSS and time of `replay DB` on the many-links and 64 KiB-value shapes (issue 17)."""
    shapes = [(f"links-{16 * h}", ["--links", "16", str(h)], ".btsnoop", f"{16 * h:,} links") for h in (480, 960, 1920, 3840)]
    shapes += [(f"huge-{n}", ["--huge-att", str(n)], ".pklg", f"{n:,} x 64 KiB values") for n in (750, 1500, 3000)]
    print("replay memory (issue 17), replay of the imported timeline:")
    for name, gen, suffix, label in shapes:
        capture = out / (name + suffix)
        if not capture.exists():
            subprocess.run([sys.executable, "-m", "blegen.adversarial", *gen, str(capture)], cwd=ROOT / "Scripts", check=True)
        db = out / (name + ".db")
        if db.exists():
            db.unlink()
        timed([str(binary), "import", str(capture), "--db", str(db)])
        secs, cpu, rss, _ = timed([str(binary), "replay", str(db)])
        verdict = "ok" if rss < MEMORY_LIMIT else f"OVER {MEMORY_LIMIT // 1_000_000} MB"
        print(f"  {label:<22} {secs:7.2f} s (CPU {cpu:.2f} s), peak {rss / 1e6:6.0f} MB  {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bench-out")
    ap.add_argument("--records", type=int, default=500_000)
    ap.add_argument("--links", type=int, default=40)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", type=Path, default=ROOT / ".build" / "release" / "blereplay")
    ap.add_argument("--memory", action="store_true", help="also the peak RSS on the many-links and 64 KiB-value shapes")
    ap.add_argument("--before", type=Path, default=None, help="an older build, timed alternately with this one")
    args = ap.parse_args()
    if not args.bin.exists():
        sys.exit(f"{args.bin} is missing: run `swift build -c release` (make bench does)")
    args.out.mkdir(parents=True, exist_ok=True)
    capture = build_capture(args.out, args.records, args.links)
    db = args.out / (capture.stem + ".db")
    if db.exists():
        db.unlink()
    secs, _, _, _ = timed([str(args.bin), "import", str(capture), "--db", str(db)])
    print(f"replay bench: {capture.name} ({args.records:,} records, {args.links} links), imported in {secs:.2f} s")
    ok = True
    for label, source in (("timeline", db), ("capture", capture)):
        median, cpu, events, span, rss = replay_figures(args.bin, source, args.runs)
        speed = span / 1e6 / median
        print(f"  replay from the {label:<8}: {median:.3f} s (median of {args.runs}) for {span / 1e6:.1f} s simulated = "
              f"{speed:,.0f}x real time, {events / median:,.0f} events/s ({events:,} events), peak {rss / 1e6:.0f} MB")
        # On a shared machine wall time includes waiting for a core; CPU time does not.
        print(f"  {'':<25}CPU {cpu:.3f} s = {span / 1e6 / cpu:,.0f}x real time, {events / cpu:,.0f} events/s")
        if label == "timeline" and speed < TARGET:
            ok = False
    print(f"  target: {TARGET:,}x real time from the timeline: {'met' if ok else 'NOT met'}")
    if args.before is not None:
        before_against(args.before, args.bin, db, args.runs)
    if args.memory:
        memory_figures(args.bin, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
