"""run_query over as-of snapshots: forms, time travel, rules, named graphs, blank nodes, budgets, errors."""
from __future__ import annotations

import pytest

from holokb.core import AsOf, DiagnosticError, Limits
from holokb.sparql import SparqlSyntaxError, has_outer_order_by, query_form, run_query
from holokb.sparql.results import RDFTerm

from _sparql_kb import EX, T1, T2

P = f"PREFIX ex: <{EX}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "


def select(kb, q, cache, **kw):
    return run_query(kb, P + q, as_of=kw.pop("as_of", AsOf.latest()), cache=cache, **kw)


def values(result, var=0):
    return [row[var].value if row[var] is not None else None for row in result.rows]


def test_as_of_sees_the_retracted_fact_only_before_the_retraction(kb, cache):
    q = "SELECT ?x WHERE { ?x ex:uses ex:shell }"
    before = select(kb, q, cache, as_of=AsOf(T2 - 1, T2 - 1))
    after = select(kb, q, cache, as_of=AsOf.latest())
    assert values(before) == [EX + "bob", EX + "carol"]
    assert values(after) == [EX + "carol"]
    assert select(kb, q, cache, as_of=AsOf(T1 - 1, T1)).rows == ()  # before anything was loaded


def test_rules_closure_is_part_of_the_snapshot_at_the_same_as_of(kb, cache, program):
    q = "SELECT ?x ?c WHERE { ?x ex:hasCapability ?c }"
    assert select(kb, q, cache).rows == ()  # no rules, no derived facts
    now = select(kb, q, cache, rules_program=program)
    assert [(r[0].value, r[1].value) for r in now.rows] == [(EX + "alice", EX + "search"),
                                                          (EX + "carol", EX + "scripting")]
    then = select(kb, q, cache, rules_program=program, as_of=AsOf(T2 - 1, T2 - 1))
    assert [(r[0].value, r[1].value) for r in then.rows] == [(EX + "alice", EX + "search"),
                                                           (EX + "bob", EX + "scripting"),
                                                           (EX + "carol", EX + "scripting")]


def test_named_graph_facts_are_visible_only_through_graph(kb, cache):
    assert select(kb, "SELECT ?o WHERE { ex:alice ex:worksFor ?o }", cache).rows == ()
    r = select(kb, "SELECT ?g ?o WHERE { GRAPH ?g { ex:alice ex:worksFor ?o } }", cache)
    assert [(a.value, b.value) for a, b in r.rows] == [(EX + "hr", EX + "acme")]
    # A provenance block's triples carry evidence, not a graph: they are in the default graph.
    assert select(kb, "ASK { GRAPH ?g { ex:carol ex:uses ?x } }", cache).boolean is False
    assert values(select(kb, "SELECT ?x WHERE { ex:carol ex:uses ?x }", cache)) == [EX + "shell"]


def test_blank_nodes_are_blank_and_keep_their_label_across_builds(kb, cache):
    from holokb.sparql import SnapshotCache

    q = "SELECT ?b (isBlank(?b) AS ?blank) WHERE { ex:alice ex:knows ?b }"
    a = select(kb, q, cache)
    b = select(kb, q, SnapshotCache(disk=False))
    assert a.rows[0][0].kind == "bnode" and a.rows[0][1].value == "true"
    assert a.rows == b.rows


def test_ask_construct_describe(kb, cache):
    assert select(kb, "ASK { ex:alice ex:uses ex:editor }", cache).boolean is True
    assert select(kb, "ASK { ex:bob ex:uses ex:shell }", cache).boolean is False
    c = select(kb, "CONSTRUCT { ?o ex:usedBy ?s } WHERE { ?s ex:uses ?o }", cache)
    assert c.form == "CONSTRUCT"
    assert [(s.value, o.value) for s, _, o in c.triples] == [(EX + "editor", EX + "alice"), (EX + "shell", EX + "carol")]
    d = select(kb, "DESCRIBE ex:editor", cache)
    assert d.form == "DESCRIBE"
    assert (RDFTerm.iri(EX + "editor"), RDFTerm.iri(EX + "provides"), RDFTerm.iri(EX + "search")) in d.triples


def test_unordered_rows_are_sorted_canonically_and_order_by_is_kept(kb, cache):
    unordered = select(kb, "SELECT ?s ?o WHERE { ?s rdfs:label ?o }", cache)
    keys = [tuple(t.sort_key() for t in r) for r in unordered.rows]
    assert keys == sorted(keys) and len(keys) == 3
    desc = select(kb, "SELECT ?s WHERE { ?s rdfs:label ?o } ORDER BY DESC(?s)", cache)
    assert desc.ordered
    # SPARQL orders blank nodes before IRIs; DESC reverses that.
    assert [t.kind for t in (r[0] for r in desc.rows)] == ["iri", "iri", "bnode"]
    assert values(desc)[:2] == [EX + "bob", EX + "alice"]


