"""The rules an answer reasons with: the KB's rule files plus the rules documents stated.

Document rules live in the ledger as ``hk:rule/<id> hk:ruleIR "<JSON>"`` facts (written by the
ingestion pipeline with the sentence as evidence), so the rules visible at an AsOf are the ones the
KB believed then.  The merged program is analysed once per distinct (rule files, visible rule
facts) and cached on the :class:`RuleBook`.
"""
from __future__ import annotations

import hashlib

from ..analysis import Program, Rule, analyze
from ..core.errors import HolokbError, InvalidValueError, RuleAnalysisError
from ..core.limits import Limits
from ..core.terms import HK, IRI, Literal
from ..core.time import AsOf
from ..ingest.pipeline import RULE_IR
from ..ingest.rule_json import rule_from_json
from ..ledger import FactView, Ledger
from ..syntax import Module
from .chain import Quoter
from .contract import SourceSpan

WORLD = IRI(HK + "world")
_ALL = Limits(max_results=None)


class RuleBook:
    """Merges the base program with document rules visible at an AsOf (cached by content)."""

    def __init__(self, ledger: Ledger, base: Program | None, *, cache_size: int = 16):
        self.ledger = ledger
        self.base = base
        self._cache: dict[str, tuple[Program, dict[str, FactView]]] = {}
        self._size = cache_size

    def at(self, as_of: AsOf) -> tuple[Program, dict[str, FactView]]:
        """The merged program and, per rule name, the ledger fact that stated it."""
        views = sorted(self.ledger.facts(as_of, predicate=RULE_IR, limits=_ALL), key=lambda v: v.fact_id)
        key = hashlib.sha256(((self.base.rule_set_hash if self.base else "") + "|" +
                              ",".join(v.fact_id for v in views)).encode()).hexdigest()
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        by_name: dict[str, FactView] = {}
        rules: list[Rule] = []
        for v in views:
            obj = v.fact.object
            if v.fact.polarity != "affirm" or not isinstance(obj, Literal):
                continue
            try:
                rule = rule_from_json(obj.lexical)
            except InvalidValueError as e:
                raise HolokbError(f"stored rule {v.fact.subject.value} cannot be read: {e.message}") from None
            if rule.name not in by_name:
                by_name[rule.name] = v
                rules.append(rule)
        base = self.base
        if not rules:
            program = base if base is not None else analyze(Module(file=None))
        else:
            module = Module(file="<rules + document rules>", prefixes=base.prefixes if base else (),
                            declarations=tuple(base.vocabulary.values()) if base else (),
                            rules=(tuple(base.rules) + tuple(base.constraints) if base else ()) + tuple(rules),
                            facts=base.facts if base else ())
            try:
                program = analyze(module)
            except RuleAnalysisError as e:
                raise HolokbError("the rule files and the rules stated in documents do not form one program: "
                                  + e.diagnostics[0].message, e.diagnostics) from None
        if len(self._cache) >= self._size:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = (program, by_name)
        return program, by_name


def rule_sources(by_name: dict[str, FactView], program: Program, quoter: Quoter):
    """``rule name -> (evidence, name to show)`` for proof steps."""
    origins = {r.name: r.origin for r in program.rules}

    def sources(rule: str) -> tuple[tuple[SourceSpan, ...], str]:
        v = by_name.get(rule)
        if v is not None:
            return quoter.sources(v.evidence), rule
        o = origins.get(rule)
        if o is not None and o.file and not o.file.startswith("<"):
            return (SourceSpan(f"{o.file}:{o.line}", None, None, None, None, "rule-file", "", 1.0),), rule
        return (), rule

    return sources


def declared_worlds(ledger: Ledger, as_of: AsOf) -> dict[str, str]:
    """``predicate IRI -> "open" | "closed"`` from ``<p> hk:world "closed"`` facts visible at ``as_of``."""
    out: dict[str, str] = {}
    for v in ledger.facts(as_of, predicate=WORLD, limits=_ALL):
        o = v.fact.object
        if v.fact.polarity == "affirm" and isinstance(o, Literal) and o.lexical in ("open", "closed"):
            key = v.fact.subject.value
            # Two declarations that disagree: the open world is the one that never claims a "No".
            out[key] = "open" if out.get(key, o.lexical) != o.lexical else o.lexical
    return out

