#!/usr/bin/env python3
"""Records what `import` and `report` produce, as digests, so a speed change can prove it changed
nothing (issue 12, "The outputs do not change"; checked by `OutputsUnchangedTests`).

    python3 Scripts/record_output_goldens.py [--bin .build/debug/blereplay] [--out FILE]

From the package root, for every sample capture (`Captures/`) and every capture in
`../shared/captures` (relative paths, so the timeline's `capture.path` is the same everywhere):
`blereplay import CAPTURE --db T` (the analysis included), then per table of T the number of rows
and the SHA-256 of its contents: each row rendered by SQLite's own `quote()` of every stored column
joined with `|`, the lines sorted by SQLite (BINARY collation) and joined with newlines. The test
renders the same lines through the same SQL, so no float or text formatting is reimplemented.
Then `blereplay report CAPTURE... -o DIR --jobs 2 --quiet` over the same captures and the SHA-256 of
every file written, byte for byte, with the exit status. The test reads the list of captures from
the file, so a capture added to `../shared/captures` later does not change what is compared.

Writes `Tests/OutputGoldens/outputs.txt` by default. Re-record only for a change that means to
change an output, and review the diff.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path("../shared/captures")


def captures() -> list[str]:
    """Relative to the package root: the sample captures, then the shared ones."""
    samples = sorted(p.name for p in (ROOT / "Captures").iterdir() if p.suffix in (".btsnoop", ".pcap", ".pcapng", ".pklg"))
    shared = sorted(p.name for p in (ROOT / SHARED).iterdir() if p.is_file() and p.suffix != ".md")
    return [f"Captures/{n}" for n in samples] + [f"{SHARED}/{n}" for n in shared]


def table_digests(db: Path) -> list[tuple[str, int, str]]:
    """(table, rows, sha256) for every table, by name."""
    con = sqlite3.connect(db)
    try:
        out = []
        tables = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for table in tables:
            # table_info lists stored columns only (the generated ones are derived from them).
            columns = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
            line = " || '|' || ".join(f'quote("{c}")' for c in columns)
            rows = [r[0] for r in con.execute(f'SELECT {line} AS line FROM "{table}" ORDER BY line')]
            out.append((table, len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()))
        return out
    finally:
        con.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=".build/debug/blereplay")
    ap.add_argument("--out", type=Path, default=ROOT / "Tests" / "OutputGoldens" / "outputs.txt")
    args = ap.parse_args()
    lines = ["# Recorded by Scripts/record_output_goldens.py; checked by OutputsUnchangedTests.",
             "# timeline CAPTURE TABLE ROWS SHA256 | import CAPTURE EXIT | report FILE SHA256 | report-exit EXIT"]
    with tempfile.TemporaryDirectory() as tmp:
        for i, capture in enumerate(captures()):
            db = Path(tmp) / f"{i}.db"
            r = subprocess.run([args.bin, "import", capture, "--db", str(db)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            lines.append(f"import {capture} {r.returncode}")
            if db.exists():
                for table, rows, digest in table_digests(db):
                    lines.append(f"timeline {capture} {table} {rows} {digest}")
        out = Path(tmp) / "report"
        r = subprocess.run([args.bin, "report", *captures(), "-o", str(out), "--jobs", "2", "--quiet"],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines.append(f"report-exit {r.returncode}")
        for f in sorted(out.iterdir()):
            lines.append(f"report {f.name} {hashlib.sha256(f.read_bytes()).hexdigest()}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {len(lines) - 2} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
