"""Where a bulk load's time goes: the forked worker, the parent's staging, and the write under the lock.

Run:  cd /work/main && PYTHONPATH=src python3 bench/ledger_phases.py [n] [--runs N]
      (default 1000000 synthetic facts, bench/ledger_core.py's data, 1 run)

``Ledger.bulk_assert`` of ``n`` plain records into a fresh file, split into
- the forked worker (ledger.pipeline): its CPU (reaped child, ``os.times``);
- staging without the lock (ledger.plain.stage_plain): wall, the parent's CPU (all threads), the
  calling thread's, the writer thread's staging inserts, and how long the parent waited on the
  worker's pipe (unpickling included);
- the write under the lock: every SQL statement from ``BEGIN IMMEDIATE`` on, timed from its start
  to the next one's (sqlite3 trace callback), as wall, calling-thread CPU and all threads' CPU
  (SQLite's sorter helper threads build index runs beside the calling thread).
The timers wrap module functions for the run only; the load itself is the library's.  A figure
measured here is a breakdown, not a benchmark: quote bench/ledger_core.py for the rate.
"""
from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ledger_core import make_records  # noqa: E402

from holokb.ledger import Ledger  # noqa: E402
from holokb.ledger import pipeline, plain  # noqa: E402


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def _load_avg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " / ".join(f.read().split()[:3])
    except OSError:
        return "n/a"


def measure(records: list, workdir: str) -> dict:
    """One fresh-file bulk_assert of ``records`` with the phase timers installed."""
    got: dict = {"wait": 0.0, "ins_cpu": 0.0, "ins_wall": 0.0}
    stmts: list[tuple[float, float, float, str]] = []
    forked, stage, insert = pipeline.forked_chunks, plain.stage_plain, plain._insert_rows

    def timed_forked(source, **kw):
        it = forked(source, **kw)
        while True:
            t = time.perf_counter()
            try:
                c = next(it)
            except StopIteration:
                got["wait"] += time.perf_counter() - t
                return
            got["wait"] += time.perf_counter() - t
            yield c

    def timed_stage(*a, **k):
        t, c, m = time.perf_counter(), time.process_time(), time.thread_time()
        try:
            return stage(*a, **k)
        finally:
            got["stage"] = (time.perf_counter() - t, time.process_time() - c, time.thread_time() - m)

    def timed_insert(*a):
        t, w = time.thread_time(), time.perf_counter()
        try:
            insert(*a)
        finally:
            got["ins_cpu"] += time.thread_time() - t
            got["ins_wall"] += time.perf_counter() - w

    def trace(sql: str) -> None:
        stmts.append((time.perf_counter(), time.thread_time(), time.process_time(), " ".join(sql.split())[:70]))

    path = os.path.join(workdir, "kb.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    pipeline.forked_chunks, plain.stage_plain, plain._insert_rows = timed_forked, timed_stage, timed_insert
    gc.collect()
    try:
        with Ledger.open(path) as led:
            led._db.set_trace_callback(trace)
            k0 = _children_cpu()
            t0, c0, m0 = time.perf_counter(), time.process_time(), time.thread_time()
            led.bulk_assert(records, at=1_000)
            end = (time.perf_counter(), time.thread_time(), time.process_time())
            led._db.set_trace_callback(None)
            got["worker"] = _children_cpu() - k0
    finally:
        pipeline.forked_chunks, plain.stage_plain, plain._insert_rows = forked, stage, insert
    got["total"] = (end[0] - t0, end[2] - c0, end[1] - m0)
    stmts.append((*end, "(end of bulk_assert)"))
    begin = max((i for i, s in enumerate(stmts) if s[3].startswith("BEGIN IMMEDIATE")), default=len(stmts) - 1)
    got["locked"] = [(b[0] - a[0], b[1] - a[1], b[2] - a[2], a[3]) for a, b in zip(stmts[begin:], stmts[begin + 1:])]
    return got


def report(n: int, got: dict) -> None:
    wall, cpu, thread = got["total"]
    print(f"{n} facts: wall {wall:.2f} s, parent cpu {cpu:.2f} (calling thread {thread:.2f}), "
          f"forked worker cpu {got['worker']:.2f}  [load {_load_avg()}]")
    if "stage" in got:
        sw, sc, st = got["stage"]
        print(f"  staging, no lock: wall {sw:.2f}, parent cpu {sc:.2f} = calling thread {st:.2f} + other threads "
              f"{sc - st:.2f} (staging inserts {got['ins_cpu']:.2f} cpu); waited on the worker {got['wait']:.2f} s wall")
    locked = got["locked"]
    print(f"  under the lock: wall {sum(r[0] for r in locked):.2f}, calling thread {sum(r[1] for r in locked):.2f}, "
          f"all threads {sum(r[2] for r in locked):.2f}")
    rest = [0.0, 0.0, 0.0]
    for w, t, c, sql in locked:
        if w >= 0.01:
            print(f"    {w:6.2f} wall {t:6.2f} thread {c:6.2f} cpu  {sql}")
        else:
            rest = [rest[0] + w, rest[1] + t, rest[2] + c]
    print(f"    {rest[0]:6.2f} wall {rest[1]:6.2f} thread {rest[2]:6.2f} cpu  (statements under 10 ms)")


def main(argv: list[str]) -> None:
    runs = 1
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        del argv[i:i + 2]
    n = int(argv[0]) if argv else 1_000_000
    records = make_records(n)
    workdir = tempfile.mkdtemp(prefix="holokb-phases-")
    try:
        for _ in range(runs):
            report(n, measure(records, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
