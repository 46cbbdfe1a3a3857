#!/usr/bin/env python3
"""`make bench`: blereplay against the SQLite floor and tshark, measured in one run (issue 12).

    python3 Scripts/bench.py [--records N] [--rounds R] [--out DIR] [--only STAGE ...] [--skip STAGE ...]
    python3 Scripts/bench.py --check        (the CI speed regression check, a few tens of seconds)

Every figure is a ratio of programs run in the same run, interleaved (floor, blereplay, tshark,
then again, R rounds), with the median of each: on a loaded machine the absolute times drift, the
ratios much less. Wall-clock seconds and CPU seconds (user + system, from wait4(2)) are both
printed; peak memory is the child's maximum resident set size from wait4(2).

Stages:
  import   `blereplay import` of two generated captures, the bench capture (N records, default
           1,000,000, `Scripts/make_bench_capture.py`: a gateway's sessions) and the ATT-heavy session
           of issue 12 (500,000 records, `--profile att-heavy`: 40 links, notifications in up to 10
           ACL fragments), against the floor (`Scripts/sqlite_floor.c`: the capture's records parsed
           and one row per record inserted into SQLite, raw bytes included, nothing decoded) and
           `tshark -r FILE -T fields -e frame.number -e btatt.opcode -e btatt.handle`.
           Targets: at least 0.5 of the floor's records/s, at least 5x tshark. With --before OLD_BIN,
           OLD_BIN's imports run in the same interleaved rounds and are printed beside this build's.
  memory   peak memory of the import at 100k, 1M and 3M records (target: under 100 MB, flat).
  replay   `Scripts/bench_replay.py` when it exists, else `replay --bench` on the largest shared capture.
  report   `blereplay report` over 1,200 distinct small captures (`Scripts/make_fleet_corpus.py`) with
           --jobs 1 and --jobs 2, against the floor over the same files (one fresh DB each).
           Target: --jobs 2 at least 0.3 of the floor's records/s, under 200 MB.
  verbose  `timeline FILE -v` against `tshark -r FILE -V` (target: at most 3x tshark's time).

--check (CI, `make speed-check`): the same comparisons on small inputs (100k-record captures, 120
small captures, 3 rounds) and exit 1 when a ratio falls below its CI bound (`CHECK_BOUNDS`): the
bounds sit well under what this machine measures, so only a real regression trips them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BLEREPLAY_BIN measures another build (an older binary kept aside, to compare before and after).
BIN = Path(os.environ.get("BLEREPLAY_BIN", ROOT / ".build" / "release" / "blereplay")).resolve()
SHARED = ROOT.parent / "shared" / "captures"

# CI bounds for --check: CPU-time ratios (CPU seconds are what a loaded machine distorts least).
# Measured on the 2-core machine when set (issue 12, README "Speed"): import 0.19-0.3 of the
# floor's CPU time and 2.1x tshark's, report about 0.13 of the floor's; the bounds are about half
# that, so a noisy run passes and a 2x regression does not.
CHECK_BOUNDS = {"import_vs_floor": 0.1, "report_vs_floor": 0.06, "import_vs_tshark": 1.0}


class Run:
    """One program's runs: wall seconds, CPU seconds, peak RSS, exit status."""

    def __init__(self, name: str):
        self.name, self.wall, self.cpu, self.rss, self.status = name, [], [], [], []
        self.rows = None

    def add(self, wall: float, cpu: float, rss: int, status: int) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss.append(rss)
        self.status.append(status)

    @property
    def w(self) -> float:
        return statistics.median(self.wall)

    @property
    def c(self) -> float:
        return statistics.median(self.cpu)

    @property
    def peak(self) -> int:
        return max(self.rss)


