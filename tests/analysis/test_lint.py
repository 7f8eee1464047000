"""analysis.lint: the warnings, and that they are never wrong against the engine.

A warning that a rule can never fire or that a query can have no answers is a claim about the closure;
the property test holds it against the engine's closure of random programs over random facts.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from holokb.analysis import analyze
from holokb.analysis.lint import DEAD_RULE, EMPTY_QUERY, UNDECLARED, UNPRODUCED, Census, lint
from holokb.core import Limits
from holokb.engine import Database, closure
from holokb.reasoning import _add_program_facts
from holokb.syntax import parse_rules

EX = "http://example.org/"
P = "@prefix ex: <http://example.org/> .\n"


def program(text: str):
    return analyze(parse_rules(P + text, file="t.hkr"))


def codes(ds) -> list[tuple[str, int]]:
    return [(d.code, d.location.line if d.location else 0) for d in ds]


def test_a_typo_is_undeclared_with_did_you_mean():
    prog = program("ex:knows(ex:a, ex:b).\nrule r: ex:friend(?x, ?y) :- ex:knowz(?x, ?y).\n")
    ds = lint(prog, Census(frozenset({EX + "knows"})))
    und = [d for d in ds if d.code == UNDECLARED]
    assert len(und) == 1 and "ex:knowz" in und[0].message and und[0].hint == "did you mean ex:knows?"
    assert und[0].severity == "warning" and und[0].location.line == 3
    assert any(d.code == DEAD_RULE and "'r'" in d.message for d in ds)


def test_without_a_ledger_only_likely_typos_are_reported():
    prog = program("rule r: ex:friend(?x, ?y) :- ex:knows(?x, ?y), ex:knowz(?x, ?y).\n")
    assert lint(prog) == ()  # nothing looks like a typo of a declared or derived name
    prog = program("rule r: ex:friend(?x, ?y) :- ex:knows(?x, ?y).\nrule s: ex:pal(?x, ?y) :- ex:frend(?x, ?y).\n")
    assert [d.hint for d in lint(prog)] == ["did you mean ex:friend?"]


def test_declared_but_unproduced_says_when_facts_exist_at_other_times():
    prog = program("vocabulary: ex:locatedIn/2, ex:here/1.\nrule r: ex:here(?p) :- ex:locatedIn(?p, ?_).\n")
    census = Census(frozenset(), frozenset(), "visible at system time latest, valid time latest",
                    frozenset({EX + "locatedIn"}), frozenset())
    ds = lint(prog, census)
    unp = [d for d in ds if d.code == UNPRODUCED]
    assert len(unp) == 1 and "it has some at other times" in unp[0].message
    assert "--valid" in (unp[0].hint or "")


def test_unary_atoms_are_classes_of_rdf_type_facts():
    prog = program("rule r: ex:Adult(?x) :- ex:Person(?x).\n")
    ok = lint(prog, Census(frozenset({"http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}), frozenset({EX + "Person"})))
    assert ok == ()
    ds = lint(prog, Census(frozenset({"http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}), frozenset({EX + "Persn"})))
    assert any(d.code == UNDECLARED and "class ex:Person" in d.message and d.hint == "did you mean ex:Persn?"
               for d in ds)


def test_a_rule_behind_a_dead_rule_names_it():
    prog = program("ex:a(ex:x).\nrule r1: ex:b(?x) :- ex:a(?x), ex:c(?x).\nrule r2: ex:d(?x) :- ex:b(?x).\n"
                   "?- ex:d(?w).\n")
    ds = lint(prog, Census())
    msgs = {d.code: d.message for d in ds}
    assert "nothing produces ex:c" in [d.message for d in ds if d.code == DEAD_RULE][0]
    assert any("ex:b comes only from 'r1', which cannot fire" in d.message for d in ds if d.code == DEAD_RULE)
    assert "ex:d comes only from 'r2'" in msgs[EMPTY_QUERY]


def test_negation_and_aggregates_do_not_need_facts():
    prog = program("ex:Tool(ex:t).\nrule r: ex:lonely(?t) :- ex:Tool(?t), not ex:uses(?t, ?_).\n"
                   "rule s: ex:n(?t, ?k) :- ex:Tool(?t), ?k = count(?u : ex:uses(?t, ?u)).\n")
    assert [d.code for d in lint(prog, Census()) if d.code == DEAD_RULE] == []


# -- never a wrong warning: a rule said dead derives nothing; a query said empty has no answers -------

PREDS = ("p", "q", "r", "s")
CONSTS = ("a", "b", "c")


@st.composite
def programs(draw):
    facts = draw(st.lists(st.tuples(st.sampled_from(PREDS), st.sampled_from(CONSTS), st.sampled_from(CONSTS)),
                          max_size=6))
    rules = []
    for k in range(draw(st.integers(1, 4))):
        head = draw(st.sampled_from(PREDS + ("t", "u")))
        body = draw(st.lists(st.sampled_from(PREDS + ("t", "u")), min_size=1, max_size=2))
        # a chain body ?x -> ?y -> ?z keeps every rule safe
        vs = ["?x", "?y", "?z"]
        atoms = [f"ex:{b}({vs[i]}, {vs[i + 1]})" for i, b in enumerate(body)]
        rules.append(f"rule r{k}: ex:{head}(?x, {vs[len(body)]}) :- {', '.join(atoms)}.")
    query = draw(st.sampled_from(PREDS + ("t", "u")))
    text = "".join(f"ex:{p}(ex:{s}, ex:{o}).\n" for p, s, o in facts) + "\n".join(rules) + f"\n?- ex:{query}(?v, ?w).\n"
    return text


@settings(max_examples=150, deadline=None)
@given(programs())
def test_dead_rules_and_empty_queries_agree_with_the_closure(text):
    prog = program(text)
    ds = lint(prog, Census())
    db = Database()
    _add_program_facts(db, prog)
    model = closure(prog, db, limits=Limits(max_derived=10_000))
    fired = {d.rule for d in model.derived()}
    for d in ds:
        if d.code == DEAD_RULE:
            name = d.message.split("'")[1]
            assert name not in fired, (text, d.message)
    if any(d.code == EMPTY_QUERY for d in ds) or any(d.code in (UNDECLARED, UNPRODUCED) and
                                                       "the query" in " ".join(d.notes) for d in ds):
        q = prog.queries[0]
        pred = q.body[0].predicate
        assert not any(f.predicate == pred for f in model.derived()), text
        assert not any(a.predicate == pred for a in prog.facts), text
