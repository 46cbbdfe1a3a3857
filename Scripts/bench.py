#!/usr/bin/env python3
"""`make bench`: throughput and peak memory of the blereplay pipeline, measured in one run.

    python3 Scripts/bench.py [--records N] [--out DIR] [--skip STAGE ...]

Stages (each prints its own figures):
  import   `blereplay import` of a generated capture of N records (default 1,000,000, made by
           Scripts/make_bench_capture.py from a realistic gateway session), against
           `tshark -r FILE -T fields -e frame.number -e btatt.opcode -e btatt.handle` on the same file,
           with the import's stages (`import --timings`) and the SQLite floor: the same number of
           bare one-row-per-record INSERTs from C (Scripts/sqlite_floor.c), nothing decoded.
  memory   the same import on a capture 3x larger, to show peak memory does not grow with size.
  replay   `blereplay replay --bench` on the largest shared capture (when the replay command exists).
  report   `blereplay report` over 200 generated captures, serial vs parallel (when it exists).
  verbose  `blereplay timeline FILE -v` against `tshark -r FILE -V`, both to /dev/null, on the two
           largest shared captures and a generated capture of 30,000 records (target: at most 3x
           tshark's time), with peak memory. Alone: `python3 Scripts/bench.py --only verbose`.

Peak memory is the child's maximum resident set size from wait4(2), not an estimate.
Figures vary with the machine; rerun to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".build" / "release" / "blereplay"


def measure(argv: list[str], stdout=subprocess.DEVNULL) -> tuple[float, int, int]:
    """Runs argv; returns (seconds, peak RSS in bytes, exit status)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if proc.stderr:
        err = proc.stderr.read().decode(errors="replace").strip()
        if err and os.waitstatus_to_exitcode(status) not in (0, 1):
            print(f"    stderr: {err[:400]}")
    return elapsed, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def make_capture(path: Path, records: int) -> None:
    if path.exists() and path.stat().st_size > 0 and path.with_suffix(".records").exists() \
            and path.with_suffix(".records").read_text().strip() == str(records):
        return
    print(f"generating {path.name}: {records:,} records ...", flush=True)
    t = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "Scripts" / "make_bench_capture.py"), str(path),
                    "--records", str(records)], check=True, stdout=subprocess.DEVNULL)
    path.with_suffix(".records").write_text(str(records))
    print(f"  generated in {time.perf_counter() - t:.1f} s ({path.stat().st_size / 1e6:.1f} MB)")


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def bench_import(out: Path, records: int) -> None:
    capture = out / f"bench-{records}.btsnoop"
    make_capture(capture, records)
    db = out / "bench.db"
    if db.exists():
        db.unlink()
    timings = out / "import-timings.txt"
    with timings.open("w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([str(BIN), "import", str(capture), "--db", str(db), "--timings"],
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        secs = time.perf_counter() - start
    status, rss = os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024
    ours = records / secs
    print(f"blereplay import: {records:,} records in {secs:.2f} s = {ours:,.0f} records/s, "
          f"peak memory {mb(rss)} (exit {status}, timeline {mb(db.stat().st_size) if db.exists() else '-'})")
    stages = [line.removeprefix("timing: ").strip() for line in timings.read_text().splitlines()
              if line.startswith("timing: ")]
    if stages:
        print("  stages: " + "; ".join(stages))
    tsecs, trss, tstatus = measure(["tshark", "-r", str(capture), "-T", "fields", "-e", "frame.number",
                                    "-e", "btatt.opcode", "-e", "btatt.handle"])
    theirs = records / tsecs
    print(f"tshark -T fields:  {records:,} records in {tsecs:.2f} s = {theirs:,.0f} records/s, "
          f"peak memory {mb(trss)} (exit {tstatus})")
    print(f"speed-up over tshark: {ours / theirs:.1f}x (target >= 10x); peak memory target < 100 MB")
    bench_floor(out, db, records, tsecs)


def bench_floor(out: Path, db: Path, records: int, tshark_secs: float) -> None:
    """SQLite alone storing one row per record, from C (Scripts/sqlite_floor.c): the part of an
    import no decoder can speed up. Rows are as wide as the import's (mean summary and raw bytes)."""
    floor = out / "sqlite_floor"
    source = ROOT / "Scripts" / "sqlite_floor.c"
    if not floor.exists() or floor.stat().st_mtime < source.stat().st_mtime:
        built = subprocess.run(["cc", "-O2", "-o", str(floor), str(source), "-lsqlite3"], capture_output=True, text=True)
        if built.returncode != 0:
            print(f"sqlite floor: cannot build {source.name}: {built.stderr.strip()[:300]}")
            return
    summary, raw = 48, 33
    try:
        import sqlite3
        with sqlite3.connect(db) as con:
            summary, raw = (round(v or 0) for v in con.execute(
                "SELECT avg(length(summary)), avg(length(raw)) FROM packet").fetchone())
    except Exception:  # an older timeline or none: keep the defaults
        pass
    result = subprocess.run([str(floor), str(out / "floor.db"), str(records), str(summary), str(raw)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        print(f"sqlite floor: failed: {result.stderr.strip()[:300]}")
        return
    secs = float(result.stdout.strip())
    budget = tshark_secs / 10
    print(f"sqlite floor: {records:,} bare INSERTs ({summary}-byte summary, {raw}-byte raw, no index, from C) "
          f"take {secs:.2f} s = {records / secs:,.0f} rows/s = {tshark_secs / secs:.1f}x tshark; "
          f"10x tshark allows {budget:.2f} s for the whole import")


def bench_memory(out: Path, records: int) -> None:
    capture = out / f"bench-{records}.btsnoop"
    make_capture(capture, records)
    db = out / "bench-big.db"
    if db.exists():
        db.unlink()
    secs, rss, status = measure([str(BIN), "import", str(capture), "--db", str(db)])
    print(f"blereplay import: {records:,} records in {secs:.2f} s = {records / secs:,.0f} records/s, "
          f"peak memory {mb(rss)} (exit {status})")


def bench_replay() -> None:
    capture = ROOT.parent / "shared" / "captures" / "android-lock-long-session.btsnoop"
    probe = subprocess.run([str(BIN), "help"], capture_output=True, text=True)
    if "replay" not in probe.stdout:
        print("replay: command not built yet, skipped")
        return
    result = subprocess.run([str(BIN), "replay", str(capture), "--bench"], capture_output=True, text=True)
    print(result.stdout.strip() or result.stderr.strip())


def bench_report(out: Path, captures: int = 200, records: int = 5000) -> None:
    """`blereplay report` over CAPTURES generated captures: one job, then one per core.

    Each capture is imported into its own scratch timeline, analysed and reduced, so the time
    per capture is the whole pipeline; the speed-up is serial time over parallel time."""
    probe = subprocess.run([str(BIN), "help"], capture_output=True, text=True)
    if "report" not in probe.stdout:
        print("report: command not built yet, skipped")
        return
    fleet = out / "fleet"
    fleet.mkdir(exist_ok=True)
    existing = sorted(fleet.glob("*.btsnoop"))
    if len(existing) < captures:
        print(f"generating {captures} fleet captures of {records:,} records ...", flush=True)
        for i in range(captures):
            path = fleet / f"c{i:03}.btsnoop"
            if path.exists() and path.stat().st_size > 0:
                continue
            subprocess.run([sys.executable, str(ROOT / "Scripts" / "make_bench_capture.py"), str(path),
                            "--records", str(records), "--seed", str(1000 + i)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    size = sum(p.stat().st_size for p in fleet.glob("*.btsnoop"))
    cores = os.cpu_count() or 1
    times: dict[int, float] = {}
    for jobs in sorted({1, cores}):
        report_dir = out / f"report-j{jobs}"
        secs, rss, status = measure([str(BIN), "report", str(fleet), "-o", str(report_dir), "--jobs", str(jobs)])
        counted = "?"
        try:
            counted = json.loads((report_dir / "report.json").read_text())["captures"]
        except (OSError, ValueError, KeyError):
            pass
        times[jobs] = secs
        print(f"report over {counted} captures ({size / 1e6:.1f} MB) with {jobs} job(s): {secs:.2f} s = "
              f"{secs / captures * 1000:.1f} ms per capture, peak memory {mb(rss)} (exit {status})")
    if len(times) > 1:
        print(f"parallel speed-up with {cores} jobs: {times[1] / times[cores]:.2f}x on {cores} cores")
    same = all((out / f"report-j{cores}" / name).read_bytes() == (out / "report-j1" / name).read_bytes()
               for name in ("report.json", "report.md", "report.html")) if len(times) > 1 else True
    print(f"outputs identical across job counts: {'yes' if same else 'NO'}")


def bench_verbose(out: Path, records: int = 30_000) -> None:
    """`timeline -v` (the capture imported on the fly, then every packet with its decoded layers
    and hex dump) against tshark -V, on the same files."""
    generated = out / f"bench-{records}.btsnoop"
    make_capture(generated, records)
    shared = ROOT.parent / "shared" / "captures"
    files = [p for p in (shared / "android-classic-spp.btsnoop", shared / "android-lock-long-session.btsnoop") if p.exists()]
    for capture in files + [generated]:
        ours, ours_rss, ours_status = measure([str(BIN), "timeline", str(capture), "-v"])
        theirs, theirs_rss, theirs_status = measure(["tshark", "-r", str(capture), "-V"])
        print(f"timeline -v {capture.name}: {ours:.2f} s, peak memory {mb(ours_rss)} (exit {ours_status}); "
              f"tshark -V {theirs:.2f} s, peak memory {mb(theirs_rss)} (exit {theirs_status}); "
              f"{ours / theirs:.2f}x tshark's time (target <= 3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-out")
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--only", nargs="*", default=None, help="run only these stages")
    args = parser.parse_args()
    if args.only is not None:
        args.skip = [s for s in ("import", "memory", "replay", "report", "verbose") if s not in args.only]
    if not BIN.exists():
        sys.exit(f"{BIN} is missing: run `swift build -c release` (make bench does)")
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores; binary {BIN.relative_to(ROOT)}")
    if "import" not in args.skip:
        bench_import(args.out, args.records)
    if "memory" not in args.skip:
        bench_memory(args.out, args.records * 3)
    if "replay" not in args.skip:
        bench_replay()
    if "report" not in args.skip:
        bench_report(args.out)
    if "verbose" not in args.skip:
        bench_verbose(args.out)


if __name__ == "__main__":
    main()
