"""Scoring the controlled-English reader: holokb eval proofwriter | babi | clutrr."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from .common import OUT, Usage, check_output
from .evaluate import eval_app


def _check(limit: Optional[int], jobs: int) -> None:
    if limit is not None and limit < 0:
        raise Usage("--limit must be >= 0")
    if jobs < 1:
        raise Usage("--jobs must be >= 1")


def _report(run, out: Optional[Path], started: float, groups: bool = False) -> None:
    from ..answer.evaluation.runner import write_jsonl

    write_jsonl(out, run.results)
    if groups:
        for g, (c, n) in run.by_group().items():
            typer.echo(f"{g}: accuracy={c / n:.4f} n={n}", err=True)
    took = time.monotonic() - started
    typer.echo(f"{run.n / took:.1f} items/s", err=True) if took > 0 and run.n else None
    typer.echo(run.line())


@eval_app.command("proofwriter")
def eval_proofwriter_cmd(file: Path = typer.Argument(..., help="ProofWriter JSON (context, question, answer A/B/C)."),
                         out: Optional[Path] = OUT,
                         limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items."),
                         jobs: int = typer.Option(1, "--jobs", help="Worker processes (output order is kept).")) -> None:
    """Read each item's context, check the question's statement (True / False / Unknown); prints accuracy=… n=….

    \b
    Example: holokb eval proofwriter ../shared/corpora/proofwriter/dev.json --out preds.jsonl --jobs 2
    """
    from ..answer.evaluation.proofwriter import eval_proofwriter

    _check(limit, jobs)
    check_output(out)
    started = time.monotonic()
    _report(eval_proofwriter(file, limit=limit, jobs=jobs), out, started)


@eval_app.command("babi")
def eval_babi_cmd(files: list[Path] = typer.Argument(..., help="bAbI task files (qaN_*_train.txt / _test.txt)."),
                  out: Optional[Path] = OUT,
                  limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N questions per file."),
                  jobs: int = typer.Option(1, "--jobs", help="Worker processes (output order is kept)."),
                  via: str = typer.Option("auto", "--via", help="Answer path: auto (kb.answer unless the task "
                                          "still needs the reading's), kb, reading.")) -> None:
    """Read each story up to each question (story time is valid time); one accuracy line per file, then the total.
    Each line says which answer path answered (kb.answer=N / over_reading=N).

    Example: holokb eval babi ../shared/corpora/babi/qa*_train.txt --jobs 2
    """
    from ..answer.evaluation.babi import eval_babi
    from ..answer.evaluation.runner import EvalRun, write_jsonl

    _check(limit, jobs)
    if via not in ("auto", "kb", "reading"):
        raise Usage("--via must be auto, kb or reading")
    check_output(out)
    started = time.monotonic()
    runs = eval_babi(list(files), limit=limit, jobs=jobs, via=via)
    write_jsonl(out, [r for run in runs for r in run.results])
    for run in runs:
        typer.echo(f"{Path(run.file).name}: {run.line()}")
    total = EvalRun("total", tuple(r for run in runs for r in run.results))
    took = time.monotonic() - started
    if took > 0 and total.n:
        typer.echo(f"{total.n / took:.1f} items/s", err=True)
    typer.echo(total.line())


@eval_app.command("clutrr")
def eval_clutrr_cmd(file: Path = typer.Argument(..., help="CLUTRR CSV (story, query, target_text, genders, task_name)."),
                    out: Optional[Path] = OUT,
                    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items."),
                    jobs: int = typer.Option(1, "--jobs", help="Worker processes (output order is kept)."),
                    kb: bool = typer.Option(True, "--kb/--reading", help="Ask each question through kb.ingest + "
                                            "kb.answer, one in-memory KB per reading (default), or answer over the "
                                            "reading (the cross-check path; same answers, ~2x faster)."),
                    defaults: bool = typer.Option(True, "--defaults/--no-defaults", help="Take the conventions "
                                                  "of CLUTRR's generated families (rules/kinship_defaults.hkr, "
                                                  "cited by rule name) or only what the English says.")) -> None:
    """Read each family story, compose kinship by rules/kinship.hkr; accuracy per story length, then overall.

    Example: holokb eval clutrr ../shared/corpora/clutrr/gen_train23_test2to10/validation.csv --jobs 2
    """
    from ..answer.evaluation.clutrr import eval_clutrr

    _check(limit, jobs)
    check_output(out)
    started = time.monotonic()
    run = eval_clutrr(file, limit=limit, jobs=jobs, via_kb=kb, defaults=defaults)
    for g, (c, n) in run.by_group().items():
        typer.echo(f"{g}: accuracy={c / n:.4f} n={n}")
    _report(run, out, started)
