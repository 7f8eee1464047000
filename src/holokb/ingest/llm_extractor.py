"""The LLM extractor: a prompt that demands JSON facts in the KB's vocabulary, and the gates.

The prompt lists the predicate vocabulary (local names, arity and argument types) and asks for
``{"facts": [{"subject", "predicate", "object", "polarity", "qualifiers", "confidence", "quote"}]}``
with ``quote`` copied exactly from the passage.  What comes back passes, per fact, the gates of
DS005 §4: the **schema** (fields and JSON types), the **span** (the quote is found in the chunk;
see :mod:`holokb.ingest.gates`), and the **vocabulary** (the predicate is declared; the object fits
the declared argument type).  What fails is dropped with its reason in the ingestion report.
A response that is not JSON, or a client error, skips the chunk (``schema`` / ``extractorError``)
and the document goes on.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

from ..analysis.program import PredicateDecl
from ..core.errors import InvalidValueError
from ..core.fact import Fact
from ..core.terms import XSD, XSD_BOOLEAN, XSD_DECIMAL, XSD_DURATION, XSD_INTEGER, IRI, Literal, Term
from .extract import DocumentInput, ExtractedEntity, ExtractedFact, Extraction, Skip, SkipReason
from .gates import numbers_verbatim, polarity_consistent, subject_in_span
from .llm import LLMClient, LLMError, ResponseFormat
from .naming import Naming, quantity

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)
_FIELDS = ("subject", "predicate", "object", "polarity", "qualifiers", "confidence", "quote", "span")
_NUMERIC = {XSD_INTEGER: "an integer", XSD_DECIMAL: "a number", XSD + "double": "a number"}


def _local(iri: str, naming: Naming) -> str:
    return iri[len(naming.namespace):] if iri.startswith(naming.namespace) else f"<{iri}>"


def build_prompt(chunk_text: str, vocabulary: Mapping[str, PredicateDecl], naming: Naming) -> str:
    """The extraction prompt (deterministic: vocabulary in IRI order)."""
    lines = []
    for p, d in sorted(vocabulary.items()):
        types = ", ".join(_local(t, naming) if t and "://" in t else (t or "any") for t in d.arg_types) \
            if d.arg_types else ", ".join(["entity"] * d.arity)
        lines.append(f"- {_local(p, naming)}({types}){' functional' if d.functional else ''}")
    return (
        "Extract facts from the passage for a knowledge base. Answer with one JSON object only:\n"
        '{"facts": [{"subject": "...", "predicate": "...", "object": "...", "polarity": "affirm", '
        '"qualifiers": {}, "confidence": 1.0, "quote": "..."}]}\n'
        "Rules:\n"
        "- predicate: exactly one of the names below; never invent a predicate.\n"
        "- subject: the entity as the passage names it; object: an entity name, a number, or a duration "
        "such as \"15 minutes\", copied from the passage.\n"
        "- quote: the exact words of the passage (the clause) that state the fact, copied character for character.\n"
        "- polarity: \"negate\" only when the quote denies the fact, else \"affirm\".\n"
        "- qualifiers: e.g. {\"version\": \"v2.0\"} when the passage ties the fact to a version.\n"
        "- confidence: how sure you are, between 0 and 1. No facts: {\"facts\": []}.\n"
        "Predicates:\n" + "\n".join(lines) + "\n"
        "Passage:\n\"\"\"\n" + chunk_text + "\n\"\"\"\n"
    )


@dataclass(frozen=True)
class LLMExtractor:
    """Facts from an LLM, gated.  ``vocabulary`` maps predicate IRIs to declarations (required: an
    LLM with an open vocabulary drifts)."""

    client: LLMClient
    vocabulary: Mapping[str, PredicateDecl]
    naming: Naming = Naming()
    model: str = "gpt-4o-mini"
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 2048
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    id: str = "llm"

    def __post_init__(self) -> None:
        if not self.vocabulary:
            raise InvalidValueError("the LLM extractor needs a predicate vocabulary")

    @property
    def version(self) -> str:
        return f"1/{self.model}/t{self.temperature:g}/s{self.seed}"

    def replica(self, run: int) -> "LLMExtractor":
        """The same configuration with seed ``seed + run`` (for extraction-consistency runs)."""
        return replace(self, seed=self.seed + run)

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for chunk in document.chunks:
            yield self._chunk(chunk.chunk_id, document.chunk_text(chunk), document.meta.version)

    def _chunk(self, chunk_id: str, text: str, version: str | None) -> Extraction:
        whole = (0, len(text))
        try:
            raw = self.client.complete(build_prompt(text, self.vocabulary, self.naming), model=self.model,
                                       temperature=self.temperature, seed=self.seed,
                                       response_format=ResponseFormat.JSON, max_tokens=self.max_tokens)
        except LLMError as e:
            return Extraction(chunk_id, 1, skipped=(Skip(SkipReason.EXTRACTOR_ERROR, *whole, e.message),))
        items, why = _parse(raw)
        if why is not None:
            return Extraction(chunk_id, 1, skipped=(Skip(SkipReason.SCHEMA, *whole, why),))
        facts: list[ExtractedFact] = []
        entities: list[ExtractedEntity] = []
        skipped: list[Skip] = []
        for i, item in enumerate(items):
            got = self._fact(i, item, text, version)
            if isinstance(got, Skip):
                skipped.append(got)
            else:
                facts.append(got[0])
                entities.extend(got[1])
        return Extraction(chunk_id, 1, tuple(facts), (), tuple(entities), tuple(skipped))

    def _fact(self, i: int, item: Any, text: str, version: str | None):
        whole = (0, len(text))
        where = f"facts[{i}]"
        if not isinstance(item, dict):
            return Skip(SkipReason.SCHEMA, *whole, f"{where} is not an object")
        extra = sorted(k for k in item if k not in _FIELDS)
        if extra:
            return Skip(SkipReason.SCHEMA, *whole, f"{where} has unknown fields {extra}")
        subj, pred, obj = item.get("subject"), item.get("predicate"), item.get("object")
        if not isinstance(subj, str) or not subj.strip() or not isinstance(pred, str) or not pred.strip():
            return Skip(SkipReason.SCHEMA, *whole, f"{where} needs string subject and predicate")
        if isinstance(obj, bool) or not isinstance(obj, (str, int, float)) or (isinstance(obj, str) and not obj.strip()):
            return Skip(SkipReason.SCHEMA, *whole, f"{where} needs an object (string or number)")
        polarity = item.get("polarity", "affirm")
        conf = item.get("confidence", 1.0)
        quals = item.get("qualifiers", {}) or {}
        if polarity not in ("affirm", "negate") or isinstance(conf, bool) or not isinstance(conf, (int, float)) \
                or not 0.0 <= conf <= 1.0 or not isinstance(quals, dict) \
                or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in quals.values()):
            return Skip(SkipReason.SCHEMA, *whole, f"{where}: bad polarity, confidence or qualifiers")
        span = _locate(item, text)
        if isinstance(span, str):
            return Skip(SkipReason.SPAN_OUTSIDE_CHUNK, *whole, f"{where}: {span}")
        start, end = span
        cited = text[start:end]
        try:
            p = self.naming.predicate(pred)
        except InvalidValueError as e:
            return Skip(SkipReason.UNKNOWN_PREDICATE, start, end, e.message)
        decl = self.vocabulary.get(p.value)
        if decl is None or decl.arity != 2:
            return Skip(SkipReason.UNKNOWN_PREDICATE, start, end,
                        f"predicate {pred[:60]!r} is not in the vocabulary")
        obj_text = obj if isinstance(obj, str) else repr(obj)
        q_texts = [str(v) for v in quals.values()]
        for gate in (subject_in_span(cited, subj, self.aliases.get(subj, ())),
                     numbers_verbatim(cited, [obj_text, *q_texts]),
                     polarity_consistent(cited, polarity)):
            if gate is not None:
                return Skip(gate[0], start, end, f"{where}: {gate[1]}")
        try:
            o = self._object(obj, decl)
            s = self.naming.entity(subj)
            qual = {k: Literal(str(v)) for k, v in quals.items()}
            if version and "version" not in qual:
                qual["version"] = Literal(version)
            fact = Fact(s, p, o, tuple(qual.items()), polarity)
        except InvalidValueError as e:
            return Skip(SkipReason.INVALID_VALUE, start, end, f"{where}: {e.message}")
        ents = [ExtractedEntity(s, (subj,))]
        if isinstance(o, IRI) and isinstance(obj, str):
            ents.append(ExtractedEntity(o, (obj,)))
        return ExtractedFact(fact, start, end, float(conf)), ents

    def _object(self, obj: str | int | float, decl: PredicateDecl) -> Term:
        want = decl.arg_types[1] if len(decl.arg_types) == 2 else None
        if isinstance(obj, (int, float)):
            lit = Literal.of(obj)
        else:
            lit = quantity(obj)
        if want == XSD_DURATION:
            if lit is None or lit.datatype != XSD_DURATION:
                raise InvalidValueError(f"{str(obj)[:40]!r} is not a duration (the vocabulary wants one)")
            return lit
        if want in _NUMERIC:
            if lit is None or lit.datatype not in (XSD_INTEGER, XSD_DECIMAL, XSD + "double"):
                raise InvalidValueError(f"{str(obj)[:40]!r} is not {_NUMERIC[want]}")
            return lit
        if want == XSD_BOOLEAN:
            raise InvalidValueError("boolean objects are not read from LLM output")
        if want == "iri":
            if not isinstance(obj, str):
                raise InvalidValueError(f"{obj!r} is not an entity name")
            return self.naming.entity(obj)
        if lit is not None:
            return lit
        return self.naming.entity(obj) if want in (None, "any") else Literal(obj)


def _parse(raw: str) -> tuple[list, str | None]:
    m = _FENCE.match(raw)
    body = m.group(1) if m else raw
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as e:
        return [], f"the response is not JSON ({str(e)[:80]}): {raw[:80]!r}"
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        return [], 'the response is not {"facts": [...]}'
    return data["facts"], None


def _locate(item: dict, text: str) -> tuple[int, int] | str:
    """The cited span: ``span`` offsets if given (checked against ``quote``), else the first
    occurrence of ``quote`` in the chunk."""
    quote = item.get("quote")
    span = item.get("span")
    if span is not None:
        if not (isinstance(span, dict) and isinstance(span.get("start"), int) and isinstance(span.get("end"), int)
                and 0 <= span["start"] < span["end"] <= len(text)):
            return "span is not {start, end} inside the chunk"
        if isinstance(quote, str) and text[span["start"]:span["end"]] != quote:
            return "span and quote disagree"
        return span["start"], span["end"]
    if not isinstance(quote, str) or not quote.strip():
        return "no quote (or span) cites the passage"
    at = text.find(quote)
    if at < 0:
        return f"the quote {quote[:60]!r} is not in the chunk"
    return at, at + len(quote)

