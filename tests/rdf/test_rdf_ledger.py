"""The RDF face against the real ledger: import, full export round trip, snapshots, atomicity."""
from __future__ import annotations

import pytest

from holokb.core import AsOf, DataSyntaxError, Fact, Interval
from holokb.ledger import Ledger
from holokb.rdf import export_ledger, export_snapshot, import_file, parse_records, store_records
from holokb.resources import data_dir

from rdf_samples import A, B, EX, P, T0, sample_records

T1 = T0 + 3_600_000


@pytest.fixture
def ledger(tmp_path):
    with Ledger.open(tmp_path / "kb.db") as led:
        yield led


def test_kb_files_import_and_export_round_trips_through_a_second_ledger(ledger, tmp_path):
    n = sum(import_file(ledger, f, at=T0, source_id=f.name) for f in sorted(data_dir("kb").glob("*.trig")))
    assert n > 30
    text = export_ledger(ledger)
    with Ledger.open(tmp_path / "copy.db") as copy:
        store_records(copy, parse_records(text, "TRIG", at=T1), at=T1)
        assert export_ledger(copy) == text
        assert list(copy.spans()) == list(ledger.spans())


def test_history_with_retraction_survives_export(ledger, tmp_path):
    with ledger.batch(at=T0) as b:
        b.assert_fact(Fact(A, P, B))
    with ledger.batch(at=T1) as b:
        b.retract(Fact(A, P, B))
    text = export_ledger(ledger)
    recs = parse_records(text, "TRIG", at=T1 + 1)
    assert [(r.system, r.span_id is not None) for r in recs] == [(Interval(T0, T1), True)]
    with Ledger.open(tmp_path / "copy.db") as copy:
        store_records(copy, recs, at=T1 + 1)
        assert export_ledger(copy) == text
        assert list(copy.visible(AsOf.at(T0 + 1))) == [(A, P, B)]
        assert list(copy.visible(AsOf.latest())) == []


def test_sample_records_restore_exactly_in_a_ledger(ledger):
    from holokb.rdf import ledger_trig

    text = ledger_trig([r.__class__(r.fact, r.valid, r.system, r.evidence) for r in sample_records()])
    store_records(ledger, parse_records(text, "TRIG", at=0), at=0)
    assert export_ledger(ledger) == text


def test_snapshot_export_is_plain_and_time_dependent(ledger):
    text = f"""@prefix hk: <https://w3id.org/holokb/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<{EX}g> {{ <{EX}a> <{EX}p> <{EX}b> . }}
<{EX}g> hk:validTo "2026-06-01T00:00:00Z"^^xsd:dateTime .
<{EX}a> <{EX}p> <{EX}c> .
"""
    store_records(ledger, parse_records(text, "TRIG", at=T0), at=T0)
    early = export_snapshot(ledger, AsOf.at(T0 + 1))
    late = export_snapshot(ledger, AsOf.latest())
    assert f"<{EX}b>" in early and f"<{EX}b>" not in late and f"<{EX}c>" in late
    assert "hk:Span" not in early


def test_a_file_with_an_error_changes_nothing(ledger, tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> \"x\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n")
    with pytest.raises(DataSyntaxError):
        import_file(ledger, bad, at=T0)
    assert list(ledger.spans()) == []
