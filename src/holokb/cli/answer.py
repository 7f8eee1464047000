"""Text in, answers out: ``holokb ingest`` and ``holokb answer`` (DS005)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..core import HolokbError
from ..core.inputs import read_bytes
from .app import app
from .common import AS_OF, DB, DB_NEW, FORMAT, RULES, SHAPES, VALID, Usage, as_of_point, at_time, load_rules, open_kb, prefixes, short

if TYPE_CHECKING:
    from ..answer import Answer, ChainEntry
    from ..ingest import IngestionReport


@app.command()
def ingest(paths: list[Path] = typer.Argument(..., help="Text documents (.txt, .md) to read."),
           doc_id: Optional[str] = typer.Option(None, "--doc-id", help="Document id (one file only; default: file name)."),
           db: str = DB_NEW, at: Optional[str] = typer.Option(None, "--at", help="System time of the ingestion (default: now)."),
           version: Optional[str] = typer.Option(None, "--version", help="Policy version the document states (fact qualifier)."),
           valid_from: Optional[str] = typer.Option(None, "--valid-from", help="Default start of valid time of what it states."),
           extractor: str = typer.Option("english", "--extractor", help="english, context-units or llm."),
           llm_url: Optional[str] = typer.Option(None, "--llm-url", help="OpenAI-compatible base URL (key from $OPENAI_API_KEY)."),
           llm_model: str = typer.Option("gpt-4o-mini", "--llm-model"),
           llm_recordings: Optional[Path] = typer.Option(None, "--llm-recordings", help="Replay recorded LLM responses."),
           vocabulary: Optional[list[str]] = typer.Option(None, "--vocabulary", help="Rule files whose vocabulary the LLM must use."),
           consistency_runs: int = typer.Option(1, "--consistency-runs", help="LLM: extraction runs compared (Jaccard)."),
           max_bytes: int = typer.Option(16 * 1024 * 1024, "--max-bytes"),
           max_chunks: int = typer.Option(100_000, "--max-chunks"),
           max_facts_per_chunk: int = typer.Option(10_000, "--max-facts-per-chunk"),
           timeout: float = typer.Option(300.0, "--timeout", help="Seconds; stops at a chunk boundary."),
           chunks_per_batch: Optional[int] = typer.Option(None, "--chunks-per-batch", help="Commit every N chunks (default: one batch per document)."),
           shapes: Optional[list[str]] = SHAPES, format: str = FORMAT) -> None:
    """Read text documents into facts and rules with evidence, one all-or-nothing batch per document.

    \b
    Example: holokb ingest kb/docs/security-handbook.txt --doc-id spec --at 2026-01-01
    Example: holokb ingest kb/docs/tools.txt --extractor llm --llm-recordings recorded.json --vocabulary rules/
    """
    from ..core import Interval, parse_instant
    from ..ingest.pipeline import IngestBudget

    datas = [(p, read_bytes(p, what="document")) for p in paths]  # file problems first, before any usage check
    recorded = read_bytes(llm_recordings, what="LLM recordings file") if llm_recordings is not None else None
    if doc_id is not None and len(paths) != 1:
        raise Usage("--doc-id names one document: give exactly one file")
    if consistency_runs < 1:
        raise Usage("--consistency-runs must be at least 1")
    when = at_time(at)
    try:
        valid = Interval(parse_instant(valid_from), None) if valid_from else Interval.always()
    except HolokbError as e:
        raise Usage(f"--valid-from: {e.message}") from None
    budget = IngestBudget(max_bytes, max_chunks, max_facts_per_chunk, timeout, chunks_per_batch)
    ext = _extractor(extractor, llm_url, llm_model, (llm_recordings, recorded), vocabulary)
    replicas = tuple(ext.replica(i) for i in range(1, consistency_runs)) if consistency_runs > 1 and hasattr(ext, "replica") else ()
    reports = []
    with open_kb(db, shapes, create=True) as kb:
        for p, data in datas:
            reports.append(kb.ingest(data, doc_id=doc_id or p.name, at=when, extractor=ext, version=version,
                                     valid=valid, source=str(p), budget=budget, replicas=replicas))
    if format == "json":
        out = [r.to_json() for r in reports]
        typer.echo(json.dumps(out[0] if len(out) == 1 else out, ensure_ascii=False, indent=2))
        return
    for r in reports:
        for line in _report_lines(r):
            typer.echo(line)


def _extractor(name: str, url, model, recordings: tuple, vocabulary):
    from ..ingest.extractors import extractor_named

    if name != "llm":
        if url is not None or recordings[0] is not None:
            raise Usage("--llm-url and --llm-recordings go with --extractor llm")
        return extractor_named(name)
    from ..ingest.llm import OpenAICompatibleClient, RecordedClient

    path, data = recordings
    if (url is None) == (path is None):
        raise Usage("the llm extractor needs exactly one of --llm-url and --llm-recordings")
    client = RecordedClient.parse(data, str(path)) if path is not None else OpenAICompatibleClient(url)
    program = load_rules(vocabulary)
    vocab = {p: d for p, d in program.vocabulary.items()}
    if not vocab:
        raise Usage("the llm extractor needs a predicate vocabulary: --vocabulary rules/ (vocabulary: declarations)")
    return extractor_named("llm", client=client, vocabulary=vocab, model=model)


def _report_lines(r: "IngestionReport") -> list[str]:
    lines = [f"ingested {r.doc_id}: {r.chunks_ingested}/{r.chunks} chunks, {r.sentences} sentences → {r.facts} facts, "
             f"{r.rules} rules, {r.entities} entities, {r.evidence} evidence ({r.extractor} {r.extractor_version}, "
             f"{r.batches} batch{'es' if r.batches != 1 else ''})"]
    if r.truncated:
        lines.append(f"  truncated: {', '.join(x.value for x in r.limits_hit)}")
    for s in r.skipped:
        text = s.text if len(s.text) <= 80 else s.text[:77] + "…"
        lines.append(f"  skipped [{s.reason.value}] {s.chunk_id}[{s.start}:{s.end}] {json.dumps(text, ensure_ascii=False)}"
                     + (f" — {s.detail}" if s.detail else ""))
    if r.consistency is not None:
        c = r.consistency
        lines.append(f"  extraction consistency: mean Jaccard {c.mean_jaccard:.3f} over {c.runs} runs"
                     + ("" if c.reliable else f" — below {c.threshold}: this configuration is unreliable"))
    return lines


@app.command()
def answer(question: Optional[str] = typer.Argument(None, help="The question (controlled English)."),
           plan: Optional[Path] = typer.Option(None, "--plan", help="A QueryPlan JSON file instead of a question."),
           db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID, rules: Optional[list[str]] = RULES,
           limit_facts: int = typer.Option(10_000, "--limit-facts"), limit_chunks: int = typer.Option(20, "--limit-chunks"),
           timeout: float = typer.Option(10.0, "--timeout", help="Seconds for derivation."),
           solver: str = typer.Option("z3", "--solver", help="z3 or cvc5 (conflict confirmation)."),
           format: str = FORMAT,
           intuition: Optional[str] = typer.Option(None, "--intuition", help="none, hrr or hdc: reason over a candidate set the vector index proposes."),
           retrieval: Optional[str] = typer.Option(None, "--retrieval", help="structured (default), or fused: the lanes of `holokb search` order the facts a capped request keeps."),
           profile: Optional[str] = typer.Option(None, "--profile", help="Retrieval profile for fused retrieval (implies --retrieval fused; default: default)."),
           profiles: Optional[Path] = typer.Option(None, "--profiles", help="A JSON profile file for fused retrieval (implies --retrieval fused).")) -> None:
    """Answer with a verdict (supported, conflicting, unsupported) and the evidence chain.

    \b
    Example: holokb answer "If a user is inactive for 20 minutes in v2.0, is their session valid?" --format json
    Example: holokb answer --plan plan.json --as-of 2026-01-02
    """
    from ..answer import QueryPlan
    from ..answer.answering import AnswerOptions

    data = read_bytes(plan, what="plan file") if plan is not None else None  # file problems first
    if (question is None) == (plan is None):
        raise Usage("give a question or --plan plan.json (one of them)")
    if format not in ("text", "json"):
        raise Usage("--format is text or json")
    if limit_facts < 1 or limit_chunks < 1 or timeout <= 0:
        raise Usage("--limit-facts, --limit-chunks and --timeout must be positive")
    subject: str | QueryPlan
    if plan is not None:
        subject = QueryPlan.from_json(data, source=str(plan))  # type: ignore[arg-type]
    else:
        subject = question  # type: ignore[assignment]
    point = as_of_point(as_of, valid)
    program = load_rules(rules)
    options = AnswerOptions(limit_facts, limit_chunks, timeout_s=timeout, backend=solver)
    if intuition is not None:
        from .intuition import answer_with_intuition, fused_profile

        fused_profile(retrieval, profile, profiles, intuition)  # rejects --retrieval fused with --intuition

        answer_with_intuition(subject, db=db, point=point, program=program, options=options, strategy=intuition,
                              solver=solver, timeout=timeout, format=format)
        return
    from .intuition import fused_profile

    fused = fused_profile(retrieval, profile, profiles, intuition)
    with open_kb(db, []) as kb:
        from ..fused_retrieval import FusedRetriever

        retriever = FusedRetriever(kb.ledger, fused) if fused is not None else None
        a = kb.answer(subject, as_of=point, rules=program, prefixes=prefixes(), options=options, retriever=retriever)
    if format == "json":
        typer.echo(a.to_json_text(), nl=False)
        return
    for line in answer_lines(a):
        typer.echo(line)


def answer_lines(a: "Answer") -> list[str]:
    """The answer for people: verdict, text, the chain with each premise's quoted source."""
    head = {"supported": f"{a.text}", "conflicting": "(no answer: the KB disagrees with itself)",
            "unsupported": "(no answer)"}[a.verdict.value]
    lines = [f"{head}    [{a.verdict.value}]"]
    if a.plan is not None and a.plan.question:
        lines.append(f"  question: {a.plan.question}")
    if a.missing is not None:
        lines.append(f"  missing ({a.missing.kind.value}): {a.missing.message}")
    if a.fact_chain:
        lines.append("  because:")
        for e in a.fact_chain:
            lines.extend(_entry_lines(e, "    "))
    for c in a.conflicts:
        lines.append(f"  conflict ({c.reason.value}): {c.message}")
        for e in (c.fact1, c.fact2):
            lines.extend(_entry_lines(e, "    "))
        if c.solver is not None:
            lines.append(f"    confirmed by {c.solver.backend}: unsat core of {len(c.solver.core)} facts")
    if a.chunks_used:
        lines.append(f"  chunks used: {', '.join(a.chunks_used)}")
    if a.truncated:
        lines.append(f"  truncated: {a.limit_hit.value if a.limit_hit else 'a budget was hit'}")
    return lines


def _entry_lines(e: "ChainEntry", pad: str) -> list[str]:
    f = e.fact
    if e.role.value == "conclusion":
        return [f"{pad}conclusion answer {short(f.object) if f.object is not None else ''}"
                + (f"  score {e.score:.3f}" if e.score is not None else "")]
    neg = "not " if f.polarity == "negate" else ""
    obj = "" if f.object is None else f", {short(f.object)}"
    quals = "".join(f" [{k}={short(v)}]" for k, v in f.qualifiers)
    score = f"  score {e.score:.3f}" if e.score is not None else ""
    how = f"  by {e.rule}" if e.rule else ""
    out = [f"{pad}{e.role.value:<10} {neg}{short(f.predicate)}({short(f.subject)}{obj}){quals}{how}{score}"]
    for s in e.evidence + e.rule_evidence:
        where = s.document + (f"#{s.chunk}" if s.chunk else "") + (
            f"[{s.char_start}:{s.char_end}]" if s.char_start is not None else "")
        quote = f" {json.dumps(s.text, ensure_ascii=False)}" if s.text else ""
        out.append(f"{pad}           from {where}{quote} ({s.extractor} {s.extractor_version}, confidence {s.confidence:g})")
    return out
