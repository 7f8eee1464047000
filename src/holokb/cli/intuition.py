"""Intuition and retrieval commands: similar (the vector index) and search (fused lanes)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from .app import app
from .common import AS_OF, DB, FORMAT, VALID, Usage, as_of_point, open_kb, parse_iri, short

if TYPE_CHECKING:
    from ..retrieval import RetrievalProfile

REPRESENTATION = typer.Option("hdc", "--representation", "-r", help="Vector representation: hdc or hrr.")
DIM = typer.Option(None, "--dim", help="Vector dimension (a multiple of 64; default 10048 for hdc, 1024 for hrr).")
SEED = typer.Option(0, "--seed", help="Codebook seed (same seed, same vectors on any machine).")


def _config(representation: str, dim: Optional[int], seed: int):
    from ..core import HolokbError
    from ..vsa import VSAConfig

    try:
        return VSAConfig.default(representation, dim=dim, seed=seed)
    except HolokbError as e:
        raise Usage(e.message) from None


@app.command()
def similar(entity: str = typer.Argument(..., help="An entity IRI or prefixed name (ex:AchillesIDE)."),
            k: int = typer.Option(10, "--k", help="How many to list."),
            facts: bool = typer.Option(False, "--facts", help="List facts close to the entity's facts instead."),
            db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
            representation: str = REPRESENTATION, dim: Optional[int] = DIM, seed: int = SEED,
            format: str = FORMAT) -> None:
    """Entities (or facts) whose structure is closest to ENTITY's, by the vector index, with scores.

    Example: holokb similar ex:AchillesIDE --k 10
    """
    if k < 1:
        raise Usage("--k must be at least 1")
    point = as_of_point(as_of, valid)
    iri = parse_iri(entity)
    cfg = _config(representation, dim, seed)
    with open_kb(db, []) as kb:
        r = kb.similar(iri, as_of=point, k=k, facts=facts, config=cfg)
    if format == "json":
        out = {"entity": iri.value, "representation": cfg.representation.value, "dim": cfg.dim, "seed": cfg.seed,
               "index": {"source": r.index.source.value, "facts": r.index.facts, "encoded": r.index.encoded}}
        if facts:
            out["facts"] = [{"factId": f.fact_id, "subject": _term(f.fact.subject), "predicate": f.fact.predicate.value,
                             "object": _term(f.fact.object), "polarity": f.fact.polarity, "score": f.score}
                            for f in r.facts]
        else:
            out["entities"] = [{"entity": e.entity.value, "score": e.score} for e in r.entities]
        typer.echo(json.dumps(out, sort_keys=True))
        return
    what = "facts" if facts else "entities"
    typer.echo(f"{what} closest to {short(iri)} ({cfg.representation.value}, {cfg.dim}-d; index {r.index.source.value}, "
               f"{r.index.facts} facts)")
    if facts:
        for f in r.facts:
            neg = "not " if f.fact.polarity == "negate" else ""
            typer.echo(f"  {f.score:.4f}  {neg}{short(f.fact.subject)} {short(f.fact.predicate)} {short(f.fact.object)}")
    else:
        for e in r.entities:
            typer.echo(f"  {e.score:.4f}  {short(e.entity)}")


@app.command()
def search(query: str = typer.Argument(..., help="Words to search for."),
           k: Optional[int] = typer.Option(None, "--k", help="At most this many hits (default: the profile's maxResults)."),
           profile: str = typer.Option("default", "--profile", help="Retrieval profile: default, thinkingdb, or one in --profiles."),
           profiles: Optional[Path] = typer.Option(None, "--profiles", help="A JSON profile file (lanes, weights, cut-offs)."),
           db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID, format: str = FORMAT) -> None:
    """Chunks and facts for a query, fused from the BM25, structured and vector lanes; each hit says
    which lanes found it and at what rank.

    Example: holokb search "sandboxing tools" --k 8 --as-of 2026-01-01
    """
    if k is not None and k < 1:
        raise Usage("--k must be at least 1")
    point = as_of_point(as_of, valid)
    with open_kb(db, []) as kb:
        r = kb.search(query, as_of=point, profile=profile, profile_file=profiles, max_results=k)
        quotes = {h.chunk: kb.ledger.chunk_text(h.chunk.document, h.chunk.chunk) for h in r.hits if h.chunk}
    if format == "json":
        typer.echo(json.dumps({"query": r.query, "profile": r.profile, "cut": r.cut.value if r.cut else None,
                               "lanesWithSignal": [l.lane.value for l in r.lanes if l.has_signal],
                               "hits": [_hit_json(h, quotes) for h in r.hits]}, sort_keys=True, ensure_ascii=False))
        return
    signal = ", ".join(l.lane.value for l in r.lanes if l.has_signal) or "none"
    typer.echo(f"{len(r.hits)} hit(s) for {json.dumps(r.query, ensure_ascii=False)} (profile {r.profile}; "
               f"lanes with a signal: {signal})")
    for i, h in enumerate(r.hits, 1):
        found = ", ".join(f"{l.lane.value} #{l.rank}" for l in h.lanes)
        if h.chunk is not None:
            text = (quotes.get(h.chunk) or "").replace("\n", " ")
            typer.echo(f"{i:>3}. {h.score:.4f}  chunk {h.chunk.document}#{h.chunk.chunk}  [{found}]")
            if text:
                typer.echo(f"       {json.dumps(text[:160], ensure_ascii=False)}")
        elif h.fact is not None:
            f = h.fact.fact
            neg = "not " if f.polarity == "negate" else ""
            typer.echo(f"{i:>3}. {h.score:.4f}  fact  {neg}{short(f.subject)} {short(f.predicate)} {short(f.object)}  [{found}]")
    if r.cut is not None:
        typer.echo(f"(cut by {r.cut.value})")


def _hit_json(h, quotes) -> dict:
    out = {"kind": h.kind.value, "score": h.score,
           "lanes": [{"lane": l.lane.value, "rank": l.rank, "score": l.score} for l in h.lanes]}
    if h.chunk is not None:
        out.update({"document": h.chunk.document, "chunk": h.chunk.chunk, "text": quotes.get(h.chunk)})
    if h.fact is not None:
        f = h.fact.fact
        out.update({"factId": h.fact.fact_id, "subject": _term(f.subject), "predicate": f.predicate.value,
                    "object": _term(f.object), "polarity": f.polarity,
                    "evidence": [{"document": e.where.document, "chunk": e.where.chunk, "confidence": e.confidence}
                                 for e in h.fact.evidence]})
    return out


def _term(t) -> dict:
    from ..core import IRI

    if isinstance(t, IRI):
        return {"type": "uri", "value": t.value}
    d = {"type": "literal", "value": t.lexical, "datatype": t.datatype}
    if t.lang:
        d["lang"] = t.lang
    return d


def prove_with_intuition(prog, goal: str, *, db: str, shapes, point, strategy: str, solver: str, timeout: float,
                         max_rounds: int, format: str) -> None:
    """``holokb prove --intuition``: the intuition-to-reasoning loop, printed with its rounds."""
    from ..core import HolokbError
    from ..intuition import LoopSettings, Strategy

    try:
        settings = LoopSettings(Strategy.parse(strategy), solver, max_rounds=max(1, max_rounds), timeout_s=timeout)
    except HolokbError as e:
        raise Usage(e.message) from None
    with open_kb(db, shapes) as kb:
        r = kb.prove_with_intuition(prog, goal, as_of=point, settings=settings)
    if format == "json":
        typer.echo(json.dumps({
            "status": r.status, "strategy": r.strategy.value, "solver": r.solver, "stop": r.stop.value,
            "rounds": [{"round": x.round, "candidates": x.candidates, "status": x.status,
                        "closureHolds": x.closure_holds} for x in r.rounds],
            "candidates": r.candidates, "kbFacts": r.kb_facts, "pathScore": r.score,
            "facts": [{"factId": f.key, "predicate": f.predicate, "args": [str(a) for a in f.args],
                       "polarity": f.polarity, "evidence": list(f.evidence)} for f in r.solver_result.facts]},
            sort_keys=True))
        return
    typer.echo(f"{r.status}: {goal}  ({r.strategy.value} + {r.solver}: {len(r.rounds)} round(s), candidate set "
               f"{r.candidates} of {r.kb_facts} facts, stopped: {r.stop.value})")
    for x in r.rounds:
        typer.echo(f"  round {x.round}: {x.candidates} candidates -> {x.status}"
                   + ("; local closure derives it" if x.closure_holds else ""))
    if r.score is not None:
        typer.echo(f"  path score {r.score:.4f}")
    for f in r.solver_result.facts:
        neg = "not " if f.polarity == "negate" else ""
        from ..core import IRI
        typer.echo(f"  {neg}{short(IRI(f.predicate))}({', '.join(short(a) for a in f.args)})  valid {f.valid}")
        for e in f.evidence:
            typer.echo(f"      from {e}")


def answer_with_intuition(subject, *, db: str, point, program, options, strategy: str, solver: str, timeout: float,
                          format: str) -> None:
    """``holokb answer --intuition``: the answer, and how many rounds and candidates intuition took."""
    from ..core import HolokbError
    from ..intuition import LoopSettings, Strategy
    from .answer import answer_lines
    from .common import prefixes

    try:
        settings = LoopSettings(Strategy.parse(strategy), solver, timeout_s=timeout)
    except HolokbError as e:
        raise Usage(e.message) from None
    with open_kb(db, []) as kb:
        r = kb.answer_with_intuition(subject, as_of=point, settings=settings, rules=program, options=options,
                                     prefixes=prefixes())
    if format == "json":
        out = json.loads(r.answer.to_json_text())
        out["intuition"] = r.to_json()
        typer.echo(json.dumps(out, sort_keys=True, ensure_ascii=False))
        return
    for line in answer_lines(r.answer):
        typer.echo(line)
    typer.echo(f"  intuition: {r.strategy.value}, {len(r.rounds)} round(s), candidate set {r.candidates} of "
               f"{r.kb_facts} facts (stopped: {r.stop.value})")


def fused_profile(retrieval: str | None, profile: str | None, profiles: Path | None,
                  intuition: str | None) -> "RetrievalProfile | None":
    """``holokb answer --retrieval``: None for the structured baseline, else the fused lanes' profile
    (``--profile``/``--profiles`` imply fused; loaded before the KB opens, so a bad profile file is a
    coded error that touches nothing)."""
    from ..retrieval import load_profile

    wants_profile = profile is not None or profiles is not None
    if retrieval is None:
        retrieval = "fused" if wants_profile else "structured"
    if retrieval not in ("structured", "fused"):
        raise Usage(f"--retrieval is structured or fused, not {retrieval!r}")
    if retrieval == "structured":
        if wants_profile:
            raise Usage("--profile and --profiles go with --retrieval fused")
        return None
    found = load_profile(profile or "default", profiles)  # file problems first
    if intuition is not None:
        raise Usage("--retrieval fused and --intuition are two ways to choose the facts: give one")
    return found
