"""The parsed form of a rule file: AST nodes (:mod:`.ast`) as written, unchecked.

Every Atom, Rule, Query, ... carries its ``origin``; analysis then checks them and lowers them
(unary atoms → ``rdf:type``, ``=`` → assignment, aggregate grouping) into a
:class:`~holokb.analysis.program.Program`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import Location
from .ast import Atom, PredicateDecl, Query, Rule


@dataclass(frozen=True, slots=True)
class Module:
    """One rule file with its includes spliced in, in source order.

    ``rules`` holds rules and constraints (``head is None``) in source order; ``sources`` maps
    each file read (``None`` for text given directly) to its text, so diagnostics can quote lines.
    """

    file: str | None
    prefixes: tuple[tuple[str, str], ...] = ()
    declarations: tuple[PredicateDecl, ...] = ()
    rules: tuple[Rule, ...] = ()
    facts: tuple[Atom, ...] = ()
    queries: tuple[Query, ...] = ()
    includes: tuple[str, ...] = ()
    sources: tuple[tuple[str | None, str], ...] = ()

    def source_line(self, loc: Location | None) -> str | None:
        """The text of the line ``loc`` points at, or None when unknown."""
        if loc is None:
            return None
        for f, text in self.sources:
            if f == loc.file:
                lines = text.splitlines()
                return lines[loc.line - 1] if 0 < loc.line <= len(lines) else None
        return None
