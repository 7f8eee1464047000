"""The staged ingestion pipeline (ledger plan §8.4): plan → chunk → extract → validate → commit.

Deterministic and budgeted.  One document is one all-or-nothing ledger batch (or one batch per
``chunks_per_batch`` chunks when that budget is set: then each batch is all-or-nothing and the
report counts them).  Facts are committed in document order, each with evidence pointing at the
chunk and the character span it was read from; rules read from text are stored as facts
``hk:rule/<id> hk:ruleIR "<JSON>"`` with the same evidence, so they carry valid/system time and
can be retracted like any fact.  The SHACL gate sees each batch before it is written; a rejected
batch leaves the ledger exactly as it was.

Budgets (``IngestBudget``): ``max_bytes`` (UTF-8 bytes of text read), ``max_chunks``,
``max_facts_per_chunk``, ``timeout_s``.  Hitting ``max_bytes``/``max_chunks``/``timeout_s`` stops
at a chunk boundary; ``max_facts_per_chunk`` drops the chunk's surplus facts (each reported as a
``factBudget`` skip).  Either way the report says ``truncated`` and which limits were hit.

Input errors (coded): HK820 not UTF-8, HK821 binary data, HK822 empty document, HK823 bad document
id, HK824 the document id is stored with a different text, HK825 bad budget, HK826 an extractor
broke its protocol, HK827 an extractor failed, HK828 the ledger refused a batch.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from ..core.errors import (
    Diagnostic, DiagnosticError, HolokbError, InvalidValueError, LedgerError, Location, RuleAnalysisError,
)
from ..core.fact import Evidence, Fact, SpanRecord
from ..core.inputs import position
from ..core.terms import HK, IRI, Literal
from ..ledger import Ledger
from .chunking import Chunk, chunk_paragraphs
from .consistency import extraction_consistency
from .extract import (
    DocumentInput, DocumentMeta, ExtractedFact, ExtractedRule, Extraction, Extractor, SkipReason,
)
from .report import IngestionReport, IngestLimit, Phase, SkipEntry
from .rule_json import rule_to_json

#: ``hk:rule/<id> hk:ruleIR "<canonical JSON of the rule IR>"`` (see :mod:`holokb.ingest.rule_json`).
RULE_IR = IRI(HK + "ruleIR")
RULE_PREFIX = HK + "rule/"
_SKIP_TEXT = 200
_DOC_ID = re.compile(r"^[^\x00-\x1f\x7f]{1,200}$")


class IngestError(DiagnosticError):
    """A document could not be ingested (nothing was written)."""

    def __str__(self) -> str:
        return self.render()


def _error(code: str, message: str, hint: str | None = None, source: str | None = None) -> IngestError:
    loc = Location(source, 1, 1) if source else None
    return IngestError(message, (Diagnostic(code, message, loc, hint=hint),))


@dataclass(frozen=True, slots=True)
class IngestBudget:
    """Ingestion budgets; ``None`` means unbounded.  Defaults bound every run."""

    max_bytes: int | None = 16 * 1024 * 1024
    max_chunks: int | None = 100_000
    max_facts_per_chunk: int | None = 10_000
    timeout_s: float | None = 300.0
    chunks_per_batch: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_chunks", "max_facts_per_chunk", "chunks_per_batch"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise _error("HK825", f"budget {name} must be a positive integer, got {v!r}")
        t = self.timeout_s
        if t is not None and (not isinstance(t, (int, float)) or t != t or t <= 0):
            raise _error("HK825", f"budget timeout_s must be a positive number of seconds, got {t!r}")


#: What the pipeline calls before writing a batch (the SHACL gate); raises to reject it.
Gate = Callable[[Sequence[SpanRecord]], None]


def decode_text(source: str | bytes, *, name: str | None = None) -> str:
    """UTF-8 text from bytes (strict), refusing binary data (NUL bytes)."""
    if isinstance(source, bytes):
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError as e:
            line, col = position(source, e.start)
            raise _error("HK820", f"not UTF-8 text: invalid byte 0x{source[e.start]:02x} at line {line}, column {col}",
                         hint="convert the file to UTF-8 (e.g. iconv -t UTF-8)", source=name) from None
    elif isinstance(source, str):
        text = source
    else:
        raise _error("HK820", f"a document is text or bytes, not {type(source).__name__}", source=name)
    if "\x00" in text:
        raise _error("HK821", f"binary data: a NUL character at offset {text.index(chr(0))}",
                     hint="ingest text documents (.txt, .md); load RDF with holokb load", source=name)
    if text.startswith("\ufeff"):
        # A byte-order mark is not content: drop it so offsets match what editors show.
        text = text[1:]
    return text


def rule_iri(doc_id: str, rule_name: str) -> IRI:
    """The node a document rule is stored under (stable for the same document and rule name)."""
    return IRI(RULE_PREFIX + hashlib.sha256(f"{doc_id}\x00{rule_name}".encode()).hexdigest()[:32])


def stored_rule_name(doc_id: str, rule_name: str) -> str:
    """Rule names are unique per document; the stored name is qualified so documents cannot clash."""
    return "doc" + hashlib.sha256(doc_id.encode()).hexdigest()[:8] + "_" + re.sub(r"\W", "_", rule_name)


@dataclass
class _Acc:
    """What the validate phase accumulates for the commit phase."""

    records: list[SpanRecord] = field(default_factory=list)
    entities: dict[IRI, list[str]] = field(default_factory=dict)
    skipped: list[SkipEntry] = field(default_factory=list)
    limits: set[IngestLimit] = field(default_factory=set)
    sentences: int = 0
    facts: int = 0
    rules: int = 0
    chunks_done: int = 0


def ingest_document(ledger: Ledger, source: str | bytes, *, doc_id: str, extractor: Extractor, at: int,
                    meta: DocumentMeta = DocumentMeta(), budget: IngestBudget = IngestBudget(),
                    gate: Gate | None = None, replicas: Sequence[Extractor] = ()) -> IngestionReport:
    """Read one document with ``extractor`` and commit what it yields; return the report.

    ``replicas``: more runs of the same extractor configuration (e.g. ``LLMExtractor.replica(i)``);
    when given, the report carries the extraction consistency over ``(extractor, *replicas)``.
    """
    t0 = time.perf_counter()
    durations: dict[Phase, float] = {}
    deadline = None if budget.timeout_s is None else time.monotonic() + budget.timeout_s

    # -- plan ---------------------------------------------------------------------------------------
    if not isinstance(doc_id, str) or not _DOC_ID.match(doc_id):
        raise _error("HK823", f"bad document id {str(doc_id)[:40]!r}: 1-200 characters, no control characters")
    if not isinstance(at, int) or isinstance(at, bool):
        raise _error("HK825", f"ingestion time must be unix ms, got {at!r}")
    text = decode_text(source, name=meta.source)
    limits: set[IngestLimit] = set()
    read = text
    if budget.max_bytes is not None and len(text) > budget.max_bytes // 4:
        raw = text.encode("utf-8")
        if len(raw) > budget.max_bytes:
            read = raw[:budget.max_bytes].decode("utf-8", errors="ignore")
            limits.add(IngestLimit.MAX_BYTES)
    if not read.strip():
        raise _error("HK822", "the document is empty (no text to read)", source=meta.source)
    t1 = time.perf_counter()
    durations[Phase.PLAN] = t1 - t0

    # -- chunk --------------------------------------------------------------------------------------
    chunks = list(chunk_paragraphs(read))
    if IngestLimit.MAX_BYTES in limits and chunks and not _ends_paragraph(text, chunks[-1].end):
        chunks.pop()  # cut mid-paragraph by the byte budget: drop the partial chunk
    total_chunks = len(chunks)
    if budget.max_chunks is not None and len(chunks) > budget.max_chunks:
        chunks = chunks[:budget.max_chunks]
        limits.add(IngestLimit.MAX_CHUNKS)
    stored_text = read if not limits else read[:chunks[-1].end] if chunks else ""
    doc = DocumentInput(doc_id, stored_text, tuple(chunks), meta)
    t2 = time.perf_counter()
    durations[Phase.CHUNK] = t2 - t1

    # -- extract + validate (streamed, one chunk at a time) -----------------------------------------
    acc = _Acc(limits=limits)
    known = _known_predicates(ledger, extractor)
    extract_s = validate_s = 0.0
    stream = _extractions(extractor, doc)
    for chunk in chunks:
        if deadline is not None and time.monotonic() >= deadline:
            acc.limits.add(IngestLimit.DEADLINE)
            break
        a = time.perf_counter()
        ex = next(stream, None)
        b = time.perf_counter()
        if ex is None or ex.chunk_id != chunk.chunk_id:
            got = "no more extractions" if ex is None else f"chunk {ex.chunk_id!r}"
            raise _error("HK826", f"extractor {extractor.id} broke its protocol: expected chunk "
                                  f"{chunk.chunk_id!r}, got {got}")
        _validate(ex, chunk, doc, extractor, at, budget, known, acc)
        acc.chunks_done += 1
        extract_s += b - a
        validate_s += time.perf_counter() - b
    stream.close()
    ingested = chunks[:acc.chunks_done]
    consistency = None
    if replicas:
        a = time.perf_counter()
        consistency = extraction_consistency((extractor, *replicas), DocumentInput(doc_id, doc.text, tuple(ingested), meta))
        extract_s += time.perf_counter() - a
    durations[Phase.EXTRACT] = extract_s
    durations[Phase.VALIDATE] = validate_s

    # -- commit ---------------------------------------------------------------------------------------
    t3 = time.perf_counter()
    batches = _commit(ledger, doc, ingested, acc, extractor, at, budget, gate)
    durations[Phase.COMMIT] = time.perf_counter() - t3

    return IngestionReport(
        doc_id=doc_id, at=at, extractor=extractor.id, extractor_version=extractor.version,
        chunks=total_chunks, chunks_ingested=len(ingested), sentences=acc.sentences, facts=acc.facts,
        rules=acc.rules, entities=len(acc.entities), evidence=len(acc.records),
        skipped=tuple(acc.skipped), truncated=bool(acc.limits),
        limits_hit=tuple(sorted(acc.limits, key=lambda x: x.value)), batches=batches,
        durations=tuple((p, durations.get(p, 0.0)) for p in Phase), consistency=consistency)


_PARAGRAPH_END = re.compile(r"[ \t\r]*(?:\n[ \t\r]*\n|\s*\Z)")


def _ends_paragraph(text: str, end: int) -> bool:
    """Whether a chunk ending at ``end`` ends a paragraph of the full text (not cut by a budget)."""
    return _PARAGRAPH_END.match(text, end) is not None


def _extractions(extractor: Extractor, doc: DocumentInput) -> Iterator[Extraction]:
    """The extractor's stream with its failures turned into coded errors (no traceback for users)."""
    try:
        yield from extractor.extract(doc)
    except HolokbError:
        raise
    except GeneratorExit:
        raise
    except Exception as e:  # an extractor bug must still reach the user as a diagnostic
        raise _error("HK827", f"extractor {extractor.id} {extractor.version} failed on document {doc.doc_id!r}: "
                              f"{type(e).__name__}: {e}") from e


