"""Issue 8: hk: terms are a closed vocabulary; annotation errors point at the triple as the parser read
it; hk:retractedAt and hk:supersedes annotations close spans (never delete)."""
from __future__ import annotations

import pytest

from holokb.core import IRI, AsOf, DataSyntaxError, Interval, parse_instant
from holokb.kb import KnowledgeBase
from holokb.rdf import parse_records
from holokb.rdf.load import read_changes

EX = "http://example.org/"
HEAD = "@prefix hk: <https://w3id.org/holokb/> .\n@prefix ex: <http://example.org/> .\n"


def error_of(text: str, fmt: str = "TRIG") -> DataSyntaxError:
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, fmt, at=0, name="f.trig")
    return e.value


@pytest.mark.parametrize("typo, fix", [("documnet", "hk:document"), ("confidance", "hk:confidence"),
                                       ("validFrm", "hk:validFrom"), ("retractedAT", "hk:retractedAt")])
def test_unknown_hk_terms_are_refused_with_did_you_mean(typo, fix):
    text = HEAD + "ex:g { ex:a ex:p ex:b . }\n# hk:" + typo + " in a comment\nex:g hk:" + typo + ' "x" .\n'
    err = error_of(text)
    d = err.diagnostics[0]
    assert d.code == "HK311" and d.hint == f"did you mean {fix}?"
    assert (d.location.line, d.location.column) == (5, 6)  # the triple, not the comment on line 4


def test_unknown_hk_term_as_an_object_or_class_is_refused_too():
    d = error_of(HEAD + "ex:a a hk:Fakt .\n").diagnostics[0]
    assert d.code == "HK311" and d.hint == "did you mean hk:Fact?" and (d.location.line, d.location.column) == (3, 8)


def test_annotation_errors_point_at_the_offending_triple_not_at_text_matches():
    # "g" occurs inside example.org and in a comment before the triple that is wrong
    text = (HEAD + "# the graph ex:g has evidence\n"
            "ex:g { ex:a ex:p ex:b . }\n"
            "ex:g hk:document \"d\" ;\n"
            "     hk:charStart 5 .\n")
    d = error_of(text).diagnostics[0]
    assert "charStart and char_end come together" in d.message or "char" in d.message
    assert (d.location.line, d.location.column) == (6, 6)


def test_bad_time_in_an_annotation_points_at_its_predicate():
    text = HEAD + "ex:g { ex:a ex:p ex:b . }\nex:g hk:validFrom \"yesterday\" .\n"
    d = error_of(text).diagnostics[0]
    assert "validFrom" in d.message and (d.location.line, d.location.column) == (4, 6)


def test_retraction_and_supersession_need_a_ledger_load():
    text = HEAD + "ex:g { ex:a ex:p ex:b . }\nex:g hk:retractedAt \"2026-02-01\"^^<http://www.w3.org/2001/XMLSchema#date> .\n"
    assert error_of(text).diagnostics[0].code == "HK312"


def test_retraction_with_evidence_is_refused():
    text = HEAD + ("ex:g { ex:a ex:p ex:b . }\nex:g hk:retractedAt \"2026-02-01\"^^<http://www.w3.org/2001/XMLSchema#date> ;"
                   "\n  hk:document \"d\" .\n")
    from holokb.rdf.mapping import changes_from_quads
    from holokb.rdf.parse import Source, parse_quads
    src = Source(text.encode(), "TRIG", "r.trig")
    with pytest.raises(DataSyntaxError, match="does not apply") as e:
        changes_from_quads(parse_quads(src), at=0, src=src)
    assert (e.value.lineno, e.value.offset) == (5, 3)


def test_retracted_at_and_supersedes_close_spans_in_a_load(tmp_path):
    t1, t2, t3 = parse_instant("2026-01-01"), parse_instant("2026-02-01"), parse_instant("2026-03-01")
    first = tmp_path / "a.trig"
    first.write_text(HEAD + "ex:alice ex:worksFor ex:acme ; ex:likes ex:tea .\n")
    fix = tmp_path / "fix.trig"
    fix.write_text(HEAD + "ex:moved { ex:alice ex:worksFor ex:globex . }\nex:moved hk:supersedes true .\n"
                   "ex:gone { ex:alice ex:likes ex:tea . }\n"
                   "ex:gone hk:retractedAt \"2026-03-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n")
    changes = read_changes(fix, at=t2)
    assert [r.fact.object.value for r in changes.supersede] == [EX + "globex"] and len(changes.retract) == 1
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([first], at=t1)
        r = kb.load([fix], at=t2)
        assert (r.spans_new, r.spans_closed) == (1, 2)
        alice = IRI(EX + "alice")
        now = {(v.fact.predicate.value[len(EX):], v.fact.object.value[len(EX):])
               for v in kb.facts(about=alice, as_of=AsOf.latest())}
        assert now == {("worksFor", "globex")}
        between = {v.fact.object.value[len(EX):] for v in kb.facts(about=alice, as_of=AsOf(t2, t2))}
        assert between == {"globex", "tea"}
        before = {v.fact.object.value[len(EX):] for v in kb.facts(about=alice, as_of=AsOf(t1, t1))}
        assert before == {"acme", "tea"}  # history is kept: nothing was deleted
        assert [h.system for h in kb.history(alice, IRI(EX + "likes"))] == [Interval(t1, t3)]
