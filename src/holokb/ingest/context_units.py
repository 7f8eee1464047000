"""Context Units (DS025): ``## Context Unit …`` blocks whose Subject/Relation/Object become facts.

::

    ## Context Unit src-001::chunk-000::unit-000
    Claim: AchillesIDE uses Ploinky.
    Subject: AchillesIDE
    Relation: uses
    Object: Ploinky
    Confidence: 1.00

Subject, Relation and Object are all or none: a unit with all three is one fact (evidence: the
whole unit block), a unit with none stays a plain DS005 unit (no fact, no skip), a unit with some
is skipped as ``incompleteUnit``.  ``Confidence`` is optional (default 1.0) and must lie in [0, 1].
Objects that read as a number or a day-time duration ("15 minutes") become typed literals,
anything else an entity.  The document's ``version`` metadata is copied into each fact's
``version`` qualifier.  Text outside units is reported as ``notUnderstood``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping

from ..analysis.program import PredicateDecl
from ..core.errors import InvalidValueError
from ..core.fact import Fact
from ..core.terms import Literal
from .extract import DocumentInput, ExtractedEntity, ExtractedFact, Extraction, Skip, SkipReason
from .naming import Naming, quantity

_HEADER = re.compile(r"^[ \t]*##[ \t]+Context Unit\b[^\n]*$", re.M)
_FIELD = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9 _-]*?)[ \t]*:[ \t]*(.*?)[ \t\r]*$")
_SYMBOLIC = ("Subject", "Relation", "Object")

#: The relation vocabulary of DS025 (pass it as ``vocabulary`` to refuse other relations).
THINKINGDB_RELATIONS = ("uses", "provides", "has_capability", "depends_on", "part_of", "instance_of",
                        "relevant_for", "supports", "mentions", "about")


def relation_vocabulary(relations: tuple[str, ...], naming: Naming = Naming()) -> dict[str, PredicateDecl]:
    """Binary predicate declarations for relation words, named as the extractor names them."""
    return {naming.predicate(r).value: PredicateDecl(naming.predicate(r).value, 2) for r in relations}


@dataclass(frozen=True)
class ContextUnitExtractor:
    """Reads Context Units; deterministic, no network, no clock."""

    naming: Naming = Naming()
    vocabulary: Mapping[str, PredicateDecl] = field(default_factory=dict)
    id: str = "context-units"
    version: str = "1"

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for chunk in document.chunks:
            yield self._chunk(chunk.chunk_id, document.chunk_text(chunk), document.meta.version)

    def _chunk(self, chunk_id: str, text: str, version: str | None) -> Extraction:
        heads = [m.start() for m in _HEADER.finditer(text)]
        facts: list[ExtractedFact] = []
        entities: list[ExtractedEntity] = []
        skipped: list[Skip] = []
        lead = text[:heads[0]] if heads else text
        if lead.strip():
            s = len(lead) - len(lead.lstrip())
            skipped.append(Skip(SkipReason.NOT_UNDERSTOOD, s, len(lead.rstrip()), "text outside a Context Unit"))
        for i, start in enumerate(heads):
            end = heads[i + 1] if i + 1 < len(heads) else len(text)
            block = text[start:end].rstrip()
            item, why = self._unit(block, version)
            span_end = start + len(block)
            if why is not None:
                skipped.append(Skip(why[0], start, span_end, why[1]))
            elif item is not None:
                fact, conf, ents = item
                facts.append(ExtractedFact(fact, start, span_end, conf))
                entities.extend(ents)
        return Extraction(chunk_id, len(heads) + (1 if lead.strip() else 0), tuple(facts), (), tuple(entities),
                          tuple(skipped))

    def _unit(self, block: str, version: str | None):
        fields: dict[str, str] = {}
        for line in block.splitlines()[1:]:
            m = _FIELD.match(line)
            if not m:
                continue
            key, value = m.group(1).strip(), m.group(2)
            if key in fields:
                return None, (SkipReason.SCHEMA, f"field {key!r} given twice")
            fields[key] = value
        present = [k for k in _SYMBOLIC if fields.get(k, "").strip()]
        if not present:
            return None, None
        if len(present) != 3:
            missing = ", ".join(k for k in _SYMBOLIC if k not in present)
            return None, (SkipReason.INCOMPLETE_UNIT, f"Subject/Relation/Object are all or none; missing {missing}")
        conf = 1.0
        if fields.get("Confidence", "").strip():
            try:
                conf = float(fields["Confidence"])
            except ValueError:
                conf = -1.0
            if not 0.0 <= conf <= 1.0:
                return None, (SkipReason.INVALID_VALUE, f"Confidence {fields['Confidence'][:20]!r} is not in [0, 1]")
        subj, rel, obj = (fields[k].strip() for k in _SYMBOLIC)
        try:
            s = self.naming.entity(subj)
            p = self.naming.predicate(rel)
            o_lit = quantity(obj)
            o = o_lit if o_lit is not None else self.naming.entity(obj)
            quals = (("version", Literal(version)),) if version else ()
            fact = Fact(s, p, o, quals)
        except InvalidValueError as e:
            return None, (SkipReason.INVALID_VALUE, e.message)
        ents = [ExtractedEntity(s, (subj,))]
        if o_lit is None:
            ents.append(ExtractedEntity(o, (obj,)))  # type: ignore[arg-type]
        return (fact, conf, ents), None
