"""Resolving a plan's names against the KB: prefixes, predicates, entity aliases, quantities.

Resolution is deterministic and never guesses: a name that matches nothing, or more than one
entity, is reported (the answer becomes ``unsupported`` with ``unknownName``).

Entity names (subject/object positions), in order: ``prefix:local`` with a known prefix; an entity
alias (NFKC, case-folded, whitespace collapsed; exactly one entity); the IRI the extractors' naming
would mint for the words, when the ledger knows it; in object position, a number or a day-time
duration phrase (``15 minutes``).  Predicate names: ``prefix:local``; the minted predicate IRI when
the ledger or the rules know it.  Qualifier values: ``prefix:local`` IRIs, else plain strings.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Union

from ..analysis.program import Const, Var
from ..core.errors import InvalidValueError
from ..core.terms import IRI, Literal, Term
from ..ingest.naming import Naming, quantity
from ..ledger import Ledger
from .plan import Pattern, PlanTerm

#: A resolved position: a variable, a term, or None (any value).
Slot = Union[Var, IRI, Literal, None]


@dataclass(frozen=True, slots=True)
class Goal:
    """A resolved pattern: ``predicate`` is an IRI (variables in predicate position are not answered
    here), subject/object are terms, variables or None."""

    predicate: IRI | Var
    subject: Slot
    object: Slot
    qualifiers: tuple[tuple[str, Term], ...]
    polarity: str

    def variables(self) -> tuple[Var, ...]:
        out: list[Var] = []
        for t in (self.subject, self.predicate, self.object):
            if isinstance(t, Var) and t not in out:
                out.append(t)
        return tuple(out)

    @property
    def ground(self) -> bool:
        return isinstance(self.predicate, IRI) and isinstance(self.subject, (IRI, Literal)) \
            and isinstance(self.object, (IRI, Literal))


class Unresolved(Exception):
    """A name that resolves to nothing (or to several things); ``name`` is what the plan said."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name
        self.message = message


class Resolver:
    """Resolves plan terms with the KB's prefixes, known predicates, aliases and naming."""

    def __init__(self, ledger: Ledger, *, prefixes: Mapping[str, str], predicates: Iterable[str],
                 naming: Naming = Naming()):
        self.ledger = ledger
        self.prefixes = dict(prefixes)
        self.predicates = frozenset(predicates)
        self.naming = naming

    def _prefixed(self, text: str) -> IRI | None:
        prefix, sep, local = text.partition(":")
        if sep and prefix in self.prefixes and " " not in text and not local.startswith("//"):
            return IRI(self.prefixes[prefix] + local)
        if "://" in text and " " not in text:
            try:
                return IRI(text)
            except InvalidValueError:
                return None
        return None

    def _known(self, iri: IRI) -> bool:
        return iri.value in self.predicates or self.ledger.term_ids([iri])[0] is not None

    def entity(self, t: PlanTerm | None, *, object_position: bool = False) -> Slot:
        if t is None or isinstance(t, Var):
            return t
        if isinstance(t, Const):
            return t.term
        text = t.text
        iri = self._prefixed(text)
        if iri is not None:
            return iri
        hits = self.ledger.entities_by_alias(text)
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            shown = ", ".join(h.value for h in hits[:5])
            raise Unresolved(text, f"the name {text!r} is ambiguous: it names {len(hits)} entities ({shown})")
        try:
            minted = self.naming.entity(text)
        except InvalidValueError:
            minted = None
        if minted is not None and self.ledger.term_ids([minted])[0] is not None:
            return minted
        if object_position:
            lit = quantity(text)
            if lit is not None:
                return lit
        raise Unresolved(text, f"no entity is named {text!r}")

    def predicate(self, t: PlanTerm, *, mint: bool = False) -> IRI | Var:
        """A predicate; with ``mint`` an unknown name becomes the minted IRI (labels the plan defines,
        such as a check's ``derives``)."""
        if isinstance(t, Var):
            return t
        if isinstance(t, Const):
            if not isinstance(t.term, IRI):
                raise Unresolved(str(t.term), "a predicate must be an IRI")
            return t.term
        text = t.text
        iri = self._prefixed(text)
        if iri is not None:
            return iri
        try:
            minted = self.naming.predicate(text)
        except InvalidValueError:
            raise Unresolved(text, f"no predicate is named {text!r}") from None
        if mint or self._known(minted):
            return minted
        raise Unresolved(text, f"no predicate is named {text!r}")

    def qualifier(self, t: PlanTerm) -> Term:
        if isinstance(t, Var):
            raise Unresolved("?" + t.name, "qualifier values must be given, not variables")
        if isinstance(t, Const):
            return t.term
        iri = self._prefixed(t.text)
        return iri if iri is not None else Literal(t.text)

    def goal(self, p: Pattern, *, mint: bool = False) -> Goal:
        return Goal(self.predicate(p.predicate, mint=mint), self.entity(p.subject),
                    self.entity(p.object, object_position=True),
                    tuple((k, self.qualifier(v)) for k, v in p.qualifiers), p.polarity)
