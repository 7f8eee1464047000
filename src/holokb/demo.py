"""``holokb demo``: the example KB end to end, as lines of text (the CLI prints them)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Iterator

from .core import AsOf, IRI, Limits, format_ms, parse_instant
from .core import Literal
from .kb import KnowledgeBase
from .reasoning import load_program
from .resources import data_dir

EX = "http://example.org/"


def _q(kb: KnowledgeBase, e) -> str:
    text = kb.ledger.chunk_text(e.document, e.chunk) if e.chunk else None
    quote = json.dumps(text[e.char_start:e.char_end]) if text is not None and e.char_start is not None else ""
    return f"{e.document}#{e.chunk} {quote} (confidence {e.confidence:g})"


def _name(t) -> str:
    if isinstance(t, IRI):
        return "ex:" + t.value[len(EX):] if t.value.startswith(EX) else f"<{t.value}>"
    return t.lexical if isinstance(t, Literal) else str(t)


def run_demo(db: str | None = None) -> Iterator[str]:
    """Yield the demo's output lines; deterministic for a fresh ledger."""
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "demo.db")
        loaded_at = parse_instant("2026-01-01T00:00Z")
        with KnowledgeBase.open(path, shapes=[data_dir("shapes")]) as kb:
            yield "== 1. load the example KB (kb/: TriG with provenance blocks + source documents)"
            r = kb.load([data_dir("kb")], at=loaded_at)
            yield f"loaded {r.facts} statements, {r.documents} documents, {r.chunks} chunks at {format_ms(loaded_at)}"
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
                    yield f"{t}: ex:Alice ex:locatedIn {_name(v.fact.object)} valid {v.valid}"
                    for e in v.evidence:
                        yield f"    evidence: {_q(kb, e)}"
            yield "== 4. the session-token policy differs by valid time (v1.0 before 2026-03-01, v2.0 after)"
            for t in ("2026-02-01", "2026-04-01"):
                for v in kb.facts(IRI(EX + "sessionPolicy"), IRI(EX + "sessionTimeout"),
                                  as_of=AsOf(loaded_at, parse_instant(t))):
                    yield f"valid {t}: timeout {v.fact.object.lexical}; evidence: {_q(kb, v.evidence[0])}"
            program = load_program([data_dir("rules") / "example.hkr"])
            yield f"== 5. derive: close the KB under rules/example.hkr ({len(program.rules)} rules, " \
                  f"{len(program.constraints)} constraint) as of valid 2026-04-01"
            april = AsOf(loaded_at, parse_instant("2026-04-01"))
            model = kb.derive(program, as_of=april)
            for d in model.derived():
                if d.predicate.endswith("#type"):
                    atom = f"{_name(d.args[1])}({_name(d.args[0])})"
                else:
                    atom = f"{_name(IRI(d.predicate))}({', '.join(_name(a) for a in d.args)})"
                yield f"derived {atom} valid {d.valid} by {d.rule}"

            yield "== 6. ask (goal-directed): ?- ex:hasCapability(ex:AchillesIDE, ?c)."
            answers = kb.ask(program, "?- ex:hasCapability(ex:AchillesIDE, ?c).", as_of=april)
            yield "answers: " + ", ".join(_name(r[0]) for r in answers.rows)

            yield "== 6b. SPARQL over the as-of snapshot (asserted + derived at valid 2026-04-01)"
            q = ("PREFIX ex: <http://example.org/>\n"
                 "SELECT ?token ?timeout WHERE { ?token a ex:expired ; ex:governedBy/ex:sessionTimeout ?timeout }")
            result = kb.query(q, as_of=april, rules=program)
            for line in result.serialize("table").splitlines():
                yield line

            yield "== 7. answer with evidence: is the support console's token expired?"
            for t in ("2026-02-01", "2026-04-01"):
                point = AsOf(loaded_at, parse_instant(t))
                verdict = kb.prove(program, "ex:expired(ex:supportConsoleToken)", as_of=point)
                yield f"valid {t}: {verdict.status}" + ("" if verdict.status == "entailed" else f" ({verdict.reason})")
            expl = kb.explain(program, "ex:expired(ex:supportConsoleToken)", as_of=april)
            yield f"why (valid 2026-04-01): holds over {expl.proof.valid} by rule {expl.proof.rule}"
            for n in expl.proof.inputs():
                view = expl.evidence.get(n.id)
                src = "; ".join(_q(kb, e) for e in view.evidence) if view and view.evidence else "asserted in kb/"
                yield f"    {_name(IRI(n.predicate))}({', '.join(_name(a) for a in n.args)}) <- {src}"

            yield "== 8. consistency at 10:00 (rules + constraint one_location + shape cardinalities)"
            result, info = kb.check_consistency(program, as_of=AsOf(loaded_at, parse_instant("2026-01-01T10:00Z")))
            yield f"{result.status} over {info.facts} facts"
            yield from _answer_step(kb, loaded_at)
            s = kb.stats()
            yield "== stats: " + ", ".join(f"{k}={s[k]}" for k in sorted(s))


def _answer_step(kb: KnowledgeBase, at: int) -> Iterator[str]:
    """Text in, verdicts out: the handbook read by the controlled-English reader, DS005's question asked
    with and without a policy version."""
    from .answer import Verdict

    yield "== 9. ingest the handbook text and answer DS005's worked example (kb.ingest, kb.answer)"
    text = (data_dir("kb") / "docs" / "security-handbook.txt").read_text(encoding="utf-8")
    r = kb.ingest(text, doc_id="spec", at=at + 1)
    yield f"read {r.sentences} sentences → {r.facts} facts, {r.rules} rules; skipped {len(r.skipped)} " \
          f"({', '.join(sorted({s.reason.value for s in r.skipped})) or 'none'})"
    for q in ("If a user is inactive for 20 minutes in v2.0, is their session valid?",
              "If a user is inactive for 20 minutes, is their session valid?"):
        a = kb.answer(q, as_of=AsOf.latest())
        yield f"Q: {q}"
        if a.verdict is Verdict.SUPPORTED:
            yield f"A: {a.text} ({a.verdict.value}; chunks {', '.join(a.chunks_used)})"
            for e in a.fact_chain:
                if e.role.value == "conclusion":
                    yield f"    conclusion: {_name(e.fact.object)}"
                    continue
                quote = "; ".join(json.dumps(src.text) for src in e.evidence if src.text)
                what = e.rule or e.role.value
                yield f"    {e.role.value}: {_name(e.fact.predicate)}({_name(e.fact.subject)}" + \
                      (f", {_name(e.fact.object)}" if e.fact.object is not None else "") + f") [{what}]" + \
                      (f" <- {quote}" if quote else "")
        elif a.verdict is Verdict.CONFLICTING:
            yield f"A: (none) {a.verdict.value}"
            for c in a.conflicts:
                yield f"    {c.reason.value}: {c.message}" + \
                      (f" (confirmed by {c.solver.backend}, core of {len(c.solver.core)} facts)" if c.solver else "")
        else:
            yield f"A: (none) {a.verdict.value}: {a.missing.message if a.missing else ''}"
