"""The body of ``holokb derive`` with no typer in it: :mod:`.rules` (the typer command) and the fast
entry (:func:`parse_args`, used by :func:`holokb.cli.main` for a plain ``holokb derive …`` line) both
run :func:`run`.

Importing typer/click and building the app's commands costs ~0.06 s CPU of a derive that takes ~1.5 s
on LUBM; so, as for ``holokb query`` (:mod:`.query_run`), :func:`holokb.cli.main` reads a ``holokb
derive`` line here first.  When every token is one it knows (the options of
:func:`holokb.cli.rules.derive`, see :data:`OPTIONS`) the command runs without typer; anything else
(``--help``, an unknown or malformed option, a value typer would reject) returns None and the line goes
to typer, which reports it as before.  ``tests/cli/test_derive_fast.py`` holds this reader to typer's
reading of the same lines.
"""
from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Optional

from ..core.limits import Limits
from ..core.time import AsOf
from .light import DERIVE_TIMEOUT_S, load_rules, now_ms, open_kb, read_options, rule_paths, seconds, short, working

#: The options of ``holokb derive``: name -> (parameter, takes a value, repeatable[, the value a flag
#: sets when given]).
OPTIONS: dict[str, tuple] = {
    "--rules": ("rules", True, True), "--db": ("db", True, False), "--as-of": ("as_of", True, False),
    "--valid": ("valid", True, False), "--max-depth": ("max_depth", True, False),
    "--max-derived": ("max_derived", True, False), "--timeout": ("timeout", True, False),
    "--show": ("show", True, False), "--store": ("store", False, False, True),
    "--no-store": ("store", False, False, False), "--all-valid": ("all_valid", False, False, True),
    "--format": ("format", True, False),
}
#: The defaults typer gives (the command's signature in :mod:`.rules`).
DEFAULTS: dict[str, object] = {"rules": None, "db": "holokb.db", "as_of": None, "valid": None, "max_depth": None,
                               "max_derived": None, "timeout": None, "show": 20, "store": True, "all_valid": False,
                               "format": "text"}


def parse_args(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of :func:`run` for a ``holokb derive`` command line (without the word
    ``derive``), or None when the line is not one this plain reader is sure to read as typer does."""
    read = read_options(args, OPTIONS, DEFAULTS, ints=("max_depth", "max_derived", "show"), paths=("rules",))
    if read is None or read[1]:
        return None  # derive takes no arguments: typer's message
    return read[0]


#: The young-generation threshold of the cyclic collector while ``holokb derive`` runs (Python's
#: default 700).  A derive allocates ~100k short-lived objects (the input's terms, dictionary
#: entries, plan steps) and hardly any cycle: LUBM ran ~170 collections, 0.05-0.07 s CPU of ~1.3 s;
#: with this, 2 (0.02 s).  Restored when the command returns (tests run it in-process).
GC_YOUNG = 50_000


def run(rules: Optional[list[Path]], db: str, as_of: Optional[str], valid: Optional[str], max_depth: Optional[int],
        max_derived: Optional[int], timeout: Optional[str], show: int, store: bool, all_valid: bool,
        format: str) -> int:
    """Run ``holokb derive`` (see its help in :mod:`.rules`); the exit code (1: a constraint is violated)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], GC_YOUNG), *before[1:])
    try:
        return _run(rules, db, as_of, valid, max_depth, max_derived, timeout, show, store, all_valid, format)
    finally:
        gc.set_threshold(*before)


def _run(rules: Optional[list[Path]], db: str, as_of: Optional[str], valid: Optional[str], max_depth: Optional[int],
         max_derived: Optional[int], timeout: Optional[str], show: int, store: bool, all_valid: bool,
         format: str) -> int:
    limits = Limits(max_depth=max_depth, max_derived=max_derived, max_results=None,
                    timeout_s=seconds(timeout, DERIVE_TIMEOUT_S)).started()
    from ..engine.allocator import keep_freed_memory

    keep_freed_memory()  # the closure frees and re-allocates big arrays: reuse them, not fresh pages

    prog = load_rules(rules)  # the same rule files again: no parse (program_cache, keyed by their bytes)
    point = _point(as_of, valid)
    info = None
    with open_kb(db, []) as kb, working("deriving", format):
        if all_valid:
            model = kb.derive(prog, as_of=point, limits=limits, all_valid=True)
        elif store:
            model, info = kb.derive_and_store(prog, as_of=point, computed_at=now_ms(), limits=limits)
            if point == AsOf.latest():  # `holokb query` with these rule files then needs no parse
                from ..sparql.rules_index import remember_program, rule_digest

                remember_program(db, rule_digest(rule_paths(rules)), prog)
        else:
            model = kb.derive(prog, as_of=point, limits=limits)
    n = model.derived_count()  # counting decodes nothing; only the facts shown are decoded
    shown = model.derived(limit=show)
    truncated = model.truncated or (info is not None and info.truncated)
    hit = model.limit_hit or (info.limit_hit if info is not None else None)
    lines = []
    if format == "json":
        lines.append(json.dumps({
            "asOf": {"system": point.system, "valid": point.valid}, "derived": n,
            "iterations": model.stats.iterations, "truncated": truncated, "limitHit": hit,
            "ruleCounts": dict(model.rule_counts()), "ruleSetHash": prog.rule_set_hash, "allValid": all_valid,
            "storedClosure": None if info is None else info.id,
            "violations": [{"constraint": v.constraint, "bindings": {k: str(t) for k, t in v.bindings}}
                           for v in model.violations]}, sort_keys=True))
    else:
        from ..core import IRI

        it = model.stats.iterations
        where = f"over all valid time as recorded at {point}" if all_valid else f"at {point}"
        lines.append(f"derived {n} fact{'' if n == 1 else 's'} in {it} iteration{'' if it == 1 else 's'} {where}")
        for d in shown:
            args = ", ".join(short(a) for a in d.args)
            lines.append(f"  {short(IRI(d.predicate))}({args})  valid {d.valid}  by {d.rule}"
                         + (f"  score {d.score:.3f}" if d.score is not None else ""))
        if n > len(shown):
            lines.append(f"  … {n - len(shown)} more (use --show)")
        for v in model.violations:
            binds = " ".join(f"?{k}={short(t)}" for k, t in v.bindings)
            lines.append(f"violation of {v.constraint}: {binds}")
        if truncated:
            lines.append(f"truncated: the {hit} budget was hit; the closure is partial")
        if info is not None:
            lines.append(f"stored as closure #{info.id} (rule set {prog.rule_set_hash[:12]}, {point}) in {db}")
    sys.stdout.write("".join(line + "\n" for line in lines))  # what typer.echo writes, line by line
    return 1 if model.violations else 0


def _point(as_of: Optional[str], valid: Optional[str]) -> AsOf:
    if as_of is None and valid is None:
        return AsOf.latest()
    from .common import as_of_point

    return as_of_point(as_of, valid)
