"""Command-line start-up: ``holokb --help`` and ``holokb stats`` against peers, in one run.

Run:  PYTHONPATH=src python3 bench/cli.py [--runs 10]

Every command is a fresh process (what a user waits for), timed wall-clock from spawn to exit;
the commands are run interleaved (one of each per round) so a load spike hits all of them alike,
and each figure is the median over the rounds.  Peers on the same machine in the same run:
``python3 -c pass`` (the interpreter's own start, the floor), ``python3 -c 'import typer'`` (the
CLI framework alone) and rdflib's own command line ``rdfpipe --help`` (when installed).  The
ratio column is the command's median over ``python3 -c pass``'s.  ``holokb stats`` runs on a
ledger holding the example KB, made in a temporary folder before timing.  The load average is
printed beside the figures: the machine is shared.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-500:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="rounds (each runs every command once)")
    args = ap.parse_args()

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="holokb-bench-cli-"))
    try:
        subprocess.run([py, "-m", "holokb", "init", str(work)], env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([py, "-m", "holokb", "load", "kb/", "--at", "2026-01-01"], cwd=work, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        commands: list[tuple[str, list[str]]] = [
            ("python3 -c pass", [py, "-c", "pass"]),
            ("python3 -c 'import typer'", [py, "-c", "import typer"]),
            ("holokb --help", [py, "-m", "holokb", "--help"]),
            ("holokb stats", [py, "-m", "holokb", "stats"]),
        ]
        rdfpipe = shutil.which("rdfpipe")
        if rdfpipe:
            commands.append(("rdfpipe --help (rdflib)", [rdfpipe, "--help"]))
        for _, cmd in commands:  # warm the file cache and byte-code caches once
            timed(cmd, work, env)
        samples: dict[str, list[float]] = {name: [] for name, _ in commands}
        load_before = os.getloadavg()
        for _ in range(args.runs):
            for name, cmd in commands:
                samples[name].append(timed(cmd, work, env))
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    floor = statistics.median(samples["python3 -c pass"])
    print(f"median of {args.runs} interleaved runs; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after ({os.cpu_count()} cores)")
    print(f"{'command':<28} {'median s':>9} {'min s':>7} {'max s':>7} {'x python':>9}")
    for name, _ in commands:
        xs = samples[name]
        med = statistics.median(xs)
        print(f"{name:<28} {med:>9.3f} {min(xs):>7.3f} {max(xs):>7.3f} {med / floor:>9.2f}")


if __name__ == "__main__":
    main()
