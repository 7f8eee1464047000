"""The ingestion pipeline: evidence that quotes the source, budgets, reports, all-or-nothing batches."""
from __future__ import annotations

import pytest
from ingest_support import EX, TOOLS, Scripted, unit, vocab

from holokb.core import AsOf, IRI, Literal, ShapeViolationError
from holokb.ingest import IngestLimit, SkipReason
from holokb.ingest.context_units import ContextUnitExtractor, THINKINGDB_RELATIONS, relation_vocabulary
from holokb.ingest.pipeline import IngestBudget, IngestError, ingest_document
from holokb.kb import KnowledgeBase
from holokb.ledger import Ledger


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "kb.db") as led:
        yield led


def codes(e: IngestError) -> list[str]:
    return [d.code for d in e.diagnostics]


def test_context_units_become_facts_whose_evidence_quotes_the_unit(ledger):
    r = ingest_document(ledger, TOOLS, doc_id="tools", extractor=ContextUnitExtractor(), at=1000)
    assert (r.chunks, r.chunks_ingested, r.sentences, r.facts, r.rules, r.batches) == (6, 6, 6, 2, 0, 1)
    assert [s.reason for s in r.skipped] == [SkipReason.NOT_UNDERSTOOD, SkipReason.INCOMPLETE_UNIT,
                                             SkipReason.INVALID_VALUE]
    assert r.skipped[0].text == "Tooling inventory."
    assert TOOLS[r.skipped[1].start:r.skipped[1].end] == r.skipped[1].text
    views = {v.fact.subject.value: v for v in ledger.facts(AsOf.latest())}
    uses = views[EX + "AchillesIDE"]
    assert uses.fact.predicate == IRI(EX + "uses") and uses.fact.object == IRI(EX + "Ploinky")
    e = uses.evidence[0]
    assert (e.document, e.chunk, e.extractor, e.confidence, e.asserted_at) == ("tools", "p1", "context-units", 0.9, 1000)
    quoted = ledger.chunk_text("tools", "p1")[e.char_start:e.char_end]
    assert quoted == unit("u0", "AchillesIDE", "uses", "Ploinky", "0.9", "AchillesIDE uses Ploinky.")
    assert ledger.entities_by_alias("ploinky") == [IRI(EX + "Ploinky")]


def test_quantities_and_versions_from_metadata(ledger):
    text = unit("u", "session token", "expires after", "15 minutes")
    ingest_document(ledger, text, doc_id="spec-v2", extractor=ContextUnitExtractor(), at=1,
                    meta=__import__("holokb.ingest", fromlist=["DocumentMeta"]).DocumentMeta(version="v2.0"))
    (v,) = ledger.facts(AsOf.latest())
    assert v.fact.subject == IRI(EX + "session_token") and v.fact.predicate == IRI(EX + "expiresAfter")
    assert v.fact.object == Literal("PT15M", "http://www.w3.org/2001/XMLSchema#duration")
    assert dict(v.fact.qualifiers) == {"version": Literal("v2.0")}


def test_vocabulary_gate_drops_unknown_relations(ledger):
    ex = ContextUnitExtractor(vocabulary=relation_vocabulary(THINKINGDB_RELATIONS))
    text = unit("a", "X", "uses", "Y") + "\n\n" + unit("b", "X", "eats", "Y")
    r = ingest_document(ledger, text, doc_id="d", extractor=ex, at=1)
    assert r.facts == 1 and [s.reason for s in r.skipped] == [SkipReason.UNKNOWN_PREDICATE]
    assert ledger.predicate(IRI(EX + "hasCapability")) is not None  # the vocabulary is declared


def test_report_is_deterministic_apart_from_durations(tmp_path):
    out = []
    for name in ("a.db", "b.db"):
        with Ledger.open(tmp_path / name) as led:
            out.append(ingest_document(led, TOOLS, doc_id="tools", extractor=ContextUnitExtractor(), at=7))
    assert out[0].to_json_text(durations=False) == out[1].to_json_text(durations=False)
    assert [p for p, _ in out[0].durations] == [p for p, _ in out[1].durations]


def test_max_chunks_truncates_at_a_chunk_boundary(ledger):
    r = ingest_document(ledger, TOOLS, doc_id="t", extractor=ContextUnitExtractor(), at=1,
                        budget=IngestBudget(max_chunks=2))
    assert r.truncated and r.limits_hit == (IngestLimit.MAX_CHUNKS,)
    assert (r.chunks, r.chunks_ingested, r.facts) == (6, 2, 1)
    assert ledger.chunk_text("t", "p2") is None


def test_max_bytes_drops_the_paragraph_it_cuts(ledger):
    text = "para one.\n\npara two is longer.\n\npara three."
    r = ingest_document(ledger, text, doc_id="t", extractor=Scripted(), at=1,
                        budget=IngestBudget(max_bytes=len("para one.\n\npara two is")))
    assert r.limits_hit == (IngestLimit.MAX_BYTES,) and r.chunks_ingested == 1
    assert ledger.chunk_text("t", "p0") == "para one." and ledger.chunk_text("t", "p1") is None


