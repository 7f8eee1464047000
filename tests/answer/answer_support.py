"""A sentence-table extractor and plan helpers for the answer tests.

``Table`` reads each sentence of a chunk by looking it up in a table of meanings (facts and rules
written in the rule language), so tests get real evidence spans without depending on the
controlled-English reader.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Iterator

from holokb.analysis.program import PredicateDecl
from holokb.core import Fact, IRI, Literal
from holokb.ingest import DocumentInput, ExtractedFact, ExtractedRule, Extraction, Skip, SkipReason
from holokb.syntax import parse_rules

EX = "http://example.org/"
PREFIX = "@prefix ex: <http://example.org/> .\n"
_SENTENCE = re.compile(r"[^.!?\s][^.!?]*[.!?]")


def meaning(text: str) -> tuple[list[Fact], list]:
    """Facts (``ex:p(ex:a, ex:b).`` / ``not …``) and rules in the rule language."""
    m = parse_rules(PREFIX + text)
    facts = []
    for a in m.facts:
        s, o = (t.term for t in a.args)
        facts.append(Fact(s, IRI(a.predicate), o, (), "negate" if a.negated else "affirm"))
    return facts, list(m.rules)


@dataclass
class Table:
    """Sentence → meaning; unknown sentences are skipped as not understood."""

    meanings: dict[str, str]
    functional: tuple[str, ...] = ()
    id: str = "table"
    version: str = "1"
    vocabulary: dict = field(default_factory=dict)

    def __post_init__(self):
        self.vocabulary = {EX + p: PredicateDecl(EX + p, 2, (), True) for p in self.functional}
        if self.vocabulary:
            for text in self.meanings.values():
                for f in meaning(text)[0]:
                    self.vocabulary.setdefault(f.predicate.value, PredicateDecl(f.predicate.value, 2))

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for c in document.chunks:
            text = document.chunk_text(c)
            facts, rules, skips, n = [], [], [], 0
            for m in _SENTENCE.finditer(text):
                n += 1
                got = self.meanings.get(m.group(0))
                if got is None:
                    skips.append(Skip(SkipReason.NOT_UNDERSTOOD, m.start(), m.end()))
                    continue
                fs, rs = meaning(got)
                facts += [ExtractedFact(f, m.start(), m.end()) for f in fs]
                rules += [ExtractedRule(r, m.start(), m.end()) for r in rs]
            yield Extraction(c.chunk_id, n, tuple(facts), tuple(rules), (), tuple(skips))


def goal(s, p, o, polarity="affirm", **extra) -> dict:
    return {"goal": {"subject": s, "predicate": p, "object": o, "polarity": polarity}, **extra}


def answer_schema():
    import jsonschema

    s = json.loads(resources.files("holokb.answer").joinpath("answer.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(s)


def lit(v) -> Literal:
    return Literal.of(v)
