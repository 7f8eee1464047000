"""Provenance questions over the reified ledger view (design.md §5), and the ledger reads behind snapshots."""
from __future__ import annotations

from holokb.core import AsOf, Fact, Literal
from holokb.rdf.mapping import time_literal
from holokb.sparql import run_query

from _sparql_kb import EX, T1, T2, ex

HK = "https://w3id.org/holokb/"
PRE = f"PREFIX hk: <{HK}> PREFIX ex: <{EX}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "


def test_which_facts_about_carol_came_from_doc_7(kb, cache):
    q = PRE + """SELECT ?p ?o ?conf WHERE {
        ?f hk:subject ex:carol ; hk:predicate ?p ; hk:object ?o .
        ?span hk:fact ?f ; hk:evidence ?e .
        ?e hk:document "doc-7.txt" ; hk:confidence ?conf }"""
    r = run_query(kb, q, as_of=AsOf.latest(), ledger_view=True, cache=cache)
    assert [(a.value, b.value, float(c.value)) for a, b, c in r.rows] == [(EX + "uses", EX + "shell", 0.8)]
    assert r.view == "ledger"


def test_which_facts_were_retracted_after_a_time(kb, cache):
    since = time_literal(T1 + 1).lexical
    q = PRE + f"""SELECT ?s ?p ?o ?to WHERE {{
        ?span hk:fact ?f ; hk:systemTo ?to . FILTER (?to > "{since}"^^xsd:dateTime)
        ?f hk:subject ?s ; hk:predicate ?p ; hk:object ?o }}"""
    r = run_query(kb, q, as_of=AsOf.latest(), ledger_view=True, cache=cache)
    assert [(a.value, b.value, c.value, d.value) for a, b, c, d in r.rows] == \
        [(EX + "bob", EX + "uses", EX + "shell", time_literal(T2).lexical)]


def test_current_graph_holds_what_is_open_now(kb, cache):
    q = PRE + "ASK { GRAPH hk:current { ex:bob ex:uses ex:shell } }"
    assert run_query(kb, q, as_of=AsOf.latest(), ledger_view=True, cache=cache).boolean is False
    q = PRE + "ASK { GRAPH hk:current { ex:alice ex:uses ex:editor } }"
    assert run_query(kb, q, as_of=AsOf.latest(), ledger_view=True, cache=cache).boolean is True


def test_visible_quads_gives_graphs_and_drops_other_qualifiers(kb):
    kb.assert_fact(Fact(ex("x"), ex("version"), Literal("2"), (("version", Literal("beta")),)), at=T2 + 1)
    quads = list(kb.ledger.visible_quads(AsOf.latest()))
    assert (ex("alice"), ex("worksFor"), ex("acme"), ex("hr")) in quads
    assert (ex("alice"), ex("uses"), ex("editor"), None) in quads
    assert not any(q[0] == ex("x") for q in quads)  # a "version"-qualified statement is no plain triple
    assert not any(q[0] == ex("bob") and q[1] == ex("uses") for q in quads)  # retracted
    assert len(quads) == len(set(quads))
    plain = {(s, p, o) for s, p, o, g in quads if g is None}
    assert plain == set(kb.ledger.visible(AsOf.latest()))


def test_markers_move_on_every_write_and_tell_a_recreated_file_apart(kb, tmp_path):
    from holokb.kb import KnowledgeBase
    from holokb.sparql.snapshot import ledger_marker

    m0 = ledger_marker(kb.ledger)
    assert ledger_marker(kb.ledger) == m0
    kb.assert_fact(Fact(ex("y"), ex("uses"), ex("shell")), at=T2 + 1)
    m1 = ledger_marker(kb.ledger)
    kb.retract(Fact(ex("y"), ex("uses"), ex("shell")), at=T2 + 2)
    m2 = ledger_marker(kb.ledger)
    assert len({m0, m1, m2}) == 3
    # Another file with the same number of writes but other content has another marker.
    with KnowledgeBase.open(tmp_path / "other.db") as other:
        for k in range(kb.ledger.change_marker()):
            other.assert_fact(Fact(ex(f"z{k}"), ex("uses"), ex("shell")), at=T1 + k)
        assert other.ledger.change_marker() == kb.ledger.change_marker()
        assert ledger_marker(other.ledger) != m2
