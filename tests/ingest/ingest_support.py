"""Small documents and a scripted extractor for the pipeline tests."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator

from holokb.analysis.program import PredicateDecl
from holokb.core import Fact, IRI, Literal
from holokb.ingest import DocumentInput, ExtractedFact, Extraction

EX = "http://example.org/"


def unit(uid: str, s: str, r: str, o: str, conf: str | None = None, claim: str | None = None) -> str:
    lines = [f"## Context Unit {uid}"]
    if claim:
        lines.append(f"Claim: {claim}")
    lines += [f"Subject: {s}", f"Relation: {r}", f"Object: {o}"]
    if conf is not None:
        lines.append(f"Confidence: {conf}")
    return "\n".join(lines)


TOOLS = "\n\n".join([
    "Tooling inventory.",
    unit("u0", "AchillesIDE", "uses", "Ploinky", "0.9", "AchillesIDE uses Ploinky."),
    unit("u1", "Ploinky", "provides", "sandboxing"),
    "## Context Unit u2\nSubject: Ploinky\nRelation: provides",
    "## Context Unit u3\nClaim: a unit without symbolic fields",
    unit("u4", "HermesCLI", "uses", "libindex", "1.7"),
])


@dataclass
class Scripted:
    """An extractor that yields what it is told per chunk (and can misbehave on purpose)."""

    per_chunk: int = 1
    sleep_s: float = 0.0
    crash_at: int | None = None
    wrong_chunk_at: int | None = None
    vocabulary: dict = field(default_factory=dict)
    id: str = "scripted"
    version: str = "1"

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for i, c in enumerate(document.chunks):
            if self.sleep_s:
                time.sleep(self.sleep_s)
            if i == self.crash_at:
                raise RuntimeError("boom")
            n = c.end - c.start
            facts = tuple(ExtractedFact(Fact(IRI(EX + f"c{i}"), IRI(EX + "n"), Literal.of(k)), 0, n)
                          for k in range(self.per_chunk))
            yield Extraction("zz" if i == self.wrong_chunk_at else c.chunk_id, 1, facts)


def vocab(*names: str) -> dict:
    return {EX + n: PredicateDecl(EX + n, 2) for n in names}
