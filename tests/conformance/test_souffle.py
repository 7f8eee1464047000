"""Soufflé's own test programs, translated mechanically (souffle_translate.py) and run as data.

``evaluation``: every translated program must reproduce the expected ``.csv`` of each ``.output``
relation (multisets of rows, number spellings normalised).  ``semantic``: programs Soufflé
rejects for a reason holokb shares must be rejected with the matching diagnostic code.
"""
import pytest

import suites

pytestmark = pytest.mark.conformance

EVALUATION = suites.souffle_manifest("evaluation", "positive_test")
SEMANTIC = suites.souffle_manifest("semantic", "negative_test")
#: Programs Soufflé accepts in its semantic suite: run like the evaluation suite where they have outputs.
SEMANTIC_POSITIVE = suites.souffle_manifest("semantic", "positive_test")


def check_outcome(suite: str, outcome: suites.Outcome) -> None:
    if outcome.status == "skip":
        pytest.skip(outcome.reason)
    assert outcome.status == "pass", outcome.reason


def _params(suite: str, names: list[str]):
    out = []
    for n in names:
        gap = suites.KNOWN_GAPS.get((suite, n))
        marks = [pytest.mark.xfail(reason=gap, run=False, strict=True)] if gap else []
        out.append(pytest.param(n, id=n, marks=marks))
    return out


@pytest.mark.parametrize("name", _params("souffle_evaluation", EVALUATION))
def test_souffle_evaluation(corpora, name):
    check_outcome("souffle_evaluation", suites.souffle_evaluation(name))


@pytest.mark.parametrize("name", _params("souffle_semantic", SEMANTIC))
def test_souffle_semantic(corpora, name):
    check_outcome("souffle_semantic", suites.souffle_semantic(name))


def _semantic_positive(name: str) -> suites.Outcome:
    return suites.souffle_evaluation(name, "semantic")


@pytest.mark.parametrize("name", _params("souffle_semantic_positive", SEMANTIC_POSITIVE))
def test_souffle_semantic_positive(corpora, name):
    check_outcome("souffle_semantic_positive", _semantic_positive(name))


@pytest.mark.parametrize("suite,names,runner", [
    ("souffle_evaluation", EVALUATION, suites.souffle_evaluation),
    ("souffle_semantic", SEMANTIC, suites.souffle_semantic),
    ("souffle_semantic_positive", SEMANTIC_POSITIVE, _semantic_positive),
])
def test_souffle_summary(corpora, suite, names, runner):
    outcomes = {n: runner(n) for n in names if (suite, n) not in suites.KNOWN_GAPS}
    counts, reasons = suites.summary(outcomes, suite)
    table = f"{suite}: {dict(counts)}; skipped by reason: {dict(reasons.most_common())}"
    assert counts["run"] > 0 and counts["passed"] == counts["run"], table
    print(table)
