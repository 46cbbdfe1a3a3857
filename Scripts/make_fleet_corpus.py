#!/usr/bin/env python3
"""A corpus of distinct small captures for the `report` benchmark (issue 12): what a fleet's
phones and gateways upload, each a short session.

    Scripts/make_fleet_corpus.py DIR [--count N] [--seed S] [--min-records A] [--max-records B]

Writes DIR/c0000.btsnoop ... with one Python process (no start-up per file). Capture i has its own
seed (S * 100000 + i), so every capture differs; its size is drawn between A and B records (default
500-4,500, about 2,500 on average: 1,200 captures hold about 3M records) and its kind from the two
profiles of `make_bench_capture.py`: 70 % `gateway` sessions (1-3 links at once), 30 % `att-heavy`
ones (4-12 links, fragmented notifications). Deterministic: the same arguments give the same files.
DIR/corpus.txt records the arguments; a corpus made with others is remade, one made with the same is
kept (only missing files are written).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_bench_capture import PROFILES, Bench  # noqa: E402


def plan(count: int, seed: int, lo: int, hi: int) -> list[tuple[str, int, int, str, int]]:
    """(file name, records, seed, profile, concurrency) per capture."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        profile = "att-heavy" if rng.random() < 0.3 else "gateway"
        concurrency = rng.randint(4, 12) if profile == "att-heavy" else rng.randint(1, 3)
        out.append((f"c{i:04}.btsnoop", rng.randint(lo, hi), seed * 100_000 + i, profile, concurrency))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--count", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--min-records", type=int, default=500)
    ap.add_argument("--max-records", type=int, default=4500)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    stamp = args.dir / "corpus.txt"
    wanted = f"count={args.count} seed={args.seed} records={args.min_records}-{args.max_records}\n"
    if not stamp.exists() or stamp.read_text() != wanted:
        for old in args.dir.glob("c*.btsnoop"):
            old.unlink()
    written = 0
    total = 0
    for name, records, seed, profile, concurrency in plan(args.count, args.seed, args.min_records, args.max_records):
        total += records
        path = args.dir / name
        if path.exists() and path.stat().st_size > 0:
            continue
        partial = path.with_suffix(".part")
        with open(partial, "wb", buffering=1 << 20) as f:
            Bench(f, records, seed, concurrency, PROFILES[profile]).run()
        partial.rename(path)
        written += 1
    stamp.write_text(wanted)
    print(f"{args.dir}: {args.count} captures, {total:,} records ({written} written now)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
