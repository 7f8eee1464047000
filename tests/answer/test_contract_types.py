"""The contract's invariants hold by construction; its JSON matches the shipped schema."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from holokb.answer import (
    Answer, ChainEntry, ChainFact, ChainRole, Conflict, ConflictReason, Missing, MissingKind, SourceSpan, Verdict,
)
from holokb.core import AsOf, Fact, IRI, Literal
from holokb.ingest import IngestionReport, Phase, SkipEntry, SkipReason

EX = "http://example.org/"
F1 = Fact(IRI(EX + "session_token"), IRI(EX + "expiresAfter"), Literal("PT30M", "http://www.w3.org/2001/XMLSchema#duration"))
SRC = SourceSpan("security-handbook.txt", "p1", 0, 73, "Under policy v1.0, …", "reader", "1", 0.95)


def premise(f: Fact) -> ChainEntry:
    return ChainEntry(f.id, ChainRole.PREMISE, ChainFact(f.subject, f.predicate, f.object), (SRC,), score=0.95)


def validator():
    jsonschema = pytest.importorskip("jsonschema")
    s = json.loads(resources.files("holokb.answer").joinpath("answer.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def test_verdict_invariants_are_enforced():
    with pytest.raises(ValueError, match="missing"):
        Answer(None, Verdict.UNSUPPORTED)
    with pytest.raises(ValueError, match="only a supported"):
        Answer("No", Verdict.UNSUPPORTED, missing=Missing(MissingKind.NO_FACTS, "nothing"))
    with pytest.raises(ValueError, match="conflicts"):
        Answer(None, Verdict.CONFLICTING)
    with pytest.raises(ValueError, match="missing"):
        Answer("Yes", Verdict.SUPPORTED, missing=Missing(MissingKind.NO_FACTS, "nothing"))


def test_answers_serialise_to_schema_valid_json():
    p = premise(F1)
    f2 = Fact(F1.subject, F1.predicate, Literal("PT15M", "http://www.w3.org/2001/XMLSchema#duration"))
    ok = Answer("PT30M", Verdict.SUPPORTED, ("security-handbook.txt#p1",), (p,), ((p.fact_id, 0.95),),
                values=(F1.object,), as_of=AsOf.latest())
    conflicting = Answer(None, Verdict.CONFLICTING, conflicts=(Conflict(p, premise(f2), ConflictReason.VERSIONS_DISAGREE,
                                                                       (EX + "session_token", EX + "expiresAfter"),
                                                                       "v1.0 says 30 minutes, v2.0 says 15"),))
    missing = Answer(None, Verdict.UNSUPPORTED, missing=Missing(MissingKind.UNKNOWN_NAME, "no entity 'gizmo'", "gizmo"))
    v = validator()
    for a in (ok, conflicting, missing):
        v.validate(a.to_json())
        assert a.to_json_text() == a.to_json_text()
        assert json.loads(a.to_json_text())["verdict"] == a.verdict.value
    # The schema holds the same line as the constructor: a supported answer needs a chain.
    bad = ok.to_json() | {"factChain": []}
    assert not v.is_valid(bad)
    bad = missing.to_json() | {"text": "No"}
    assert not v.is_valid(bad)


def test_unanchored_premise_is_not_anchored():
    p = premise(F1)
    assert p.anchored
    assert not ChainEntry(F1.id, ChainRole.PREMISE, p.fact).anchored
    assert not ChainEntry(F1.id, ChainRole.DERIVED, p.fact, rule="r").anchored
    assert ChainEntry(F1.id, ChainRole.DERIVED, p.fact, rule="r", premises=(F1.id,)).anchored


def test_report_json_without_durations_is_run_independent():
    def report(seconds: float) -> IngestionReport:
        return IngestionReport("d", 1, "reader", "1", 3, 3, 5, 4, 1, 2, 4,
                               (SkipEntry(SkipReason.NOT_UNDERSTOOD, "p0", 10, 20, "Blah blah."),),
                               durations=((Phase.EXTRACT, seconds),))
    a, b = report(0.1), report(0.2)
    assert a.to_json_text(durations=False) == b.to_json_text(durations=False)
    assert a.to_json()["durations"] != b.to_json()["durations"]
    assert a.to_json()["skipCounts"] == {"notUnderstood": 1}
