"""The datalog-conformance YAML cases: ``expect`` relations must match exactly (multisets),
``expect_error`` programs must be rejected with the matching code; defeasible theories with
only strict rules run as plain Datalog (``definitely``), the rest are skipped with the reason."""
import pytest

import suites

pytestmark = pytest.mark.conformance

CASES = list(suites.yaml_cases())


@pytest.mark.parametrize("case_id", CASES)
def test_datalog_yaml_case(corpora, case_id):
    o = suites.yaml_case(case_id)
    if o.status == "skip":
        pytest.skip(o.reason)
    assert o.status == "pass", o.reason


def test_datalog_yaml_summary(corpora):
    outcomes = {c: suites.yaml_case(c) for c in CASES}
    counts, reasons = suites.summary(outcomes, "datalog_yaml")
    table = f"datalog_yaml: {dict(counts)}; skipped by reason: {dict(reasons.most_common())}"
    assert counts["run"] > 0 and counts["passed"] == counts["run"], table
    print(table)
