"""Cost of the controlled-English grammar: Earley items and CPU seconds to read ProofWriter contexts.

    cd /work/main && PYTHONPATH=src python3 bench/english_earley.py [--records 150] [--runs 3]

Reads the first ``--records`` contexts of ProofWriter dev.json with one EnglishReader (every distinct
sentence shape is parsed once, as `holokb eval` does) and prints the number of Earley items lark
created (``lark.parsers.earley_common.Item`` constructions: deterministic, so two grammars compare
exactly on a noisy machine) and the median CPU seconds of ``--runs`` runs, each in a fresh process
state (the shape cache emptied).  A grammar change that adds sentence forms should say what it costs
here: every alternative Earley can predict where a predicate or a noun phrase may start is paid by
every sentence.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def contexts(n: int) -> list[str]:
    root = Path(os.environ.get("HOLOKB_CORPORA", ROOT.parent / "shared" / "corpora"))
    path = root / "proofwriter" / "dev.json"
    if not path.exists():
        sys.exit(f"ProofWriter dev.json not found at {path} (set HOLOKB_CORPORA)")
    data = json.loads(path.read_text(encoding="utf-8"))
    return [r["context"] for r in data[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=150)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from lark.parsers import earley_common

    from holokb.ingest.english import EnglishReader

    texts = contexts(args.records)
    created = [0]
    original = earley_common.Item.__init__

    def counted(self, *a, **k):
        created[0] += 1
        original(self, *a, **k)

    cpu: list[float] = []
    shapes = 0
    for run in range(args.runs):
        reader = EnglishReader()
        reader._shapes.clear()  # every run parses every shape again
        earley_common.Item.__init__ = counted if run == 0 else original
        t0 = time.process_time()
        for text in texts:
            reader.read(text)
        cpu.append(time.process_time() - t0)
        shapes = len(reader._shapes)
    earley_common.Item.__init__ = original
    print(f"ProofWriter dev, first {len(texts)} contexts: {shapes} distinct sentence shapes")
    print(f"Earley items created: {created[0] / 1e6:.2f}M (run 1)")
    print(f"CPU seconds, median of {args.runs}: {statistics.median(cpu):.2f} "
          f"(runs: {', '.join(f'{c:.2f}' for c in cpu)}; run 1 counts items, which slows it)")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
