"""JSON shapes of terms and ledger views, shared by the CLI's ``--format json`` and the HTTP API.

Terms follow the SPARQL results JSON convention (``{"type": "uri", "value": …}``); keys are
camelCase as in the answer contract.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .core import IRI, Term

if TYPE_CHECKING:
    from .core import Evidence
    from .ledger import FactView


def term_json(t: Term) -> dict:
    """``{"type": "uri", "value"}`` for an IRI; ``{"type": "literal", "value", "datatype"[, "lang"]}``."""
    if isinstance(t, IRI):
        return {"type": "uri", "value": t.value}
    d = {"type": "literal", "value": t.lexical, "datatype": t.datatype}
    if t.lang:
        d["lang"] = t.lang
    return d


def evidence_json(e: "Evidence") -> dict:
    """One piece of evidence: where the fact was read, by what, how sure."""
    return {"document": e.document, "chunk": e.chunk, "charStart": e.char_start, "charEnd": e.char_end,
            "extractor": e.extractor, "extractorVersion": e.extractor_version, "confidence": e.confidence,
            "assertedAt": e.asserted_at}


def fact_view_json(v: "FactView") -> dict:
    """A visible span of a fact: ids, the statement, both intervals (``[start, end]``, end null = open), evidence."""
    return {
        "factId": v.fact_id, "spanId": v.span_id, "subject": term_json(v.fact.subject),
        "predicate": term_json(v.fact.predicate), "object": term_json(v.fact.object), "polarity": v.fact.polarity,
        "qualifiers": {k: term_json(t) for k, t in v.fact.qualifiers},
        "valid": [v.valid.start, v.valid.end], "system": [v.system.start, v.system.end],
        "evidence": [evidence_json(e) for e in v.evidence],
    }
