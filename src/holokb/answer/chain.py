"""Building the fact chain: premises from ledger spans, derived steps from proof nodes.

Every premise carries its evidence with the quoted source text (read from the stored chunk);
every derived step names its rule (with the rule's own evidence when a document stated it) and
the ids of its premises, in rule-body order.  Entries appear premises-first (post-order over the
proof DAG), each fact id once.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..core.fact import Evidence, Fact
from ..core.terms import HK, IRI, Literal, Term
from ..core.time import Interval
from ..engine import ProofNode
from ..ledger import FactView, Ledger
from .contract import ChainEntry, ChainFact, ChainRole, SourceSpan

#: Built-in steps that are anchored by their own definition (no premise facts needed).
CLOSED_WORLD = "builtin:closedWorld"
COMPARE = "builtin:compare"
FUNCTIONAL = "builtin:functional"
INERTIA = "builtin:inertia"  # a value carried forward from the moment it was set (story_policies.Inertia)
ANSWER = IRI(HK + "answer")


class Quoter:
    """Reads and caches chunk texts to quote evidence spans."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self._chunks: dict[tuple[str, str], str | None] = {}

    def quote(self, e: Evidence) -> str | None:
        if e.chunk is None or e.char_start is None or e.char_end is None:
            return None
        key = (e.document, e.chunk)
        if key not in self._chunks:
            self._chunks[key] = self.ledger.chunk_text(*key)
        text = self._chunks[key]
        return None if text is None else text[e.char_start:e.char_end]

    def sources(self, evidence: Iterable[Evidence]) -> tuple[SourceSpan, ...]:
        out = [SourceSpan(e.document, e.chunk, e.char_start, e.char_end, self.quote(e), e.extractor,
                          e.extractor_version, float(e.confidence)) for e in evidence]
        return tuple(sorted(out, key=lambda s: (s.document, s.chunk or "", s.char_start or -1, s.extractor)))


def confidence(v: FactView) -> float:
    return max((e.confidence for e in v.evidence), default=1.0)


def premise_entry(v: FactView, quoter: Quoter) -> ChainEntry:
    f = v.fact
    return ChainEntry(v.fact_id, ChainRole.PREMISE,
                      ChainFact(f.subject, f.predicate, f.object, f.qualifiers, f.polarity, v.valid),
                      quoter.sources(v.evidence), score=confidence(v))


def statement_id(subject: Term, predicate: IRI, obj: Term | None, negated: bool, fallback: str) -> str:
    """The canonical fact id of a derived statement (``Fact.id``), or ``fallback`` when it is not a
    triple (a literal subject, another arity)."""
    if isinstance(subject, IRI) and obj is not None:
        return Fact(subject, predicate, obj, (), "negate" if negated else "affirm").id
    return fallback


def _node_fact(n: ProofNode) -> ChainFact:
    s = n.args[0] if n.args else IRI(HK + "nothing")
    o = n.args[1] if len(n.args) > 1 else None
    # an absent premise (negation as failure) is shown as what the proof used: "not p(a, b)"
    return ChainFact(s, IRI(n.predicate), o, (), "negate" if n.negated != n.absent else "affirm", n.valid)


def _node_id(n: ProofNode) -> str:
    if n.rule is None and isinstance(n.key, str) and not n.key.startswith("rules"):
        return n.key
    o = n.args[1] if len(n.args) == 2 else None
    return statement_id(n.args[0], IRI(n.predicate), o, n.negated, n.id) if n.args else n.id


def proof_entries(root: ProofNode, views: dict[str, FactView], quoter: Quoter,
                  rule_sources: Callable[[str], tuple[tuple[SourceSpan, ...], str]]) -> list[ChainEntry]:
    """Chain entries for a proof DAG, premises first; ``rule_sources(rule)`` gives a rule's
    evidence and the name to show for it."""
    out: dict[str, ChainEntry] = {}

    def walk(n: ProofNode) -> str:
        nid = _node_id(n)
        if nid in out:
            return nid
        if n.rule is None:
            v = views.get(n.key) if isinstance(n.key, str) else None
            if v is not None:
                out[nid] = premise_entry(v, quoter)
            else:
                where = "absent" if n.absent else n.key[6:] if isinstance(n.key, str) and n.key.startswith("rules:") \
                    else "rule files"
                src = SourceSpan(where, None, None, None, None, "rule-file", "", 1.0)
                out[nid] = ChainEntry(nid, ChainRole.PREMISE, _node_fact(n), (src,), score=n.confidence)
            return nid
        premises = tuple(walk(p) for p in n.premises)
        evidence, shown = rule_sources(n.rule)
        out[nid] = ChainEntry(nid, ChainRole.DERIVED, _node_fact(n), (), shown, evidence,
                              tuple(dict.fromkeys(premises)), n.score)
        return nid

    walk(root)
    return list(out.values())


def derived_entry(subject: Term, predicate: IRI, obj: Term | None, negated: bool, rule: str,
                  premises: tuple[ChainEntry, ...], score: float, valid: Interval = Interval.always()) -> ChainEntry:
    """A derived step made by a built-in (comparison, closed world, functional exclusion)."""
    fact = ChainFact(subject, predicate, obj, (), "negate" if negated else "affirm", valid)
    fid = statement_id(subject, predicate, obj, negated, Fact(IRI(HK + "derived"), predicate,
                                                              Literal(repr((subject, obj, negated)))).id)
    return ChainEntry(fid, ChainRole.DERIVED, fact, (), rule, (), tuple(p.fact_id for p in premises), score)


def conclusion_entry(question: IRI, text: str, premises: Iterable[ChainEntry], score: float) -> ChainEntry:
    """``hk:answer(question, text)`` resting on the entries that decide it."""
    fact = Fact(question, ANSWER, Literal(text))
    ids = tuple(dict.fromkeys(p.fact_id for p in premises))
    return ChainEntry(fact.id, ChainRole.CONCLUSION, ChainFact(question, ANSWER, Literal(text)), (), None, (), ids,
                      score)
