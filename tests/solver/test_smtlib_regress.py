"""Conformance: cvc5's regress0 subset through each backend's trusted-script entry (run_smtlib_file).

Files with a ``COMMAND-LINE`` line are skipped (they need cvc5 options).  The expectation is the
``; EXPECT:`` sat/unsat/unknown lines, else ``(set-info :status ...)``.  Per backend, every file
lands in exactly one bucket: match, unknown (timeout/incomplete within the budget), rejected (the
backend does not support the script's dialect, e.g. cvc5 tuples or z3's built-in List sort),
expected-unknown (any answer accepted), or wrong; wrong must be empty, and the two backends must
agree wherever both give a definite answer.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from holokb.solver import get_backend, installed_backends

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

TIMEOUT_MS = 2_000


def expectations(text: str) -> list[str]:
    exp = [m.group(1) for m in re.finditer(r"^; EXPECT: (sat|unsat|unknown)\s*$", text, re.M)]
    return exp or re.findall(r"\(set-info :status (sat|unsat|unknown)\)", text)


def bucket(expected: list[str], got: tuple[str, ...]) -> str:
    if got == ("error",):
        return "rejected"
    if list(got) == expected:
        return "match"
    if len(got) == len(expected) and all(e == "unknown" or g in (e, "unknown") for e, g in zip(expected, got)):
        return "expected_unknown" if any(e == "unknown" for e in expected) else "unknown"
    if len(got) < len(expected) and all(g == e for g, e in zip(got, expected)):
        return "unknown"  # the watchdog stopped the script before every check-sat answered
    return "wrong"


def test_regress0_subset(corpora):
    root = corpora / "smtlib_cvc5_regress_subset"
    if not root.is_dir():
        pytest.skip("smtlib_cvc5_regress_subset not in the corpora")
    files = []
    for p in sorted(root.rglob("*.smt2")):
        text = p.read_text(encoding="utf-8", errors="replace")
        if "COMMAND-LINE" in text:
            continue
        exp = expectations(text)
        if exp:
            files.append((p, exp))
    assert len(files) >= 200
    answers: dict[str, dict[Path, tuple[str, ...]]] = {}
    counts: dict[str, dict[str, int]] = {}
    wrong: list[str] = []
    for name in installed_backends():
        be = get_backend(name)
        answers[name], counts[name] = {}, {}
        for p, exp in files:
            got = be.run_smtlib_file(str(p), timeout_ms=TIMEOUT_MS)
            answers[name][p] = got
            b = bucket(exp, got)
            counts[name][b] = counts[name].get(b, 0) + 1
            if b == "wrong":
                wrong.append(f"{name} {p.relative_to(root)}: expected {exp}, got {got}")
    assert not wrong, "\n".join(wrong)
    assert counts["z3"].get("match", 0) >= 150, counts
    if "cvc5" in answers:
        assert counts["cvc5"].get("match", 0) >= 200, counts
        clash = [str(p.relative_to(root)) for p, _ in files
                 if answers["z3"][p] != ("error",) and answers["cvc5"][p] != ("error",)
                 and any({a, b} == {"sat", "unsat"} for a, b in zip(answers["z3"][p], answers["cvc5"][p]))]
        assert not clash, clash


@pytest.mark.parametrize("expected,got,b", [
    (["sat"], ("sat",), "match"), (["sat"], ("unknown",), "unknown"), (["unsat"], ("error",), "rejected"),
    (["unknown"], ("sat",), "expected_unknown"), (["sat"], ("unsat",), "wrong"), (["sat", "unsat"], ("sat",), "unknown"),
])
def test_bucket_rules(expected, got, b):
    assert bucket(expected, got) == b
