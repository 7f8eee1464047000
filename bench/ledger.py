"""Bulk load of LUBM(1,0) (100,543 triples, N-Triples.gz): holokb ledger vs rdflib vs pyoxigraph.

    cd /work/main && PYTHONPATH=src python3 bench/ledger.py [--runs 3] [--profile]

Each row is the median of ``--runs`` runs measured in this process, from the gzipped file to
a loaded store: holokb = holokb.rdf.import_file (parse, then Ledger.bulk_assert) into a fresh file;
rdflib = Graph().parse (in memory); pyoxigraph = Store().bulk_load in memory and on disk.
rdflib runs once when its first run takes more than 20 s.  ``--profile`` adds a cProfile of one
holokb load (top functions by own time), to show where the time goes.
"""
from __future__ import annotations

import argparse
import cProfile
import gzip
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from holokb.ledger import Ledger  # noqa: E402
from holokb.rdf import import_file, read_records  # noqa: E402

AT = 1_767_225_600_000


def corpus() -> Path:
    root = Path(os.environ.get("HOLOKB_CORPORA", ROOT.parent / "shared" / "corpora"))
    path = root / "lubm" / "lubm_1_0_seed0.nt.gz"
    if not path.exists():
        sys.exit(f"LUBM corpus not found at {path} (set HOLOKB_CORPORA)")
    return path


def holokb_parse(path: Path) -> tuple[int, dict]:
    t0 = time.perf_counter()
    recs = read_records(path, at=AT, source_id=path.name)
    return len(recs), {"parse": time.perf_counter() - t0}


def holokb_load(path: Path) -> tuple[int, dict]:
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        with Ledger.open(Path(d) / "kb.db") as led:
            n = import_file(led, path, at=AT, source_id=path.name)
        t1 = time.perf_counter()
    return n, {}


def rdflib_load(path: Path) -> tuple[int, dict]:
    import rdflib

    g = rdflib.Graph()
    g.parse(data=gzip.decompress(path.read_bytes()), format="nt")
    return len(g), {}


def oxigraph_memory(path: Path) -> tuple[int, dict]:
    import pyoxigraph as ox

    s = ox.Store()
    s.bulk_load(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.N_TRIPLES)
    return len(s), {}


def oxigraph_disk(path: Path) -> tuple[int, dict]:
    import pyoxigraph as ox

    with tempfile.TemporaryDirectory() as d:
        s = ox.Store(str(Path(d) / "ox"))
        s.bulk_load(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.N_TRIPLES)
        s.flush()
        n = len(s)
        del s
    return n, {}


def measure(fn, path: Path, runs: int, once_over: float | None = None) -> tuple[float, int, dict, int]:
    times, parts, n = [], [], 0
    for i in range(runs):
        t0 = time.perf_counter()
        n, part = fn(path)
        times.append(time.perf_counter() - t0)
        parts.append(part)
        if once_over is not None and i == 0 and times[0] > once_over:
            break
    med = statistics.median(times)
    split = {k: statistics.median(p[k] for p in parts) for k in parts[0]} if parts[0] else {}
    return med, n, split, len(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    path = corpus()
    rows = [
        ("holokb parse only (read_records)", holokb_parse, None),
        ("holokb ledger (parse + bulk_assert, disk)", holokb_load, None),
        ("rdflib Graph.parse (memory)", rdflib_load, 20.0),
        ("pyoxigraph bulk_load (memory)", oxigraph_memory, None),
        ("pyoxigraph bulk_load (disk)", oxigraph_disk, None),
    ]
    results = {}
    print(f"LUBM(1,0) {path.name}; median of {args.runs} runs\n")
    print(f"{'system':44} {'triples':>8} {'seconds':>8} {'facts/s':>10} {'runs':>4}")
    for name, fn, once in rows:
        sec, n, split, done = measure(fn, path, args.runs, once)
        results[name] = sec
        extra = "  (" + ", ".join(f"{k} {v:.2f}s" for k, v in split.items()) + ")" if len(split) > 1 else ""
        print(f"{name:44} {n:8d} {sec:8.2f} {n / sec:10,.0f} {done:4d}{extra}")
    hk = results["holokb ledger (parse + bulk_assert, disk)"]
    print("\nratios (higher = holokb ledger faster):")
    for name in ("rdflib Graph.parse (memory)", "pyoxigraph bulk_load (memory)", "pyoxigraph bulk_load (disk)"):
        print(f"  vs {name:40} {results[name] / hk:6.2f}x")
    print("targets: >= 5x rdflib, >= 1x pyoxigraph on disk")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        holokb_load(path)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
        print("\nprofile of one holokb load (own time):")
        print(out.getvalue())


if __name__ == "__main__":
    main()
