"""The encoded proof-step path (term ids, nothing decoded) says exactly what ``Model.proof_steps``
says, in the same order: checked by hypothesis on random stratified programs with negation,
aggregates and random validity intervals, over a dictionary seeded with caller-chosen ids."""
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import AssertedRef, Interval, Literal
from holokb.core.limits import Deadline
from holokb.engine import Database, TermDictionary, closure
from holokb.core import DerivedRef
from holokb.engine.encoded import EncodedStep, decode, encoded_columns
from holokb.engine.model import _interval

from lang import rules
from stratified_programs import DOMAIN, EX, TIMES, programs, temporal_facts, value

SEED_BASE = 1000  # caller ids far from the ones the dictionary would hand out itself


def seeded_database(facts) -> tuple[Database, set[int]]:
    terms = TermDictionary()
    seeded = set()
    for v in range(DOMAIN):
        terms.seed(value(v), SEED_BASE + v)
        seeded.add(SEED_BASE + v)
    db = Database(terms)
    for k, (p, row, valid) in enumerate(facts):
        db.add(EX + p, tuple(value(v) for v in row), valid=valid, key=AssertedRef(f"{k:064x}"))
    return db, seeded


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), temporal_facts(), st.booleans(), st.sampled_from([None, *TIMES, 15]))
def test_decoded_encoded_steps_equal_proof_steps(text, facts, proofs, valid_at):
    db, seeded = seeded_database(facts)
    m = closure(rules(text), db, record_proofs=proofs, valid_at=valid_at)
    enc = m.encoded_proof_steps()
    steps = m.proof_steps()
    assert decode(enc, m.terms) == steps, text
    # minted: exactly the ids the steps use that no caller chose (computed values here: sums, counts)
    used = {i for s in enc.steps for i in (*s.args, *(b for _, b in s.bindings),
                                           *(x for a in s.absent for x in a.args if x is not None))}
    assert set(enc.minted) == used - seeded and list(enc.minted) == sorted(enc.minted)
    for i in enc.minted:
        assert not m.terms.is_seeded(i)
    # the columnar form holds the same steps (absences aside) and the minted ids of args and bindings
    cols = encoded_columns(m)
    assert cols.count == len(enc.steps)
    assert steps_of_columns(cols, m) == [replace_absent(s) for s in enc.steps], text
    used = {i for s in enc.steps for i in (*s.args, *(b for _, b in s.bindings))}
    assert list(cols.minted) == sorted(used - seeded)
    for s in steps:  # each term the caller seeded is named by its own id in the encoded steps
        for t in s.fact.args:
            if isinstance(t, Literal) and t.value in range(DOMAIN) and type(t.value) is int:
                assert m.terms.lookup(t) == SEED_BASE + t.value


def replace_absent(step: EncodedStep) -> EncodedStep:
    return EncodedStep(step.predicate, step.args, step.valid, step.rule, step.depth, step.score, step.negated,
                       step.premises, step.bindings)


def steps_of_columns(cols, model) -> list[EncodedStep]:
    """Per-step objects read back from the columns, in position order."""
    out = {}
    for g in cols.groups:
        f = g.facts
        for k, seq in enumerate(f.seq.tolist()):
            premises = tuple(DerivedRef(int(p.value[k])) if p.derived[k]
                             else model.input_keys[p.relation][int(p.value[k])] for p in g.premises)
            out[seq] = EncodedStep(f.predicate, tuple(f.args[k].tolist()),
                                   _interval(int(f.valid_from[k]), int(f.valid_to[k])), f.rule, int(f.depth[k]),
                                   None if f.score is None else float(f.score[k]), f.negated, premises,
                                   tuple((n, int(v[k])) for n, v in g.bindings))
    assert sorted(out) == list(range(cols.count))
    return [out[k] for k in range(cols.count)]


def test_a_deadline_cuts_the_encoded_steps_to_a_prefix():
    text = "rule r0: ex:q0(?x, ?y) :- ex:e0(?x, ?y).\nrule r1: ex:q0(?x, ?z) :- ex:q0(?x, ?y), ex:e0(?y, ?z)."
    facts = [("e0", (a, b), Interval())
             for a in range(DOMAIN) for b in range(DOMAIN)]
    db, _ = seeded_database(facts)
    m = closure(rules(text), db, record_proofs=True)
    full = m.encoded_proof_steps()
    assert len(full.steps) == m.derived_count() > 0
    cut = m.encoded_proof_steps(deadline=Deadline(0.0))
    assert cut.steps == full.steps[:len(cut.steps)] and len(cut.steps) < len(full.steps)
    assert encoded_columns(m, deadline=Deadline(0.0)).count == 0