def measure(argv: list[str], run: Run | None = None, stdout=subprocess.DEVNULL) -> tuple[float, float, int, int, str]:
    """Runs argv; returns (wall s, CPU s, peak RSS bytes, exit status, stdout text when piped)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1) and err.strip():
        print(f"    {Path(argv[0]).name} exit {code}: {err.strip()[:300]}")
    cpu = usage.ru_utime + usage.ru_stime
    if run is not None:
        run.add(wall, cpu, usage.ru_maxrss * 1024, code)
    return wall, cpu, usage.ru_maxrss * 1024, code, out


def mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB"


def make_capture(path: Path, records: int, profile: str = "gateway") -> None:
    stamp = path.with_suffix(".records")
    if path.exists() and stamp.exists() and stamp.read_text().strip() == f"{records} {profile}":
        return
    print(f"generating {path.name}: {records:,} records ({profile}) ...", flush=True)
    t = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make_bench_capture.py"), str(path),
                    "--records", str(records), "--profile", profile], check=True, stdout=subprocess.DEVNULL)
    stamp.write_text(f"{records} {profile}")
    print(f"  generated in {time.perf_counter() - t:.1f} s ({path.stat().st_size / 1e6:.1f} MB)")


def make_corpus(directory: Path, count: int) -> list[Path]:
    print(f"corpus {directory.name}: {count} captures ...", flush=True)
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make_fleet_corpus.py"), str(directory), "--count", str(count)],
                   check=True)
    return sorted(directory.glob("c*.btsnoop"))


def build_floor(out: Path) -> Path:
    floor = out / "sqlite_floor"
    source = ROOT / "Scripts" / "sqlite_floor.c"
    if not floor.exists() or floor.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["cc", "-O2", "-o", str(floor), str(source), "-lsqlite3"], check=True)
    return floor


def packet_table_sql(db: Path) -> str | None:
    """The timeline's `packet` table as the import created it (the floor's `--table`)."""
    try:
        import sqlite3
        with sqlite3.connect(db) as con:
            row = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'packet'").fetchone()
            return row[0] if row else None
    except Exception:
        return None


def summary_width(db: Path) -> int:
    """The import's mean summary length, so the floor's rows are as wide (48 when unknown)."""
    try:
        import sqlite3
        with sqlite3.connect(db) as con:
            return round(con.execute("SELECT avg(length(summary)) FROM packet").fetchone()[0] or 48)
    except Exception:
        return 48


def line(run: Run, records: int, floor: Run | None = None, tshark: Run | None = None) -> str:
    text = (f"  {run.name:<22} {run.w:6.2f} s wall {records / run.w:>10,.0f} rec/s | {run.c:6.2f} s CPU "
            f"{records / run.c:>10,.0f} rec/s | peak {mb(run.peak):>6}")
    if floor is not None and run is not floor:
        text += f" | {floor.w / run.w:.2f} of floor (CPU {floor.c / run.c:.2f})"
    if tshark is not None and run is not tshark:
        text += f", {tshark.w / run.w:.1f}x tshark (CPU {tshark.c / run.c:.1f}x)"
    if any(s != 0 for s in run.status):
        text += f" (exit {sorted(set(run.status))})"
    return text


def verdict(name: str, ok: bool) -> str:
    return f"{name}: {'met' if ok else 'NOT met'}"


def bench_import_one(out: Path, floor_bin: Path, capture: Path, records: int, rounds: int, tshark: bool = True,
                     before: Path | None = None) -> dict:
    db = out / "bench.db"
    floor_db = out / "floor.db"
    ours, floor, theirs = Run("blereplay import"), Run("sqlite floor"), Run("tshark -T fields")
    # The floor again, its rows in the timeline's own `packet` table (sqlite_floor.c --table):
    # printed beside, for how much of the distance is the row the contract asks for.
    shaped = Run("floor, timeline's row")
    old = Run("import (--before)")
    width, table = 48, None
    for r in range(rounds):
        if db.exists():
            db.unlink()
        measure([str(BIN), "import", str(capture), "--db", str(db)], ours)
        if before is not None:
            (out / "before.db").unlink(missing_ok=True)
            measure([str(before), "import", str(capture), "--db", str(out / "before.db")], old)
            (out / "before.db").unlink(missing_ok=True)
        if r == 0:
            width, table = summary_width(db), packet_table_sql(db)
        _, _, _, _, text = measure([str(floor_bin), str(floor_db), str(width), str(capture)], floor, stdout=subprocess.PIPE)
        floor.rows = int(text.split()[1]) if len(text.split()) > 1 else None
        if table:
            measure([str(floor_bin), "--table", table, str(floor_db), str(width), str(capture)], shaped, stdout=subprocess.PIPE)
        if tshark:
            measure(["tshark", "-r", str(capture), "-T", "fields", "-e", "frame.number", "-e", "btatt.opcode",
                     "-e", "btatt.handle"], theirs)
    timings = subprocess.run([str(BIN), "import", str(capture), "--db", str(out / "timings.db"), "--timings"],
                             capture_output=True, text=True).stderr
    (out / "timings.db").unlink(missing_ok=True)
    print(f"import {capture.name}: {records:,} records, medians of {rounds} interleaved runs "
          f"(floor rows {width}-byte summary + raw bytes)")
    print(line(floor, records))
    if shaped.wall:
        print(line(shaped, records, floor) + " (the timeline's row alone)")
    print(line(ours, records, floor, theirs if tshark else None)
          + (f" | {shaped.w / ours.w:.2f} of the timeline-row floor" if shaped.wall else ""))
    if before is not None:
        print(line(old, records, floor, theirs if tshark else None))
        print(f"  this build over --before: {old.w / ours.w:.2f}x wall, {old.c / ours.c:.2f}x CPU")
    if tshark:
        print(line(theirs, records))
    stages = [s.removeprefix("timing: ").strip() for s in timings.splitlines() if s.startswith("timing: ")]
    if stages:
        print("  stages: " + "; ".join(stages))
    result = {"import_vs_floor": floor.w / ours.w, "import_vs_floor_cpu": floor.c / ours.c, "peak": ours.peak}
    if tshark:
        result["import_vs_tshark"] = theirs.w / ours.w
        result["import_vs_tshark_cpu"] = theirs.c / ours.c
        print(f"  {verdict('>= 0.5 of the floor', result['import_vs_floor'] >= 0.5)}; "
              f"{verdict('>= 5x tshark', result['import_vs_tshark'] >= 5)}; "
              f"{verdict('< 100 MB', ours.peak < 100e6)}")
    return result


def bench_import(out: Path, records: int, rounds: int, before: Path | None = None) -> None:
    floor_bin = build_floor(out)
    bench = out / f"bench-{records}.btsnoop"
    make_capture(bench, records)
    heavy = out / "att-heavy-500000.btsnoop"
    make_capture(heavy, 500_000, "att-heavy")
    bench_import_one(out, floor_bin, bench, records, rounds, before=before)
    bench_import_one(out, floor_bin, heavy, 500_000, rounds, before=before)


def bench_memory(out: Path) -> None:
    peaks = []
    for records in (100_000, 1_000_000, 3_000_000):
        capture = out / f"bench-{records}.btsnoop"
        make_capture(capture, records)
        db = out / "bench-mem.db"
        db.unlink(missing_ok=True)
        wall, cpu, rss, status, _ = measure([str(BIN), "import", str(capture), "--db", str(db)])
        db.unlink(missing_ok=True)
        peaks.append(rss)
        print(f"memory: import of {records:>9,} records: {wall:6.2f} s wall, {cpu:6.2f} s CPU, peak {mb(rss)} (exit {status})")
    print(f"  {verdict('< 100 MB', max(peaks) < 100e6)}; 3M over 100k peak: {peaks[-1] / peaks[0]:.2f}x")


def bench_replay() -> None:
    script = ROOT / "Scripts" / "bench_replay.py"
    if script.exists():
        subprocess.run([sys.executable, str(script)], check=False)
        return
    capture = SHARED / "android-lock-long-session.btsnoop"
    result = subprocess.run([str(BIN), "replay", str(capture), "--bench"], capture_output=True, text=True)
    print(result.stdout.strip() or result.stderr.strip())


def bench_report_corpus(out: Path, floor_bin: Path, files: list[Path], rounds: int, jobs: list[int]) -> dict:
    floor = Run("sqlite floor")
    runs = {j: Run(f"report --jobs {j}") for j in jobs}
    records = 0
    for _ in range(rounds):
        _, _, _, _, text = measure([str(floor_bin), str(out / "floor.db"), "48"] + [str(f) for f in files], floor,
                                   stdout=subprocess.PIPE)
        records = int(text.split()[1])
        for j in jobs:
            measure([str(BIN), "report", *map(str, files), "-o", str(out / f"report-j{j}"), "--jobs", str(j), "--quiet"], runs[j])
    size = sum(f.stat().st_size for f in files)
    print(f"report over {len(files):,} captures ({records:,} records, {size / 1e6:.0f} MB), medians of {rounds} interleaved runs")
    print(line(floor, records))
    for j in jobs:
        print(line(runs[j], records, floor))
    same = all((out / f"report-j{jobs[-1]}" / n).read_bytes() == (out / f"report-j{jobs[0]}" / n).read_bytes()
               for n in ("report.json", "report.md", "report.html"))
    captures = "?"
    try:
        captures = json.loads((out / f"report-j{jobs[0]}" / "report.json").read_text())["captures"]
    except (OSError, ValueError, KeyError):
        pass
    last = runs[jobs[-1]]
    print(f"  captures counted: {captures}; outputs identical across job counts: {'yes' if same else 'NO'}; "
          f"{verdict(f'--jobs {jobs[-1]} >= 0.3 of the floor', floor.w / last.w >= 0.3)}; "
          f"{verdict('< 200 MB', last.peak < 200e6)}")
    if len(jobs) > 1:
        print(f"  --jobs {jobs[-1]} over --jobs {jobs[0]}: {runs[jobs[0]].w / last.w:.2f}x wall")
    return {"report_vs_floor": floor.c / runs[jobs[0]].c, "report_same": same}


def bench_report(out: Path, rounds: int) -> None:
    floor_bin = build_floor(out)
    files = make_corpus(out / "fleet-1200", 1200)
    bench_report_corpus(out, floor_bin, files, rounds, [1, 2])


def bench_verbose(out: Path, records: int = 30_000) -> None:
    generated = out / f"bench-{records}.btsnoop"
    make_capture(generated, records)
    files = [p for p in (SHARED / "android-classic-spp.btsnoop", SHARED / "android-lock-long-session.btsnoop") if p.exists()]
    for capture in files + [generated]:
        ours, _, ours_rss, ours_status, _ = measure([str(BIN), "timeline", str(capture), "-v"])
        theirs, _, theirs_rss, theirs_status, _ = measure(["tshark", "-r", str(capture), "-V"])
        print(f"timeline -v {capture.name}: {ours:.2f} s, peak memory {mb(ours_rss)} (exit {ours_status}); "
              f"tshark -V {theirs:.2f} s, peak memory {mb(theirs_rss)} (exit {theirs_status}); "
              f"{ours / theirs:.2f}x tshark's time (target <= 3x)")


def check(out: Path) -> int:
    """The CI speed regression check: ratios in one run against `CHECK_BOUNDS`."""
    started = time.perf_counter()
    floor_bin = build_floor(out)
    results: dict = {}
    for name, profile in (("check-gateway-100000.btsnoop", "gateway"), ("check-att-heavy-100000.btsnoop", "att-heavy")):
        capture = out / name
        make_capture(capture, 100_000, profile)
        r = bench_import_one(out, floor_bin, capture, 100_000, 3, tshark=profile == "gateway")
        for k, v in r.items():
            results[k] = min(results.get(k, v), v)
    files = make_corpus(out / "check-fleet-120", 120)
    results.update(bench_report_corpus(out, floor_bin, files, 3, [1]))
    failed = []
    for key, bound in CHECK_BOUNDS.items():
        value = results.get(key if key != "import_vs_floor" else "import_vs_floor_cpu")
        if key == "import_vs_tshark":
            value = results.get("import_vs_tshark_cpu")
        ok = value is not None and value >= bound
        print(f"speed check {key}: {value:.2f} (CPU-time ratio, bound {bound})" + ("" if ok else "  FAILED"))
        if not ok:
            failed.append(key)
    if not results.get("report_same", True):
        failed.append("report_same")
    print(f"speed check: {'passed' if not failed else 'FAILED: ' + ', '.join(failed)} "
          f"({time.perf_counter() - started:.0f} s)")
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-out")
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--only", nargs="*", default=None, help="run only these stages")
    parser.add_argument("--check", action="store_true", help="the CI speed regression check")
    parser.add_argument("--before", type=Path, default=None,
                        help="another blereplay binary (an older build kept aside): its imports run interleaved "
                             "in the same rounds and are printed beside this build's")
    args = parser.parse_args()
    stages = ("import", "memory", "replay", "report", "verbose")
    if args.only is not None:
        args.skip = [s for s in stages if s not in args.only]
    if not BIN.exists():
        sys.exit(f"{BIN} is missing: run `swift build -c release` (make bench does)")
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; binary {BIN}")
    if args.check:
        sys.exit(check(args.out))
    if "import" not in args.skip:
        bench_import(args.out, args.records, args.rounds, args.before.resolve() if args.before else None)
    if "memory" not in args.skip:
        bench_memory(args.out)
    if "replay" not in args.skip:
        bench_replay()
    if "report" not in args.skip:
        bench_report(args.out, max(1, args.rounds // 2))
    if "verbose" not in args.skip:
        bench_verbose(args.out)


if __name__ == "__main__":
    main()
