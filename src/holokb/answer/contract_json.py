"""The answer contract as JSON (camelCase, DS005 §7); the schema is ``answer.schema.json``.

Key order is fixed here (never sorted by the serialiser) so the output reads in contract order
and stays byte-identical for the same answer.
"""
from __future__ import annotations

from typing import Any

from .contract import (
    Answer, ChainEntry, ChainFact, Conflict, SourceSpan, as_of_json, interval_json, term_json,
)


def source_json(s: SourceSpan) -> dict[str, Any]:
    return {"document": s.document, "chunk": s.chunk, "charStart": s.char_start, "charEnd": s.char_end,
            "text": s.text, "extractor": s.extractor, "extractorVersion": s.extractor_version,
            "confidence": s.confidence}


def fact_json(f: ChainFact) -> dict[str, Any]:
    return {"subject": term_json(f.subject), "predicate": f.predicate.value,
            "object": None if f.object is None else term_json(f.object),
            "qualifiers": {k: term_json(v) for k, v in f.qualifiers}, "polarity": f.polarity,
            "valid": interval_json(f.valid)}


def entry_json(e: ChainEntry) -> dict[str, Any]:
    return {"factId": e.fact_id, "role": e.role.value, "fact": fact_json(e.fact),
            "evidence": [source_json(s) for s in e.evidence], "rule": e.rule,
            "ruleEvidence": [source_json(s) for s in e.rule_evidence], "premises": list(e.premises),
            "score": e.score}


def conflict_json(c: Conflict) -> dict[str, Any]:
    return {"fact1": entry_json(c.fact1), "fact2": entry_json(c.fact2), "reason": c.reason.value,
            "message": c.message, "key": list(c.key),
            "solver": None if c.solver is None else {"backend": c.solver.backend, "core": list(c.solver.core)}}


def answer_to_json(a: Answer) -> dict[str, Any]:
    return {
        "text": a.text,
        "verdict": a.verdict.value,
        "chunksUsed": list(a.chunks_used),
        "factChain": [entry_json(e) for e in a.fact_chain],
        "supportScores": {k: v for k, v in a.support_scores},
        "conflicts": [conflict_json(c) for c in a.conflicts],
        "reason": None if a.missing is None else {"code": a.missing.kind.value, "message": a.missing.message,
                                                  "detail": a.missing.detail},
        "values": [term_json(v) for v in a.values],
        "question": None if a.plan is None else a.plan.question,
        "plan": None if a.plan is None else a.plan.to_json(),
        "asOf": None if a.as_of is None else as_of_json(a.as_of),
        "truncated": a.truncated,
        "limitHit": None if a.limit_hit is None else a.limit_hit.value,
    }
