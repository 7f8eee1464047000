"""Print the conformance table: per suite, run / passed / failed / known gaps / skipped by reason.

Usage: ``cd /work/main && PYTHONPATH=src:tests:tests/conformance python3 tests/conformance/report.py``
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import suites  # noqa: E402


def _suites():
    yield "souffle_evaluation", suites.souffle_manifest("evaluation", "positive_test"), suites.souffle_evaluation
    yield "souffle_semantic", suites.souffle_manifest("semantic", "negative_test"), suites.souffle_semantic
    yield "nemo", suites.nemo_cases(), suites.nemo_case
    yield "datalog_yaml", list(suites.yaml_cases()), suites.yaml_case


def main() -> int:
    """Run every suite and print one table; exit status 1 when any run case failed."""
    if suites.root() is None:
        print("corpora not found: set HOLOKB_CORPORA")
        return 2
    failed = 0
    print(f"{'suite':20} {'cases':>6} {'run':>5} {'passed':>7} {'failed':>7} {'gap':>4} {'skipped':>8}")
    details = []
    for name, cases, runner in _suites():
        outcomes = {c: runner(c) for c in cases if (name, c) not in suites.KNOWN_GAPS}
        counts, reasons = suites.summary(outcomes, name)
        gaps = sum(1 for c in cases if (name, c) in suites.KNOWN_GAPS)
        failed += counts["failed"]
        print(f"{name:20} {len(cases):6} {counts['run']:5} {counts['passed']:7} {counts['failed']:7} {gaps:4} "
              f"{counts['skipped']:8}")
        details.append((name, reasons, [(c, o.reason) for c, o in outcomes.items() if o.status == "fail"]))
    for name, reasons, fails in details:
        print(f"\n{name}: skipped by reason")
        for reason, n in reasons.most_common():
            print(f"  {n:4}  {reason}")
        for c, why in fails:
            print(f"  FAIL {c}: {why[:200]}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
