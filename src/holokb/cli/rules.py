"""Rule commands: check, derive, ask, explain, prove."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..core import IRI, format_ms
from .app import app
from .common import (
    AS_OF, ASK_TIMEOUT_S, DB, DB_IF_PRESENT, DERIVE_TIMEOUT_S, FORMAT, RULES, SHAPES, TIMEOUT_HELP, VALID, Usage,
    as_of_point, limits_of, load_rules, open_kb, seconds, short,
)


@app.command()
def check(files: Optional[list[Path]] = typer.Argument(None, help="Rule files or folders (default ./rules)."),
          consistency: bool = typer.Option(False, "--consistency", help="Also check that the KB, rules, constraints and shape cardinalities can all hold."),
          db: str = DB_IF_PRESENT, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
          shapes: Optional[list[Path]] = SHAPES, solver: str = typer.Option("z3", "--solver", help="z3 or cvc5."),
          timeout: float = typer.Option(10.0, "--timeout", help="Solver seconds."),
          format: str = FORMAT) -> None:
    """Check rule files: every mistake at once, with code, file:line:col, the line, a caret and a hint.
    With --consistency, also solve: print the smallest set of conflicting facts with their evidence.

    \b
    Example: holokb check rules/
    Example: holokb check rules/ --consistency --shapes shapes/ --as-of 2026-01-01T10:00Z
    """
    if shapes is not None and not consistency:
        raise Usage("--shapes applies to --consistency only", hint="add --consistency, or drop --shapes")
    prog = load_rules(files)
    point = as_of_point(as_of, valid)
    warnings = lint_warnings(db, prog, point if (as_of is not None or valid is not None) else None)
    summary = {"rules": len(prog.rules), "constraints": len(prog.constraints), "queries": len(prog.queries),
               "strata": len(prog.strata), "ruleSetHash": prog.rule_set_hash,
               "warnings": [warning_json(w) for w in warnings]}
    if format != "json":
        for w in warnings:
            typer.echo(w.render(), err=True)
    if not consistency:
        if format == "json":
            typer.echo(json.dumps(summary, sort_keys=True))
        else:
            typer.echo(f"ok: {len(prog.rules)} rules, {len(prog.constraints)} constraints, "
                       f"{len(prog.queries)} queries in {len(prog.strata)} strata (rule set {prog.rule_set_hash[:12]})")
        return
    from ..solver import SolverLimits

    with open_kb(db, shapes) as kb:
        result, info = kb.check_consistency(prog, as_of=point, backend=solver,
                                            limits=SolverLimits(timeout_ms=int(timeout * 1000)))
    if format == "json":
        summary.update({"status": result.status, "activeFacts": info.facts, "truncated": info.truncated,
                        "reason": result.reason, "limitHit": result.limit_hit, "constraints": list(result.constraints),
                        "conflict": [{"factId": f.key, "predicate": f.predicate, "args": [str(a) for a in f.args],
                                      "valid": [f.valid.start, f.valid.end], "evidence": list(f.evidence)}
                                     for f in result.facts],
                        "absent": [_absence_json(a) for a in result.absent]})
        typer.echo(json.dumps(summary, sort_keys=True))
    else:
        typer.echo(f"{result.status} at {point} ({info.facts} facts in the active set"
                   + (", capped" if info.truncated else "") + ")")
        if result.status == "inconsistent":
            typer.echo("these cannot all hold" + (f" (at {format_ms(result.at)})" if result.at is not None else "") + ":")
            for f in result.facts:
                typer.echo(f"  {short(IRI(f.predicate))}({', '.join(short(a) for a in f.args)})  valid "
                           f"{f.valid}  fact {f.key[:12]}")
                for e in f.evidence:
                    typer.echo(f"      from {e}")
            for c in result.constraints:
                typer.echo(f"  with {c}")
            for a in result.absent:
                typer.echo(f"  given that nothing matches {_absence_text(a)}")
        elif result.reason:
            typer.echo(f"  {result.reason}" + (f" (limit: {result.limit_hit})" if result.limit_hit else ""))
    if result.status != "consistent":
        raise typer.Exit(1)


@app.command()
def derive(rules: Optional[list[Path]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
           valid: Optional[str] = VALID, max_depth: Optional[int] = typer.Option(None, "--max-depth", help="Deepest proof to derive (budget; the result says when it was hit)."),
           max_derived: Optional[int] = typer.Option(None, "--max-derived", help="Most facts to derive (budget; the result says when it was hit)."),
           timeout: Optional[str] = typer.Option(None, "--timeout", help=TIMEOUT_HELP.format(DERIVE_TIMEOUT_S)),
           show: int = typer.Option(20, "--show", help="How many derived facts to print."),
           store: bool = typer.Option(True, "--store/--no-store", help="Store the closure (with proofs) in the ledger."),
           all_valid: bool = typer.Option(False, "--all-valid",
                                          help="The whole valid-time axis: every derived fact with every maximal "
                                               "interval over which it holds (not stored)."),
           format: str = FORMAT) -> None:
    """Close the KB under the rules as of a time; store it, marked derived, with its proofs.

    \b
    Example: holokb derive --rules rules/ --valid 2026-04-01
    """
    from . import derive_run

    rc = derive_run.run(rules, db, as_of, valid, max_depth, max_derived, timeout, show, store, all_valid, format)
    if rc:
        raise typer.Exit(rc)


@app.command()
def ask(query: str = typer.Argument(..., help="A rule query, e.g. '?- ex:hasCapability(ex:AchillesIDE, ?c).'"),
        rules: Optional[list[Path]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
        valid: Optional[str] = VALID,
        timeout: Optional[str] = typer.Option(None, "--timeout", help=TIMEOUT_HELP.format(ASK_TIMEOUT_S)),
        format: str = FORMAT) -> None:
    """Answer a rule query goal-directed (without materialising everything).

    \b
    Example: holokb ask '?- ex:hasCapability(ex:AchillesIDE, ?c).'
    """
    prog = load_rules(rules)
    point = as_of_point(as_of, valid)
    with open_kb(db, []) as kb:
        warnings = kb.lint(prog, as_of=point, query=query)
        if format != "json":
            for w in warnings:
                typer.echo(w.render(), err=True)
        ans = kb.ask(prog, query, as_of=point, limits=limits_of(None, None, seconds(timeout, ASK_TIMEOUT_S)))
    if format == "json":
        typer.echo(json.dumps({"head": {"vars": list(ans.variables)},
                               "results": {"bindings": [{v: str(t) for v, t in zip(ans.variables, row)}
                                                        for row in ans.rows]},
                               "truncated": ans.truncated, "warnings": [warning_json(w) for w in warnings]},
                              sort_keys=True))
    else:
        if not ans.rows:
            typer.echo("no answers" + (" (see the warnings above)" if warnings else ""))
        elif not ans.variables:  # a ground question: it holds
            typer.echo("yes")
        for row in (ans.rows if ans.variables else ()):
            typer.echo("  " + "  ".join(f"?{v} = {short(t)}" for v, t in zip(ans.variables, row)))
        if ans.truncated:
            typer.echo(f"truncated: the {ans.limit_hit} budget was hit")


@app.command()
def explain(fact: str = typer.Argument(..., help="A ground fact, e.g. 'ex:hasCapability(ex:AchillesIDE, ex:sandboxing)'."),
            rules: Optional[list[Path]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
            valid: Optional[str] = VALID, max_depth: Optional[int] = typer.Option(None, "--max-depth", help="Deepest proof level to show."),
            format: str = typer.Option("text", "--format", help="text, json or dot.")) -> None:
    """The proof of a fact down to asserted facts and the source text they came from.

    \b
    Example: holokb explain 'ex:hasCapability(ex:AchillesIDE, ex:sandboxing)'
    """
    from ..answer.proofs import render_text, to_dot, to_json

    prog = load_rules(rules)
    with open_kb(db, []) as kb:
        expl = kb.explain(prog, fact, as_of=as_of_point(as_of, valid), max_depth=max_depth)

        def quote(e) -> str | None:
            if e.chunk is None or e.char_start is None:
                return None
            text = kb.ledger.chunk_text(e.document, e.chunk)
            return None if text is None else text[e.char_start:e.char_end]

        if format == "json":
            typer.echo(json.dumps(to_json(expl), sort_keys=True, ensure_ascii=False))
        elif format == "dot":
            typer.echo(to_dot(expl, short), nl=False)
        else:
            for line in render_text(expl, short, quote):
                typer.echo(line)
    if expl.proof is None:
        raise typer.Exit(1)


@app.command()
def prove(goal: str = typer.Argument(..., help="A ground fact, e.g. 'ex:expired(ex:supportConsoleToken)'."),
          rules: Optional[list[Path]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
          valid: Optional[str] = VALID, shapes: Optional[list[Path]] = SHAPES,
          solver: str = typer.Option("z3", "--solver", help="z3 or cvc5."),
          timeout: float = typer.Option(10.0, "--timeout", help="Solver seconds."),
          max_rounds: int = typer.Option(3, "--max-rounds", help="Times the fact neighbourhood grows by one hop before the answer is unknown."), format: str = FORMAT,
          intuition: Optional[str] = typer.Option(None, "--intuition", help="none, hrr or hdc: decide on a candidate set the vector index proposes.")) -> None:
    """Is a fact entailed, refuted, or unknown at a time? With the facts and rules that decide it.

    \b
    Example: holokb prove 'ex:expired(ex:supportConsoleToken)' --valid 2026-04-01
    """
    from ..solver import SolverLimits

    prog = load_rules(rules)
    if intuition is not None:
        from .intuition import prove_with_intuition

        prove_with_intuition(prog, goal, db=db, shapes=shapes, point=as_of_point(as_of, valid), strategy=intuition,
                             solver=solver, timeout=timeout, max_rounds=max_rounds, format=format)
        return
    with open_kb(db, shapes) as kb:
        r = kb.prove(prog, goal, as_of=as_of_point(as_of, valid), backend=solver,
                     limits=SolverLimits(timeout_ms=int(timeout * 1000), max_rounds=max_rounds))
    if format == "json":
        typer.echo(json.dumps({"status": r.status, "reason": r.reason, "limitHit": r.limit_hit, "rounds": r.rounds,
                               "constraints": list(r.constraints), "absent": [_absence_json(a) for a in r.absent],
                               "facts": [{"factId": f.key, "predicate": f.predicate, "args": [str(a) for a in f.args],
                                          "polarity": f.polarity, "evidence": list(f.evidence)} for f in r.facts]},
                              sort_keys=True))
        return
    typer.echo(f"{r.status}: {goal}" + (f"  ({r.reason}" + (f"; limit {r.limit_hit}" if r.limit_hit else "") + ")"
                                          if r.reason else ""))
    for f in r.facts:
        neg = "not " if f.polarity == "negate" else ""
        typer.echo(f"  {neg}{short(IRI(f.predicate))}({', '.join(short(a) for a in f.args)})  valid {f.valid}")
        for e in f.evidence:
            typer.echo(f"      from {e}")
    for c in r.constraints:
        typer.echo(f"  using {c}")
    for a in r.absent:
        typer.echo(f"  given that nothing matches {_absence_text(a)}")


def _absence_text(a) -> str:
    """A negated premise as the user wrote it, ``_`` for any value."""
    args = ", ".join("_" if t is None else short(t) for t in a.args)
    return f"{'not ' if a.negated else ''}{short(IRI(a.predicate))}({args})"


def _absence_json(a) -> dict:
    return {"predicate": a.predicate, "negated": a.negated, "args": [None if t is None else str(t) for t in a.args]}


def lint_warnings(db: str, program, point) -> tuple:
    """The program's warnings, against the ledger's facts at ``point`` (None: at any time) when there
    is a ledger."""
    from ..analysis.lint import lint

    if not Path(db).exists():
        warnings = lint(program)
        if warnings or program.rules:
            typer.echo(f"note: no ledger at {db}: the rules were not checked against facts", err=True)
        return warnings
    with open_kb(db, []) as kb:
        return kb.lint(program, as_of=point)


def warning_json(d) -> dict:
    loc = d.location
    return {"code": d.code, "message": d.message, "hint": d.hint,
            "location": None if loc is None else {"file": loc.file, "line": loc.line, "column": loc.column}}
