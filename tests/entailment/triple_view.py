"""The triple view that rules/rdfs.hkr and rules/owl2rl.hkr read: every visible triple as ``hk:triple(s, p, o)``.

Those rule files quantify over properties, so they read one ternary relation instead of one binary
relation per predicate.  ``reasoning.database_at`` loads binary relations only; until it also fills
``hk:triple`` (requested in the h10 report), these helpers build the engine input here.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from holokb.analysis import Const, Program
from holokb.core import HK, IRI, AsOf, Limits, Literal, Term
from holokb.engine import Database, DerivedFact, Model, TermDictionary, closure

TRIPLE = HK + "triple"


def program_facts(db: Database, program: Program) -> None:
    """Ground facts written in the rule file (axioms) are input facts too."""
    for a in program.facts:
        db.add(a.predicate, tuple(x.term for x in a.args if isinstance(x, Const)), key=f"rules:{a.origin}",
               negated=a.negated)


def triples_database(triples: Iterable[tuple[Term, Term, Term]], program: Program) -> Database:
    """Engine input from in-memory triples (each becomes ``hk:triple(s, p, o)``) plus the program's facts."""
    db = Database()
    for s, p, o in triples:
        db.add(TRIPLE, (s, p, o))
    program_facts(db, program)
    return db


def ledger_database(ledger, as_of: AsOf, program: Program) -> Database:
    """Engine input from the facts a ledger shows at ``as_of``, keyed by ledger fact id (no term decoded)."""
    enc = ledger.encoded_visible(as_of)
    terms = TermDictionary()
    db = Database(terms)
    if len(enc):
        for tid in np.unique(np.concatenate([enc.s, enc.p, enc.o])).tolist():
            terms.seed(ledger.term(tid), tid)
        db.add_ids(TRIPLE, [enc.s, enc.p, enc.o], valid_from=enc.valid_from, valid_to=enc.valid_to,
                   keys=list(enc.fact_ids))
    program_facts(db, program)
    return db


def closed_triples(model: Model) -> list[tuple[Term, Term, Term]]:
    """Every ``hk:triple`` row of a model (input and derived), in the model's row order."""
    return list(model.relation(TRIPLE))


def is_rdf_triple(t: tuple[Term, Term, Term]) -> bool:
    """Plain RDF allows IRIs (and blank nodes) as subjects and IRIs as predicates; generalised triples are not."""
    s, p, _ = t
    return isinstance(s, IRI) and isinstance(p, IRI)


def to_oxigraph(triples: Iterable[tuple[Term, Term, Term]]):
    """A pyoxigraph Store with the RDF triples among ``triples`` (the SPARQL snapshot for tests and the bench)."""
    import pyoxigraph as ox

    def node(t: Term):
        if isinstance(t, IRI):
            return ox.NamedNode(t.value)
        assert isinstance(t, Literal)
        if t.lang:
            return ox.Literal(t.lexical, language=t.lang)
        return ox.Literal(t.lexical, datatype=ox.NamedNode(t.datatype))

    store = ox.Store()
    store.bulk_extend(ox.Quad(node(s), node(p), node(o)) for s, p, o in triples if is_rdf_triple((s, p, o)))
    return store


def rule_file(name: str) -> Path:
    """A shipped rule file (``rules/<name>``) of this checkout."""
    return Path(__file__).resolve().parents[2] / "rules" / name


class BinaryDerived:
    """A closure over the triple view, seen as binary facts ``p(s, o)`` (what SPARQL snapshots read)."""

    def __init__(self, model: Model):
        self.model = model
        self.truncated = model.truncated
        self.limit_hit = model.limit_hit
        self.violations = model.violations
        self.stats = model.stats

    def derived(self, *, limit: int | None = None, deadline: Any = None) -> tuple[DerivedFact, ...]:
        """Derived ``hk:triple(s, p, o)`` with an IRI predicate as ``DerivedFact(p, (s, o))``, in model order
        (the same keywords as :meth:`Model.derived`; ``limit`` counts the binary facts)."""
        out = tuple(dataclasses.replace(d, predicate=d.args[1].value, args=(d.args[0], d.args[2]))
                    for d in self.model.derived(deadline=deadline) if d.predicate == TRIPLE and isinstance(d.args[1], IRI))
        return out if limit is None else out[:limit]

    def derived_count(self) -> int:
        """How many facts :meth:`derived` lists without a limit or deadline."""
        return len(self.derived())


class TripleViewKB:
    """A KnowledgeBase whose ``derive`` reads the triple view (for ``holokb.sparql.run_query``)."""

    def __init__(self, kb, *, record_proofs: bool = False):
        self.kb = kb
        self.ledger = kb.ledger
        self.record_proofs = record_proofs

    def derive(self, program: Program, *, as_of: AsOf, limits: Limits | None = None) -> BinaryDerived:
        """Close the facts visible at ``as_of`` (as ``hk:triple``) under ``program``."""
        db = ledger_database(self.ledger, as_of, program)
        return BinaryDerived(closure(program, db, limits=limits, record_proofs=self.record_proofs))
