"""``holokb demo``: the example KB end to end, as lines of text (the CLI prints them)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Iterator

from .core import AsOf, IRI, Limits, format_ms, parse_instant
from .kb import KnowledgeBase
from .resources import data_dir

EX = "http://example.org/"


def _q(kb: KnowledgeBase, e) -> str:
    text = kb.ledger.chunk_text(e.document, e.chunk) if e.chunk else None
    quote = json.dumps(text[e.char_start:e.char_end]) if text is not None and e.char_start is not None else ""
    return f"{e.document}#{e.chunk} {quote} (confidence {e.confidence:g})"


def run_demo(db: str | None = None) -> Iterator[str]:
    """Yield the demo's output lines; deterministic for a fresh ledger."""
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "demo.db")
        loaded_at = parse_instant("2026-01-01T00:00Z")
        with KnowledgeBase.open(path, shapes=[data_dir("shapes")]) as kb:
            yield "== 1. load the example KB (kb/: TriG with provenance blocks + source documents)"
            r = kb.load([data_dir("kb")], at=loaded_at)
            yield f"loaded {r.facts} facts, {r.documents} documents, {r.chunks} chunks at {format_ms(loaded_at)}"
            yield f"SHACL gate ran: {', '.join(r.shapes_run) or 'no shapes'}"

            yield "== 2. validate (domain shapes over the snapshot; annotation shapes over the ledger export)"
            domain, annotations = kb.validate()
            yield f"domain shapes: {'conforms' if domain is None or domain.conforms else 'violations'}; " \
                  f"annotation shapes: {'conforms' if annotations.conforms else 'violations'}"

            yield "== 3. as-of query: where was Alice at 10:00 and at 12:45 on 2026-01-01?"
            for t in ("2026-01-01T10:00Z", "2026-01-01T12:45Z", "2026-01-01T20:00Z"):
                page = kb.facts(IRI(EX + "Alice"), IRI(EX + "locatedIn"), as_of=AsOf.at(parse_instant(t)),
                                limits=Limits(max_results=10))
                if not len(page):
                    yield f"{t}: no recorded location"
                for v in page:
                    yield f"{t}: ex:Alice ex:locatedIn <{v.fact.object}> valid {v.valid}"
                    for e in v.evidence:
                        yield f"    evidence: {_q(kb, e)}"
            yield "== 4. the session-token policy differs by valid time (v1.0 before 2026-03-01, v2.0 after)"
            for t in ("2026-02-01", "2026-04-01"):
                for v in kb.facts(IRI(EX + "sessionPolicy"), IRI(EX + "sessionTimeout"),
                                  as_of=AsOf(loaded_at, parse_instant(t))):
                    yield f"valid {t}: timeout {v.fact.object.lexical}; evidence: {_q(kb, v.evidence[0])}"
            s = kb.stats()
            yield "== stats: " + ", ".join(f"{k}={s[k]}" for k in sorted(s))