def test_max_facts_per_chunk_reports_each_dropped_fact(ledger):
    r = ingest_document(ledger, "a.\n\nb.", doc_id="t", extractor=Scripted(per_chunk=5), at=1,
                        budget=IngestBudget(max_facts_per_chunk=3))
    assert r.facts == 6 and r.limits_hit == (IngestLimit.MAX_FACTS_PER_CHUNK,)
    assert [s.reason for s in r.skipped] == [SkipReason.FACT_BUDGET] * 4
    assert len(ledger.facts(AsOf.latest())) == 6


def test_deadline_stops_between_chunks(ledger):
    text = "\n\n".join(f"p{i}." for i in range(40))
    r = ingest_document(ledger, text, doc_id="t", extractor=Scripted(sleep_s=0.02), at=1,
                        budget=IngestBudget(timeout_s=0.1))
    assert r.truncated and IngestLimit.DEADLINE in r.limits_hit
    assert 1 <= r.chunks_ingested < 40
    assert len(ledger.facts(AsOf.latest())) == r.chunks_ingested


def test_chunks_per_batch_commits_in_groups(ledger):
    text = "\n\n".join(f"p{i}." for i in range(5))
    r = ingest_document(ledger, text, doc_id="t", extractor=Scripted(), at=1, budget=IngestBudget(chunks_per_batch=2))
    assert r.batches == 3 and len(ledger.facts(AsOf.latest())) == 5


@pytest.mark.parametrize("source, code", [
    (b"caf\xe9 au lait", "HK820"),
    ("bin\x00ary", "HK821"),
    ("  \n\n \t ", "HK822"),
    (b"", "HK822"),
])
def test_bad_documents_are_coded_and_write_nothing(ledger, source, code):
    with pytest.raises(IngestError) as e:
        ingest_document(ledger, source, doc_id="d", extractor=Scripted(), at=1)
    assert codes(e.value) == [code]
    assert ledger.stats()["documents"] == 0


def test_bad_ids_and_budgets(ledger):
    with pytest.raises(IngestError) as e:
        ingest_document(ledger, "x.", doc_id="", extractor=Scripted(), at=1)
    assert codes(e.value) == ["HK823"]
    with pytest.raises(IngestError) as e:
        IngestBudget(max_chunks=0)
    assert codes(e.value) == ["HK825"]


def test_same_id_different_text_is_refused_and_changes_nothing(ledger):
    ingest_document(ledger, "one.", doc_id="d", extractor=Scripted(), at=1)
    before = ledger.stats()
    with pytest.raises(IngestError) as e:
        ingest_document(ledger, "two.", doc_id="d", extractor=Scripted(), at=2)
    assert codes(e.value) == ["HK824"]
    assert ledger.stats() == before
    # the same text again is fine (evidence accumulates, nothing duplicates)
    ingest_document(ledger, "one.", doc_id="d", extractor=Scripted(), at=3)
    assert ledger.stats()["facts"] == before["facts"]


@pytest.mark.parametrize("bad, code", [({"crash_at": 1}, "HK827"), ({"wrong_chunk_at": 1}, "HK826")])
def test_a_misbehaving_extractor_is_coded_and_the_ledger_is_unchanged(ledger, bad, code):
    with pytest.raises(IngestError) as e:
        ingest_document(ledger, "a.\n\nb.\n\nc.", doc_id="d", extractor=Scripted(**bad), at=1)
    assert codes(e.value) == [code]
    assert ledger.stats()["facts"] == 0 and ledger.stats()["documents"] == 0


def test_the_shacl_gate_rejects_the_whole_batch(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=["shapes"]) as kb:
        kb.load(["kb/people.trig"], at=1)
        before = kb.stats()
        text = unit("a", "<http://example.org/Alice>", "located in", "<http://example.org/Alice>") + "\n\n" + \
            unit("b", "X", "uses", "Y")
        with pytest.raises(ShapeViolationError):
            kb.ingest(text, doc_id="bad", at=2, extractor=ContextUnitExtractor())
        assert kb.stats() == before


def test_a_fifty_megabyte_document_is_read_up_to_the_byte_budget(ledger):
    para = "x" * 1_000_000 + "."
    text = "\n\n".join([para] * 50)
    r = ingest_document(ledger, text, doc_id="big", extractor=Scripted(), at=1)
    assert r.truncated and r.limits_hit == (IngestLimit.MAX_BYTES,)
    assert r.chunks_ingested == 16 and r.facts == 16


def test_vocabulary_of_scripted_extractor_is_enforced(ledger):
    r = ingest_document(ledger, "a.", doc_id="d", extractor=Scripted(vocabulary=vocab("other")), at=1)
    assert r.facts == 0 and [s.reason for s in r.skipped] == [SkipReason.UNKNOWN_PREDICATE]
