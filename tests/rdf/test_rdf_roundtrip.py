"""Reified export ⇄ import: lossless SpanRecords and byte-identical TriG."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import MAX_TIME, MIN_TIME, DataSyntaxError, Fact, Interval, IRI, Literal, SpanRecord
from holokb.core.terms import SKOLEM_PREFIX, XSD_DATETIME
from holokb.rdf import CURRENT, ledger_trig, parse_records, serialize_trig, snapshot_trig, time_literal
from holokb.rdf.mapping import time_value, _Ctx
from holokb.rdf.parse import parse_text

from rdf_samples import A, B, EX, P, T0, canonical, sample_records


def test_reified_export_restores_the_exact_records():
    recs = sample_records()
    text = ledger_trig(recs)
    back = parse_records(text, "TRIG", at=0)
    assert back == sorted((canonical(r) for r in recs), key=lambda r: r.span_id)


def test_export_import_export_is_byte_identical():
    text = ledger_trig(sample_records())
    again = ledger_trig(parse_records(text, "TRIG", at=0))
    assert again == text


def test_export_does_not_depend_on_input_order():
    recs = sample_records()
    assert ledger_trig(recs) == ledger_trig(list(reversed(recs)))


def test_current_graph_holds_open_affirmed_plain_triples():
    recs = sample_records()
    quads = parse_text(ledger_trig(recs), "TRIG")
    current = {(s, p, o) for s, p, o, g in quads if g == CURRENT}
    # span 1: valid end closed; span 2: system end closed; span 4: negated; span 5: valid end closed.
    # Only span 3 is open on both axes and affirmed; its qualifiers are dropped in the plain view.
    assert current == {(A, P, recs[2].fact.object)}


def test_current_graph_excludes_retracted_spans():
    recs = [SpanRecord(Fact(A, P, B), Interval.always(), Interval(T0, T0 + 10), (), "1")]
    quads = parse_text(ledger_trig(recs), "TRIG")
    assert not [q for q in quads if q[3] == CURRENT]


def test_current_graph_is_ignored_when_a_history_is_present():
    text = ledger_trig(sample_records()) + f"<{CURRENT.value}> {{ <{EX}zz> <{EX}p> <{EX}b> . }}\n"
    assert all(r.fact.subject != IRI(EX + "zz") for r in parse_records(text, "TRIG", at=0))


def test_plain_snapshot_deskolemises_and_reimports_isomorphically():
    sk = IRI(SKOLEM_PREFIX + "0123abcd")
    text = snapshot_trig([(sk, P, B), (A, P, sk)])
    assert "_:b0123abcd" in text and SKOLEM_PREFIX not in text
    recs = parse_records(text, "TRIG", at=0, name="snap")
    subjects = {r.fact.subject for r in recs}
    objects = {r.fact.object for r in recs}
    assert len(recs) == 2 and len(subjects & objects) == 1  # the one blank node links both triples


def test_plain_triples_and_history_coexist():
    text = ledger_trig(sample_records()[:1]) + f"<{EX}c> <{EX}p> <{EX}d> .\n"
    recs = parse_records(text, "TRIG", at=77)
    assert [r.span_id for r in recs] == ["1", None]
    assert recs[1].system == Interval(77, None)


def test_tampered_fact_node_is_rejected_with_its_line():
    text = ledger_trig(sample_records()[:1]).replace(f"hk:object <{EX}b>", f"hk:object <{EX}c>")
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TRIG", at=0, name="x.trig")
    assert "does not match its content" in e.value.render() and e.value.lineno > 1


def test_span_without_system_from_is_rejected():
    lines = [l for l in ledger_trig(sample_records()[:1]).splitlines() if "hk:systemFrom" not in l]
    with pytest.raises(DataSyntaxError) as e:
        parse_records("\n".join(lines), "TRIG", at=0)
    assert "systemFrom" in e.value.render()


def test_fact_node_without_span_is_rejected():
    fid = Fact(A, P, B).id
    text = f"""@prefix hk: <https://w3id.org/holokb/> .
<https://w3id.org/holokb/fact/{fid}> hk:subject <{EX}a> ; hk:predicate <{EX}p> ; hk:object <{EX}b> .
"""
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TRIG", at=0, name="f.trig")
    assert "has no span" in e.value.render() and e.value.lineno == 2


@settings(max_examples=300, deadline=None)
@given(st.integers(MIN_TIME, MAX_TIME))
def test_time_literals_round_trip_every_instant(ms):
    lit = time_literal(ms)
    assert time_value(lit, _Ctx(None), "t") == ms
    if lit.datatype == XSD_DATETIME:
        assert len(lit.lexical) in (20, 24)  # YYYY-MM-DDThh:mm:ss[.mmm]Z, fixed width


def test_serializer_escapes_and_shorthands_parse_back():
    quads = [(A, P, Literal("a\"b\\c\nd\r\x7f")), (A, P, Literal("007", "http://www.w3.org/2001/XMLSchema#integer")),
             (A, P, Literal.of(True)), (A, P, Literal.of(-3)), (A, P, B, IRI(EX + "g"))]
    quads = [q if len(q) == 4 else (*q, None) for q in quads]
    text = serialize_trig(quads)
    assert " -3, " in text and " true" in text and "\\u007F" in text
    assert set(parse_text(text, "TRIG")) == set(quads)