def _known_predicates(ledger: Ledger, extractor: Extractor) -> dict[str, int]:
    known = {p: d.arity for p, d in extractor.vocabulary.items()}
    for info in ledger.predicates():
        known.setdefault(info.iri.value, info.arity)
    return known


def _skip(acc: _Acc, doc: DocumentInput, chunk: Chunk, reason: SkipReason, start: int, end: int, detail: str) -> None:
    s, e = chunk.start + start, chunk.start + end
    acc.skipped.append(SkipEntry(reason, chunk.chunk_id, s, e, doc.text[s:min(e, s + _SKIP_TEXT)], detail[:500]))


def _validate(ex: Extraction, chunk: Chunk, doc: DocumentInput, extractor: Extractor, at: int,
              budget: IngestBudget, known: dict[str, int], acc: _Acc) -> None:
    n = chunk.end - chunk.start
    acc.sentences += ex.sentences
    for s in ex.skipped:
        _skip(acc, doc, chunk, s.reason, min(s.start, n), min(s.end, n), s.detail)
    vocab = extractor.vocabulary
    kept = 0
    for f in ex.facts:
        if f.end > n:
            _skip(acc, doc, chunk, SkipReason.SPAN_OUTSIDE_CHUNK, min(f.start, n), n,
                  f"span [{f.start}, {f.end}) is outside the chunk (length {n})")
            continue
        if vocab and f.fact.predicate.value not in vocab:
            _skip(acc, doc, chunk, SkipReason.UNKNOWN_PREDICATE, f.start, f.end,
                  f"predicate <{f.fact.predicate.value}> is not in the vocabulary of {extractor.id}")
            continue
        if budget.max_facts_per_chunk is not None and kept >= budget.max_facts_per_chunk:
            acc.limits.add(IngestLimit.MAX_FACTS_PER_CHUNK)
            _skip(acc, doc, chunk, SkipReason.FACT_BUDGET, f.start, f.end,
                  f"more than {budget.max_facts_per_chunk} facts in chunk {chunk.chunk_id}")
            continue
        kept += 1
        acc.facts += 1
        acc.records.append(_record(f.fact, f, doc, chunk, extractor, at))
    for r in ex.rules:
        if r.end > n:
            _skip(acc, doc, chunk, SkipReason.SPAN_OUTSIDE_CHUNK, min(r.start, n), n,
                  f"span [{r.start}, {r.end}) is outside the chunk (length {n})")
            continue
        text, why = _checked_rule(r, doc.doc_id, known)
        if text is None:
            _skip(acc, doc, chunk, SkipReason.RULE_REJECTED, r.start, r.end, why)
            continue
        acc.rules += 1
        fact = Fact(rule_iri(doc.doc_id, r.rule.name), RULE_IR, Literal(text))
        acc.records.append(_record(fact, r, doc, chunk, extractor, at))
    for e in ex.entities:
        acc.entities.setdefault(e.iri, [])
        for a in e.aliases:
            if a.strip() and a not in acc.entities[e.iri]:
                acc.entities[e.iri].append(a)


