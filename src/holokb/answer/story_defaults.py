"""Default values over a closed story (bAbI 16's induction, as an explicit, cited policy).

A default rule ("a thing has the colour of another thing of its kind", rules/babi.hkr
``induced_colour``) can give one thing several values when its kind-mates differ.  The lexicon's
``[defaults]`` entry for the predicate says how that is settled, as data:

- ``own``: a value stated of the thing itself defeats the default (one such value is the answer,
  several are no answer);
- ``mate``: the relation naming whose value the default takes (``kindMate(thing, mate)``), and
  ``prefer = "latest"``: of mates with different values, the one whose membership the story states
  last (its premise sentence comes last in the text).  A tie, a mate with several values of its own,
  or any other ``prefer`` is no answer: the policy never guesses beyond what it states.

The answer's chain cites the default rule, the mate relation (with its sentences) and the mate's
stated value (with its sentence).
"""
from __future__ import annotations

from ..core import Fact, IRI
from .contract import Answer, ChainEntry, ChainFact, ChainRole, Missing, MissingKind, Verdict
from .over_reading import StoryModel, explain_at
from .plan import QueryPlan


def default_value(story: StoryModel, plan: QueryPlan, subj, t: int, spec: dict, word) -> Answer:
    """The value the default policy ``spec`` gives ``subj`` at ``t`` (see the module docstring)."""
    m = story.model
    pred = plan.goal.predicate.term.value

    def values(p: str, s) -> list:
        return sorted({args[1] for args, v in m.rows(p) if args[0] == s and v.contains(t)}, key=str)

    own = values(spec["own"], subj)
    if own:
        if len(own) != 1:
            return _refuse(plan, "the story gives several values")
        chain = explain_at(story, spec["own"], (subj, own[0]), False, t)
        return Answer(word(own[0]), Verdict.SUPPORTED, fact_chain=chain, values=(own[0],), plan=plan)
    if spec.get("prefer") != "latest":
        return _refuse(plan, "the story gives several values")
    ranked = []
    for mate in values(spec["mate"], subj):
        theirs = values(spec["own"], mate)
        if not theirs:
            continue
        if len(theirs) != 1:
            return _refuse(plan, "a kind-mate has several values")
        link = explain_at(story, spec["mate"], (subj, mate), False, t)
        about = {(e.fact.predicate, e.fact.object) for e in link if e.role is ChainRole.PREMISE and e.fact.subject == mate}
        said = max((f.span.start for f in story.reading.facts  # a restatement counts: the latest sentence saying it
                    if f.fact.subject == mate and (f.fact.predicate, f.fact.object) in about), default=-1)
        ranked.append((said, mate, theirs[0], link))
    if not ranked:
        return _refuse(plan, "nothing in the story says")
    ranked.sort(key=lambda r: r[0])
    if len(ranked) > 1 and ranked[-1][0] == ranked[-2][0]:
        return _refuse(plan, "two kind-mates are stated together")
    _, mate, value, link = ranked[-1]
    source = explain_at(story, spec["own"], (mate, value), False, t)
    steps = link[:-1] + source[:-1]
    premises = (link[-1].fact_id, source[-1].fact_id)
    fact = ChainFact(subj, IRI(pred), value)
    conclusion = ChainEntry(Fact(subj, IRI(pred), value, (), "affirm").id, ChainRole.CONCLUSION, fact, (),
                            spec["rule"], (), premises, None)
    derived = tuple(ChainEntry(e.fact_id, ChainRole.DERIVED if e.role is ChainRole.CONCLUSION else e.role, e.fact,
                               e.evidence, e.rule, e.rule_evidence, e.premises, e.score)
                    for e in (link[-1], source[-1]))
    return Answer(word(value), Verdict.SUPPORTED, fact_chain=steps + derived + (conclusion,), values=(value,),
                  plan=plan)


def _refuse(plan: QueryPlan, message: str) -> Answer:
    return Answer(None, Verdict.UNSUPPORTED, plan=plan, missing=Missing(MissingKind.NOT_PROVED, message))