def test_minted_blank_nodes_get_deterministic_labels(kb, cache):
    q = "SELECT ?s (BNODE() AS ?b) WHERE { ?s ex:uses ?o }"
    a, b = select(kb, q, cache), select(kb, q, cache)
    assert [r[1].value for r in a.rows] == ["n0", "n1"]
    assert a.serialize("json") == b.serialize("json")
    c = select(kb, "CONSTRUCT { [] ex:about ?s } WHERE { ?s ex:uses ?o }", cache)
    assert sorted(t[0].value for t in c.triples) == ["n0", "n1"]


def test_max_results_truncates_without_raising(kb, cache):
    r = select(kb, "SELECT ?s ?p ?o WHERE { ?s ?p ?o }", cache, limits=Limits(max_results=2))
    assert len(r.rows) == 2 and r.truncated and r.limit_hit == "max_results"
    full = select(kb, "SELECT ?s ?p ?o WHERE { ?s ?p ?o }", cache, limits=Limits(max_results=None))
    assert not full.truncated and len(full.rows) > 2


def test_syntax_error_has_line_and_column(kb, cache):
    with pytest.raises(SparqlSyntaxError) as e:
        run_query(kb, "SELECT ?x WHERE {\n  ?x ?p ?o ) }", as_of=AsOf.latest(), cache=cache)
    err = e.value
    assert isinstance(err, DiagnosticError) and isinstance(err, SyntaxError)
    assert (err.lineno, err.offset) == (2, 12)
    rendered = err.render()
    assert "2:12" in rendered and rendered.splitlines()[-1].strip() == "^"


def test_a_bad_query_builds_nothing(kb, tmp_path, cache):
    with pytest.raises(SparqlSyntaxError):
        run_query(kb, "SELEC ?x", as_of=AsOf.latest(), cache=cache)
    assert not (tmp_path / "kb.db.sparql").exists()


@pytest.mark.parametrize("text,form", [
    ("# SELECT in a comment\nASK {}", "ASK"),
    ("PREFIX select: <http://ex.org/select#> CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT"),
    ("describe <http://ex.org/a>", "DESCRIBE"),
    ('SELECT ("ASK" AS ?x) {}', "SELECT"),
])
def test_query_form_ignores_comments_strings_and_iris(text, form):
    assert query_form(text) == form


@pytest.mark.parametrize("text,ordered", [
    ("SELECT * { ?s ?p ?o } ORDER BY ?s", True),
    ("SELECT * { { SELECT ?s { ?s ?p ?o } ORDER BY ?s LIMIT 1 } }", False),
    ('SELECT * { ?s ?p "ORDER BY" } # ORDER BY ?s', False),
    ("select * { ?s ?p ?o } order  by ?o", True),
])
def test_outer_order_by_detection(text, ordered):
    assert has_outer_order_by(text) is ordered


@pytest.mark.parametrize("text,expected", [
    ("SELECT * { ?s ?p ?o }", ("s", "p", "o")),
    ("SELECT DISTINCT * { ?z ?a ?m OPTIONAL { ?m ?b ?c } }", ("z", "a", "m", "b", "c")),
    ("SELECT ?o ?p ?s { ?s ?p ?o }", ("o", "p", "s")),  # an explicit projection is kept as written
    ("SELECT ?x { { SELECT * { ?s ?p ?x } } }", ("x",)),
])
def test_select_star_lists_variables_in_order_of_appearance(kb, cache, text, expected):
    r = run_query(kb, text, as_of=AsOf.latest(), cache=cache)
    assert r.variables == expected


def test_a_closure_budget_marks_the_result_truncated(kb, cache, program):
    q = "SELECT ?x ?c WHERE { ?x ex:hasCapability ?c }"
    r = select(kb, q, cache, rules_program=program, closure_limits=Limits(max_derived=1, max_results=None))
    assert r.truncated and r.limit_hit == "max_derived"
    assert len(r.rows) <= 1
    full = select(kb, q, cache, rules_program=program)
    assert not full.truncated and len(full.rows) == 2


def test_valid_time_selects_what_held_then(tmp_path, cache):
    from holokb.core import Fact, Interval
    from holokb.kb import KnowledgeBase

    from _sparql_kb import ex

    with KnowledgeBase.open(tmp_path / "v.db") as k:
        k.assert_fact(Fact(ex("ann"), ex("locatedIn"), ex("paris")), at=T1, valid=Interval(100, 200))
        k.assert_fact(Fact(ex("ann"), ex("locatedIn"), ex("rome")), at=T1, valid=Interval(200, None))
        q = P + "SELECT ?where WHERE { ex:ann ex:locatedIn ?where }"
        assert values(run_query(k, q, as_of=AsOf(T1, 150), cache=cache)) == [EX + "paris"]
        assert values(run_query(k, q, as_of=AsOf(T1, 250), cache=cache)) == [EX + "rome"]
        assert values(run_query(k, q, as_of=AsOf(T1, 50), cache=cache)) == []


def test_an_update_is_refused_with_a_hint(kb, cache):
    with pytest.raises(SparqlSyntaxError) as e:
        run_query(kb, P + "INSERT DATA { ex:a ex:b ex:c }", as_of=AsOf.latest(), cache=cache)
    assert "read-only" in e.value.render()
