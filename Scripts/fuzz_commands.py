#!/usr/bin/env python3
"""Stage 2 of `make fuzz`: every input through every command of `Fuzz/commands.txt` (issue 17).

    python3 Scripts/fuzz_commands.py --bin .build/release/blereplay [--rss-limit-mb 100]
                                     [--timeout 900] [--verbose] [--skip COMMAND ...] INPUT_OR_DIRECTORY...

Each input (a file, or every file under a directory) gets a fresh directory and an empty TMPDIR;
the command lines of `Fuzz/commands.txt` run in order (the first imports the input into the
timeline the others read). A run fails when the process dies of a signal, exits with a code
outside the table's `exit` set, prints one of its `marker`s on standard error (a Swift trap or
backtrace), outlives `--timeout`, leaves anything in its TMPDIR or a `.tmp-` file or SQLite
journal in its directory, or (with `--rss-limit-mb`) peaks above that resident size. Peak RSS
is the kernel's for that one process (wait4).

Prints one line per failure (and per run with --verbose), then the counts: inputs, runs
(inputs x commands), exits by code, crashes, failures by kind, the largest peak RSS per command.
Exits 1 when anything failed. `--skip replay` leaves out the table's lines of that command (their
runs are neither made nor counted), for measuring the others alone.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "Fuzz" / "commands.txt"


def read_table(path: Path) -> tuple[set[int], list[str], list[str]]:
    """(allowed exit codes, stderr markers, command lines) from commands.txt."""
    codes: set[int] = set()
    markers: list[str] = []
    commands: list[str] = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("exit "):
            codes |= {int(c) for c in line.split()[1:]}
        elif line.startswith("marker "):
            markers.append(line[len("marker "):])
        else:
            commands.append(line)
    return codes, markers, commands


def inputs(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file())
        elif p.is_file():
            out.append(p)
    return out


def leftovers(directory: Path, tmpdir: Path) -> list[str]:
    """Temporary files a run left: anything in its TMPDIR, `.tmp-` files and SQLite journals."""
    found = [str(p) for p in tmpdir.rglob("*")]
    for p in directory.rglob("*"):
        if p.is_relative_to(tmpdir):
            continue
        if ".tmp-" in p.name or p.name.endswith(("-journal", "-wal", "-shm")):
            found.append(str(p))
    return found


def run(binary: str, line: str, input_path: Path, work: Path, timeout: float) -> dict:
    """One command line on one input: exit, signal, stderr, peak RSS (KiB), seconds."""
    stdin_path = None
    if line.endswith("< {input}"):
        line, stdin_path = line[: -len("< {input}")].strip(), input_path
    args = [a.format(input=str(input_path), db=str(work / "t.db"), out=str(work / "out")) for a in shlex.split(line)]
    tmpdir = work / "tmp"
    env = dict(os.environ, TMPDIR=str(tmpdir))
    with open(work / "stderr", "w+b") as err, open(stdin_path or os.devnull, "rb") as stdin:
        start = time.monotonic()
        p = subprocess.Popen([binary] + args, cwd=work, env=env, stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=err, start_new_session=True)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(p.pid, 0)
                timed_out = True
                break
            time.sleep(0.02)
        p.returncode = 0  # reaped here, not by Popen
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return {
        "args": args, "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, "stderr": stderr,
        "rss_kb": usage.ru_maxrss, "seconds": seconds, "timed_out": timed_out,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--table", default=str(TABLE))
    ap.add_argument("--rss-limit-mb", type=int)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--skip", action="append", default=[], metavar="COMMAND",
                    help="leave out the command lines of COMMAND (the line's first word); repeatable")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    codes, markers, commands = read_table(Path(a.table))
    commands = [c for c in commands if c.split()[0] not in a.skip]
    files = inputs(a.paths)
    binary = str(Path(a.bin).resolve())
    exits: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    peak: dict[str, tuple[int, str]] = {}
    runs = 0
    for f in files:
        work = Path(tempfile.mkdtemp(prefix="fuzz-commands-"))
        try:
            (work / "tmp").mkdir()
            (work / "out").mkdir()
            for line in commands:
                r = run(binary, line, f.resolve(), work, a.timeout)
                runs += 1
                name = line.split()[0]
                exits[f"signal {r['signal']}" if r["signal"] is not None else f"exit {r['exit']}"] += 1
                problems = []
                if r["timed_out"]:
                    problems.append("hang")
                elif r["signal"] is not None:
                    problems.append("crash")
                elif r["exit"] not in codes:
                    problems.append("exit")
                if any(m in r["stderr"] for m in markers):
                    problems.append("traceback")
                left = leftovers(work, work / "tmp")
                if left:
                    problems.append("leftover")
                if a.rss_limit_mb and r["rss_kb"] > a.rss_limit_mb * 1024:
                    problems.append("memory")
                if r["rss_kb"] > peak.get(name, (0, ""))[0]:
                    peak[name] = (r["rss_kb"], f.name)
                summary = (f"{f.name}: {' '.join(r['args'])}: exit {r['exit']} signal {r['signal']} "
                           f"{r['seconds']:.2f} s {r['rss_kb'] // 1024} MB")
                if problems:
                    for p in problems:
                        failures[p] += 1
                    tail = r["stderr"].strip().splitlines()[-3:]
                    print(f"FAILED ({', '.join(problems)}) {summary}" + (f"; left {left[:3]}" if left else ""))
                    for t in tail:
                        print(f"    {t}")
                elif a.verbose:
                    print(summary)
                sys.stdout.flush()
                # What one command leaves must not be blamed on the next.
                for p in left:
                    Path(p).unlink(missing_ok=True) if not Path(p).is_dir() else shutil.rmtree(p, ignore_errors=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"inputs {len(files)}, commands {len(commands)}, runs {runs}")
    print("exits: " + ", ".join(f"{k} x{v}" for k, v in sorted(exits.items())))
    print(f"crashes: {failures['crash']}; failures: " + (", ".join(f"{k} x{v}" for k, v in sorted(failures.items())) or "none"))
    print("peak RSS: " + ", ".join(f"{k} {v[0] // 1024} MB ({v[1]})" for k, v in sorted(peak.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
