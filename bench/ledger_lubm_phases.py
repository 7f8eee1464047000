"""Where a project-folder load of LUBM(1,0) waits: a timeline of one KnowledgeBase.load.

Run:  cd /work/main && PYTHONPATH=src HOLOKB_CORPORA=/work/shared/corpora python3 bench/ledger_lubm_phases.py [--runs N]

For each run (a fresh file in a temporary folder, the shapes ``holokb init`` scaffolds, as
bench/ledger.py's "project folder" row) it prints
- each phase of the load with its start (seconds from KnowledgeBase.open), wall time, the
  calling thread's CPU and the process's CPU (all threads): open, stage_plain (the forked worker
  parses while this process stages), the gate, the entities, write_staged (the locked write),
  close;
- when each chunk arrived from the forked worker (the gaps show who waits on whom: this process
  waits on the worker when the gaps are longer than its own per-chunk work), and the worker's CPU;
- every SQL statement of the locked write (sqlite3 trace callback), timed from its start to the
  next statement's: wall, calling thread, all threads.
The timers wrap functions for the run only; the load is the library's.  A breakdown, not a
benchmark: quote bench/ledger.py for the ratios, and read CPU, not wall, on a loaded machine.
"""
from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from pathlib import Path

from holokb.kb import KnowledgeBase
from holokb.ledger import pipeline, plain, store
from holokb.resources import data_dir

AT = 1_767_225_600_000


def _corpus() -> Path:
    root = Path(os.environ.get("HOLOKB_CORPORA", Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"))
    path = root / "lubm" / "lubm_1_0_seed0.nt.gz"
    if not path.exists():
        sys.exit(f"LUBM corpus not found at {path} (set HOLOKB_CORPORA)")
    return path


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def one_run(path: Path) -> None:
    t0 = time.perf_counter()
    phases: list[tuple[str, float, float, float, float]] = []
    arrivals: list[float] = []
    stmts: list[tuple[float, float, float, str]] = []
    saved = []

    def wrap(owner: object, name: str, label: str) -> None:
        real = getattr(owner, name)
        saved.append((owner, name, real))

        def timed(*a, **k):
            t, c, p = time.perf_counter(), time.thread_time(), time.process_time()
            try:
                return real(*a, **k)
            finally:
                phases.append((label, t - t0, time.perf_counter() - t, time.thread_time() - c, time.process_time() - p))
        setattr(owner, name, timed)

    real_forked = pipeline.forked_chunks

    def forked(source, **kw):
        for c in real_forked(source, **kw):
            arrivals.append(time.perf_counter() - t0)
            yield c

    real_write = store.Ledger.write_staged

    def write(self, *a, **k):
        self._db.set_trace_callback(lambda s: stmts.append((time.perf_counter(), time.thread_time(),
                                                              time.process_time(), s)))
        try:
            return real_write(self, *a, **k)
        finally:
            stmts.append((time.perf_counter(), time.thread_time(), time.process_time(), "(end)"))
            self._db.set_trace_callback(None)

    wrap(plain, "stage_plain", "stage_plain (worker parses)")
    wrap(KnowledgeBase, "_gate_plain", "gate (shapes)")
    saved.append((store.Ledger, "write_staged", real_write))
    store.Ledger.write_staged = write  # type: ignore[method-assign]
    wrap(store.Ledger, "write_staged", "write_staged (locked write)")
    saved.append((pipeline, "forked_chunks", real_forked))
    pipeline.forked_chunks = forked  # type: ignore[assignment]
    try:
        gc.collect()
        k0, c0, m0 = _children_cpu(), time.process_time(), time.thread_time()
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as d:
            t, c, p = time.perf_counter(), time.thread_time(), time.process_time()
            kb = KnowledgeBase.open(Path(d) / "kb.db", shapes=[data_dir("shapes")])
            phases.append(("open", 0.0, time.perf_counter() - t, time.thread_time() - c, time.process_time() - p))
            try:
                kb.load([path], at=AT)
            finally:
                t, c, p = time.perf_counter(), time.thread_time(), time.process_time()
                kb.close()
                phases.append(("close", t - t0, time.perf_counter() - t, time.thread_time() - c,
                               time.process_time() - p))
        wall = time.perf_counter() - t0
    finally:
        for owner, name, real in reversed(saved):
            setattr(owner, name, real)
    print(f"load: wall {wall:.3f} s, this process {time.process_time() - c0:.3f} s CPU (calling thread "
          f"{time.thread_time() - m0:.3f}), forked worker {_children_cpu() - k0:.3f} s CPU; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  {'phase':30} {'start':>6} {'wall':>6} {'thread':>6} {'proc':>6}")
    for label, start, w, th, pr in sorted(phases, key=lambda x: x[1]):
        print(f"  {label:30} {start:6.3f} {w:6.3f} {th:6.3f} {pr:6.3f}")
    if arrivals:
        gaps = " ".join(f"{b - a:.3f}" for a, b in zip(arrivals, arrivals[1:]))
        print(f"  {len(arrivals)} chunks from the worker: first at {arrivals[0]:.3f}, last at {arrivals[-1]:.3f}; gaps {gaps}")
    print(f"  locked write, per statement: {'wall':>6} {'thread':>6} {'proc':>6}")
    for (ta, ca, pa, s), (tb, cb, pb, _) in zip(stmts, stmts[1:]):
        if tb - ta >= 0.002:
            print(f"    {' '.join(s.split())[:60]:60} {tb - ta:6.3f} {cb - ca:6.3f} {pb - pa:6.3f}")


def main(argv: list[str]) -> None:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 2
    path = _corpus()
    for _ in range(runs):
        one_run(path)


if __name__ == "__main__":
    main(sys.argv[1:])
