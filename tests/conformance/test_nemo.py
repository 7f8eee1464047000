"""Nemo's test cases (``.rls`` + expected CSV per exported predicate), translated by
nemo_translate.py; every program that translates must reproduce its exports exactly."""
import pytest

import suites

pytestmark = pytest.mark.conformance

CASES = suites.nemo_cases()


@pytest.mark.parametrize("case", CASES)
def test_nemo_case(corpora, case):
    o = suites.nemo_case(case)
    if o.status == "skip":
        pytest.skip(o.reason)
    assert o.status == "pass", o.reason


def test_nemo_summary(corpora):
    outcomes = {c: suites.nemo_case(c) for c in CASES}
    counts, reasons = suites.summary(outcomes, "nemo")
    table = f"nemo: {dict(counts)}; skipped by reason: {dict(reasons.most_common())}"
    assert counts["run"] > 0 and counts["passed"] == counts["run"], table
    print(table)
