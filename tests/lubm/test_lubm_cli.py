"""The issue's LUBM sequence through the command line: load, derive under OWL 2 RL, 14 queries."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from _cli import holokb

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.conformance, pytest.mark.slow]


def test_load_derive_query_gives_the_published_counts(corpora, tmp_path):
    lubm = corpora / "lubm"
    holokb("load", str(lubm / "lubm_1_0_seed0.nt.gz"), str(lubm / "univ-bench.owl"), "--db", "lubm.db", cwd=tmp_path)
    holokb("derive", "--rules", str(ROOT / "rules" / "owl2rl.hkr"), "--db", "lubm.db", "--show", "0", cwd=tmp_path)
    expected = dict(line.split("\t") for line in (lubm / "expected" / "counts.tsv").read_text().split("\n")[1:] if line)
    got, outputs = {}, {}
    for q in sorted(expected):
        out = holokb("query", "--file", str(lubm / "queries" / f"{q}.rq"), "--db", "lubm.db", "--format", "tsv",
                     cwd=tmp_path)
        got[q] = str(len(out.stdout.splitlines()) - 1)  # minus the TSV header
        outputs[str(lubm / "queries" / f"{q}.rq")] = out.stdout
    assert got == expected
    # the 14 as one command (-f folder): each section is what its own command printed
    batch = holokb("query", "--file", str(lubm / "queries"), "--db", "lubm.db", "--format", "tsv", cwd=tmp_path)
    parts = re.split(r"^==> (.*) <==\n", batch.stdout, flags=re.M)
    assert parts[0] == "" and dict(zip(parts[1::2], parts[2::2])) == outputs
