#!/usr/bin/env python3
"""`make bench` (warehouse part, issue 13): ingest throughput and report time on PostgreSQL.

    python3 Scripts/bench_warehouse.py [--bin PATH] [--rate-captures N] [--captures N] [--keep DIR]
                                       [--rate-only] [--corpus DIR]

Starts a throwaway PostgreSQL cluster (Debian's postgresql: initdb in a temporary directory,
Unix socket only, run as the postgres user when this runs as root), then measures:

  rate    captures ingested per second by `blereplay ingest --jobs 1` and `--jobs 2` (two
          concurrent workers, one connection each), each into an empty database, over N generated
          sessions (Scripts/blegen/sessions.py, default 400), or over the captures in --corpus
          (Scripts/make_fleet_corpus.py's, ../shared/captures): with the records stored per second
          and the ingest's own CPU time (user + system, the server's left aside) per 1,000 records;
  report  `blereplay report --warehouse` over a warehouse holding --captures ingested captures
          (default 10,000 generated sessions, ingested with --jobs 2 first; that ingest's rate is
          printed too), writing every format, with the server's peak memory left aside: the
          figure is the wall time of the command and its own peak RSS.

--rate-only skips the report part. Figures vary with the machine and its load (CPU times less
than wall times); rerun to compare.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


class Cluster:
    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        if not bins:
            sys.exit("bench_warehouse: no initdb under /usr/lib/postgresql/*/bin (make deps installs postgresql)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="blereplay-bench-pg-")
        self.root = os.geteuid() == 0
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        os.chmod(self.dir, 0o755)
        self.owner(["initdb", "-D", f"{self.dir}/data", "-U", "bench", "-E", "UTF8", "--locale=C", "-A", "trust"])
        self.owner(["pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/log", "-w", "-o",
                    f"-c listen_addresses='' -k {self.dir} -c fsync=off -c synchronous_commit=off", "start"])

    def owner(self, argv):
        argv = [f"{self.bin}/{argv[0]}"] + argv[1:]
        run((["runuser", "-u", "postgres", "--"] if self.root else []) + argv)

    def url(self, db):
        return f"host={self.dir} port=5432 dbname={db} user=bench"

    def create(self, db):
        run([f"{self.bin}/psql", "-X", "-q", "-d", self.url("postgres"), "-c", f"CREATE DATABASE {db}"])
        return self.url(db)

    def scalars(self, url, sql):
        out = subprocess.run([f"{self.bin}/psql", "-X", "-q", "-At", "-F", " ", "-d", url, "-c", sql], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        return [int(v) for v in out.split()]

    def stop(self):
        try:
            self.owner(["pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def sessions(directory: Path, seed: int, count: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "blegen.sessions", str(directory), "--seed", str(seed), "--count", str(count)],
        cwd=ROOT / "Scripts")
    (directory / "sessions.json").unlink(missing_ok=True)


def timed(argv, ok=(0,)) -> tuple[float, int, str, float]:
    """(seconds, peak RSS in bytes, stdout, CPU seconds) of a command that must exit with one of `ok`."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    out, err = proc.stdout.read(), proc.stderr.read()
    if os.waitstatus_to_exitcode(status) not in ok:
        sys.exit(f"bench_warehouse: {' '.join(argv[:3])} failed: {err.strip()}")
    return seconds, usage.ru_maxrss * 1024, out, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build" / "release" / "blereplay"))
    ap.add_argument("--rate-captures", type=int, default=400)
    ap.add_argument("--captures", type=int, default=10_000)
    ap.add_argument("--keep", help="generate the captures here and keep them (reused when present)")
    ap.add_argument("--rate-only", action="store_true", help="measure the ingest rate only")
    ap.add_argument("--corpus", help="measure the ingest rate over the captures in this folder instead of generated sessions")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="blereplay-bench-wh-"))
    cluster = Cluster()
    try:
        if args.corpus:
            rate_dir = Path(args.corpus)
        else:
            rate_dir = work / "rate"
            if not rate_dir.exists():
                sessions(rate_dir, 40_000, args.rate_captures)
        files = [p for p in rate_dir.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt", ".json")]
        print(f"warehouse ingest: {len(files)} files from {rate_dir} ({sum(p.stat().st_size for p in files) // 1024} KiB)")
        for jobs in (1, 2):
            url = cluster.create(f"rate{jobs}")
            # 65: a corpus may hold inputs that cannot be read (they are named, the rest stored).
            seconds, rss, _, cpu = timed([args.bin, "ingest", str(rate_dir), "--warehouse", url, "--jobs", str(jobs), "--quiet"],
                                         ok=(0, 65))
            n, records = cluster.scalars(url, "SELECT count(*), coalesce(sum(records), 0) FROM blereplay.capture")
            print(f"  {jobs} worker(s): {n / seconds:7.1f} captures/s, {records / seconds:9.0f} records/s "
                  f"({n} captures, {records} records, {seconds:.2f} s; CPU {cpu:.2f} s, {1e6 * cpu / max(records, 1):.1f} us a record; "
                  f"peak RSS {rss / 2**20:.0f} MiB)")
        if args.rate_only:
            return

        big = work / "fleet"
        have = len(list(big.glob("*.btsnoop"))) if big.exists() else 0
        if have < args.captures:
            shutil.rmtree(big, ignore_errors=True)
            start = time.perf_counter()
            sessions(big, 100_000, args.captures)
            print(f"generated {args.captures} captures in {time.perf_counter() - start:.0f} s")
        url = cluster.create("fleet")
        seconds, _, _, _ = timed([args.bin, "ingest", str(big), "--warehouse", url, "--jobs", "2", "--quiet"])
        print(f"warehouse ingest of {args.captures} captures, 2 workers: {args.captures / seconds:.1f} captures/s ({seconds:.0f} s)")
        out = work / "report"
        seconds, rss, _, _ = timed([args.bin, "report", "--warehouse", url, "-o", str(out), "--quiet"])
        print(f"report --warehouse over {args.captures} captures: {seconds:.2f} s (peak RSS {rss / 2**20:.0f} MiB)")
    finally:
        cluster.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