def _record(fact: Fact, item: ExtractedFact | ExtractedRule, doc: DocumentInput, chunk: Chunk,
            extractor: Extractor, at: int) -> SpanRecord:
    ev = Evidence(doc.doc_id, chunk.chunk_id, item.start, item.end, extractor.id, extractor.version,
                  item.confidence, at)
    return SpanRecord(fact, item.valid if item.valid is not None else doc.meta.valid, evidence=(ev,))


def _checked_rule(r: ExtractedRule, doc_id: str, known: dict[str, int]) -> tuple[str | None, str]:
    """The rule as stored (document-qualified name, IR as JSON), or None and why analysis refused it."""
    from ..analysis import analyze
    from ..analysis.program import Rule
    from ..syntax import Module

    rule = r.rule
    named = Rule(stored_rule_name(doc_id, rule.name), rule.head, rule.body, rule.weight, rule.depth, rule.origin)
    try:
        analyze(Module(file=f"<rule from {doc_id}>", rules=(named,)), known_predicates=known)
        return rule_to_json(named), ""
    except RuleAnalysisError as e:
        return None, "; ".join(d.message for d in e.diagnostics)[:500]
    except (HolokbError, InvalidValueError) as e:
        return None, str(e)[:500]


def _commit(ledger: Ledger, doc: DocumentInput, chunks: list[Chunk], acc: _Acc, extractor: Extractor, at: int,
            budget: IngestBudget, gate: Gate | None) -> int:
    """Write the document, its vocabulary, entities and records; returns the number of batches."""
    for c in doc.chunks:
        old = ledger.chunk_text(doc.doc_id, c.chunk_id)
        if old is not None and old != doc.chunk_text(c):
            raise _error("HK824", f"document {doc.doc_id!r} is already stored with a different text "
                                  f"(chunk {c.chunk_id} differs)",
                         hint="ingest it under another --doc-id, or retract the old one first")
    per = budget.chunks_per_batch
    groups: list[list[SpanRecord]]
    if per is None:
        groups = [acc.records]
    else:
        index = {c.chunk_id: i // per for i, c in enumerate(chunks)}
        groups = [[] for _ in range((len(chunks) + per - 1) // per or 1)]
        for r in acc.records:
            groups[index[r.evidence[0].chunk]].append(r)
    declared = {p.iri.value for p in ledger.predicates()}
    for i, records in enumerate(groups):
        if gate is not None:
            gate(records)
        try:
            with ledger.batch(at) as b:
                if i == 0:
                    b.add_document(doc.doc_id, doc.text, chunks=[(c.chunk_id, c.start, c.end) for c in doc.chunks])
                    for p, d in sorted(extractor.vocabulary.items()):
                        if p not in declared:
                            b.declare_predicate(IRI(p), arity=d.arity, functional=d.functional)
                    for iri, aliases in sorted(acc.entities.items(), key=lambda kv: kv[0].value):
                        b.add_entity(iri, aliases=aliases)
                b.bulk(records)
        except (LedgerError, InvalidValueError) as e:
            done = f" ({i} earlier batch{'es' if i != 1 else ''} of this document were committed)" if i else ""
            raise _error("HK828", f"the ledger refused batch {i + 1} of document {doc.doc_id!r}: {e}{done}") from None
    return len(groups)
