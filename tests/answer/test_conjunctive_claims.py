"""A claim or yes/no question that states several things at once ("Bob is cold and round.", "Is the
bear a big animal?") through `eval proofwriter`'s scoring (kb.ingest + kb.answer): true when every
part is, false when one part is false, unknown otherwise; the chain of a true one cites each part."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.answer.evaluation.proofwriter import score


def _record(context: str, claim: str, gold: str = "A") -> tuple[int, dict]:
    return 0, {"id": "conj", "context": context, "question": f"? {claim}", "answer": gold}


@pytest.mark.parametrize("context,claim,gold", [
    ("Bob is cold.", "Bob is cold and round.", "C"),
    ("Bob is cold. Bob is round.", "Bob is cold and round.", "A"),
    ("Bob is cold. Bob is not round.", "Bob is cold and round.", "B"),
    ("Bob is cold. Bob is not round.", "Bob is cold and not round.", "A"),
    ("Bob is not cold.", "Bob is cold and round.", "B"),  # one false part decides, the other unknown
    ("The bear is big. The bear is an animal.", "The bear is a big animal.", "A"),
    ("The bear is a big animal.", "The bear is a big animal.", "A"),
    ("The bear is not big.", "The bear is a big animal.", "B"),
    ("The cat chases the dog.", "The cat chases the dog and the mouse.", "C"),
    ("The cat chases the dog and the mouse.", "Does the cat chase the dog and the mouse?", "A"),
    ("Bob is red. If something is red then it is big. Anne is big.", "Bob and Anne are big.", "A"),
    ("Bob is red. Anne is red.", "Is Bob or Anne red?", None),  # "or": refused, never one of them
])
def test_a_claim_of_several_parts(context, claim, gold):
    r = score(_record(context, claim, gold or "C"))
    if gold is None:
        assert r.verdict == "unsupported" and r.predicted is None, r
        return
    assert r.correct, r
    if r.predicted == "True":
        cited = {s["text"] for e in r.chain for s in e.get("sources", ())}
        assert cited, r  # every part of a true claim rests on a cited sentence


_NAMES = ["Bob", "Anne"]
_ADJ = ["cold", "round", "kind"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts=st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(_ADJ), st.booleans()), min_size=1, max_size=5),
       rule=st.one_of(st.none(), st.tuples(st.sampled_from(_ADJ), st.sampled_from(_ADJ), st.booleans())),
       parts=st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(_ADJ), st.booleans()),
                      min_size=2, max_size=3, unique=True))
def test_a_claim_of_several_parts_is_its_parts_combined(facts, rule, parts):
    """The answer to "A and B (and C)" is the parts' answers combined: True when each is True, False when
    one is False, else Unknown (a theory that contradicts itself is left out: its parts conflict)."""
    text = " ".join(f"{n} is {'not ' if neg else ''}{a}." for n, a, neg in facts)
    if rule is not None:
        text += f" If something is {rule[0]} then it is {'not ' if rule[2] else ''}{rule[1]}."
    one = [score(_record(text, f"{n} is {'not ' if neg else ''}{a}.")) for n, a, neg in parts]
    if any(r.verdict == "conflicting" for r in one):
        return
    said = " and ".join(f"{n} is {'not ' if neg else ''}{a}" for n, a, neg in parts)
    whole = score(_record(text, said[0].upper() + said[1:] + "."))
    got = [r.predicted for r in one]
    expected = "False" if "False" in got else "True" if all(g == "True" for g in got) else "Unknown"
    assert whole.predicted == expected, (text, said, got, whole)
