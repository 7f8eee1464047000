"""W3C SPARQL 1.1 query tests (rdf-tests/sparql/sparql11) through run_query, as data.

Per folder: every test not skipped must pass except the explicit KNOWN_FAILURES (each with its
reason in w3c_runner.py), and every known failure must still fail, so the list stays exact.
Run ``PYTHONPATH=src:tests/sparql python3 tests/sparql/w3c_runner.py`` for the table.
"""
from __future__ import annotations

import pytest

import w3c_runner as W

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def outcomes(corpora):
    root = corpora / "w3c_rdf_tests" / "sparql" / "sparql11"
    if not root.is_dir():
        pytest.skip(f"{root} not found")
    return W.run_all(root)


@pytest.mark.parametrize("folder", W.FOLDERS)
def test_folder(outcomes, folder):
    mine = [o for o in outcomes if o.case.folder == folder]
    assert mine, f"no tests found in {folder}"
    failed = {o.case.name: o.detail for o in mine if o.status == "fail"}
    unexpected = {k: v for k, v in failed.items() if k not in W.KNOWN_FAILURES}
    fixed = sorted(o.case.name for o in mine if o.status == "pass" and o.case.name in W.KNOWN_FAILURES)
    assert not unexpected, f"unexpected failures in {folder}: {unexpected}"
    assert not fixed, f"known failures that now pass (remove them from KNOWN_FAILURES): {fixed}"
    passed = sum(o.status == "pass" for o in mine)
    assert passed >= len(mine) - len(failed) - sum(o.status == "skip" for o in mine)


def test_every_known_failure_and_skip_has_a_reason(outcomes):
    names = {o.case.name for o in outcomes}
    assert set(W.KNOWN_FAILURES) <= names, set(W.KNOWN_FAILURES) - names
    assert all(o.detail for o in outcomes if o.status == "skip")
    total = W.summary(outcomes)
    assert sum(p for p, _, _ in total.values()) >= 300  # the run covers the suite, not a sliver of it


def test_same_rows_respects_blank_node_isomorphism():
    from holokb.sparql.results import RDFTerm as T

    a, b, x = T.bnode("a"), T.bnode("b"), T.iri("http://ex.org/x")
    c, d = T.bnode("c"), T.bnode("d")
    assert W.same_rows([(a, x), (b, x)], [(c, x), (d, x)], ordered=False)
    assert W.same_rows([(a, a)], [(c, c)], ordered=False)
    assert not W.same_rows([(a, a)], [(c, d)], ordered=False)  # one node cannot be two
    assert not W.same_rows([(a, b)], [(c, c)], ordered=False)  # two nodes cannot be one
    assert not W.same_rows([(x,), (x,)], [(x,)], ordered=False)  # multisets, not sets
