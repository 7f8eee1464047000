"""explain (issue 8, item 7): read from a fresh stored closure's proof rows, else from a goal-directed
closure — the same proof DAG (content-hashed ids included) as the full closure's, either way."""
from __future__ import annotations


from hypothesis import HealthCheck, assume, given, settings

from holokb.analysis import analyze
from holokb.core import AsOf, HolokbError, Interval, parse_instant
from holokb.kb import KnowledgeBase, ProofSource
from holokb.reasoning import load_program
from holokb.resources import data_dir
from holokb.syntax import parse_rules

from random_programs import facts, goal_text, loaded_kb, program_text, turtle

AT = parse_instant("2026-01-01")


def full_proof(kb, program, as_of, pred, args, negated=False):
    model = kb.derive(program, as_of=as_of)
    return model.explain(pred, args, negated=negated)


def test_example_kb_stored_and_computed_agree(tmp_path):
    program = load_program([data_dir("rules") / "example.hkr"])
    april = AsOf(AT + 86_400_000, parse_instant("2026-04-01"))
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=[data_dir("shapes")]) as kb:
        kb.load([data_dir("kb")], at=AT)
        fact = "ex:expired(ex:supportConsoleToken)"
        computed = kb.explain(program, fact, as_of=april)
        assert computed.source is ProofSource.COMPUTED and computed.proof is not None
        assert computed.proof == full_proof(kb, program, april, computed.predicate, computed.args)
        kb.derive_and_store(program, as_of=april, computed_at=AT + 86_400_000)
        # The example's facts hold over bounded valid times (the policy changes on 2026-03-01): a stored
        # row keeps the fact's maximal interval, not the derivation's own, so the proof is computed.
        again = kb.explain(program, fact, as_of=april)
        assert again.source is ProofSource.COMPUTED
        assert again.proof == computed.proof and again.evidence == computed.evidence
        unplaced = kb.explain(program, "ex:unplaced(ex:Alice)", as_of=april)
        absent = [n for n in unplaced.proof.nodes() if n.absent]
        assert [(n.predicate, n.args[1]) for n in absent] == [("http://example.org/locatedIn", None)]
        assert absent[0].valid == unplaced.valid == Interval(parse_instant("2026-01-01T18:00Z"), None)
        # an asserted fact is its own proof, stored or not
        located = kb.explain(program, "ex:partOf(ex:Lab, ex:Building7)", as_of=april)
        assert located.proof is not None and located.proof.rule is None and located.evidence


def test_timeless_kb_explains_from_the_stored_closure(tmp_path):
    program = load_program([data_dir("rules") / "example.hkr"])
    kb_file = tmp_path / "tools.ttl"
    kb_file.write_text("@prefix ex: <http://example.org/> .\n"
                       "ex:AchillesIDE ex:uses ex:libsandbox . ex:libsandbox ex:provides ex:sandboxing .\n"
                       "ex:Alice a ex:Person .\n")
    now = AsOf(AT + 86_400_000, parse_instant("2026-04-01"))
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([kb_file], at=AT)
        facts = ["ex:hasCapability(ex:AchillesIDE, ex:sandboxing)", "ex:unplaced(ex:Alice)"]
        computed = {f: kb.explain(program, f, as_of=now) for f in facts}
        assert all(e.source is ProofSource.COMPUTED and e.proof is not None for e in computed.values())
        kb.derive_and_store(program, as_of=now, computed_at=AT + 86_400_000)
        for f in facts:
            stored = kb.explain(program, f, as_of=now)
            assert stored.source is ProofSource.STORED
            assert stored.proof == computed[f].proof and stored.valid == computed[f].valid
        cut = kb.explain(program, facts[0], as_of=now, max_depth=1)
        assert cut.source is ProofSource.STORED and cut.proof is not None
        assert cut.proof == kb.derive(program, as_of=now).explain(cut.predicate, cut.args, max_depth=1)
        # a later write that the AsOf sees makes the stored closure stale: computed again
        extra = tmp_path / "extra.ttl"
        extra.write_text("@prefix ex: <http://example.org/> .\nex:NewTool ex:uses ex:libsandbox .\n")
        kb.load([extra], at=AT + 3_600_000)
        assert kb.explain(program, facts[0], as_of=now).source is ProofSource.COMPUTED


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program_text(), facts())
def test_stored_goal_directed_and_full_proofs_are_one(text, rows):
    try:
        program = analyze(parse_rules(text))
    except HolokbError:
        assume(False)
    assume(rows)
    now = AsOf.latest()
    with loaded_kb("facts.ttl", turtle(rows), at=AT) as kb:
        model = kb.derive(program, as_of=now)
        derived = model.derived()
        goals = [(d.predicate, d.args, d.negated) for d in derived][:6]
        computed = {g: kb.explain(program, goal_text(*g), as_of=now) for g in goals}
        kb.derive_and_store(program, as_of=now, computed_at=AT + 1)
        for g in goals:
            full = model.explain(g[0], g[1], negated=g[2])
            stored = kb.explain(program, goal_text(*g), as_of=now)
            assert computed[g].proof == full, g
            assert stored.source is ProofSource.STORED and stored.proof == full, g

