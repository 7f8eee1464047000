"""The body of ``holokb query`` with no typer in it: :mod:`.query` (the typer command) and the fast
entry (:func:`parse_args`, used by :func:`holokb.cli.main` for a plain ``holokb query …`` line) both
run :func:`run`.

A query on a warm snapshot is mostly start-up: the typer/click import and the typer app's command
build cost more than the query itself, and a query sequence is one process per query.  So
:func:`holokb.cli.main` parses a ``holokb query`` line here first; when every token is one it knows
(the options of :func:`holokb.cli.query.query`, see :data:`OPTIONS`), the command runs without
typer.  Anything else (``--help``, an unknown or malformed option, a value typer would reject)
returns None and the line goes to typer, which reports it as before.  The test
``tests/cli/test_query_fast.py`` holds this parser to typer's reading of the same lines.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

from ..core.limits import Limits
from ..core.time import AsOf
from .light import QUERY_TIMEOUT_S, check_ledger_path, prefixes, read_options, rule_paths, say, seconds, working

#: The options of ``holokb query``: name -> (parameter, takes a value, repeatable).  A flag
#: (takes no value) is True when given.
OPTIONS: dict[str, tuple[str, bool, bool]] = {
    "--file": ("file", True, True), "-f": ("file", True, True), "--db": ("db", True, False),
    "--as-of": ("as_of", True, False), "--valid": ("valid", True, False), "--rules": ("rules", True, True),
    "--no-rules": ("no_rules", False, False), "--ledger": ("ledger", False, False),
    "--limit": ("limit", True, False), "--timeout": ("timeout", True, False), "--format": ("format", True, False),
}
#: The defaults typer gives (the command's signature in :mod:`.query`).
DEFAULTS: dict[str, object] = {"text": None, "file": None, "db": "holokb.db", "as_of": None, "valid": None,
                               "rules": None, "no_rules": False, "ledger": False, "limit": None, "timeout": None,
                               "format": "table"}


def parse_args(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of :func:`run` for a ``holokb query`` command line (without the word
    ``query``), or None when the line is not one this plain reader is sure to read as typer does."""
    read = read_options(args, OPTIONS, DEFAULTS, ints=("limit",), paths=("file", "rules"))
    if read is None or len(read[1]) > 1:
        return None
    out, positional = read
    out["text"] = positional[0] if positional else None
    return out


def _usage(message: str) -> Exception:
    from .common import Usage

    return Usage(message)


def _point(as_of: Optional[str], valid: Optional[str]) -> AsOf:
    if as_of is None and valid is None:
        return AsOf.latest()
    from .common import as_of_point

    return as_of_point(as_of, valid)


def run(text: Optional[str], file: Optional[list[Path]], db: str, as_of: Optional[str], valid: Optional[str],
        rules: Optional[list[Path]], no_rules: bool, ledger: bool, limit: Optional[int], timeout: Optional[str],
        format: str) -> int:
    """Run ``holokb query`` (see its help in :mod:`.query`); the exit code (0: every query ran)."""
    if (text is None) == (not file):
        raise _usage("give the query as an argument or with --file, not both" if text else
                     "give the query as an argument or with --file")
    if no_rules and rules is not None:
        raise _usage("--rules and --no-rules contradict each other")
    budget = Limits(max_results=limit, timeout_s=seconds(timeout, QUERY_TIMEOUT_S)).started()
    names = _query_files(file) if file else ["<query>"]
    batch = len(names) > 1 or any(f.is_dir() for f in file or ())
    point = _point(as_of, valid)
    closure_limits = replace(Limits.unbounded(), timeout_s=budget.timeout_s, ends_at=budget.ends_at)
    paths = None if ledger or no_rules else rule_paths(rules)
    digest = None
    if paths is not None and point == AsOf.latest():
        from ..sparql.rules_index import rule_digest

        digest = rule_digest(paths)
    # Read and parse every query first: a bad file is reported under its name, and no snapshot is
    # built when none of them can run.
    checked, worst = [], 0
    for name in names:
        q, form, rc = _checked(text, name, db)
        checked.append((name, q, form))
        worst = max(worst, rc)
    runnable = [(name, q, form) for name, q, form in checked if form is not None]
    snap = None
    if runnable:
        last_derive = paths == [] and point == AsOf.latest()  # no rule files: the last derive's rule set
        snap = _warm_snapshot(db, digest, point, rules, closure_limits, last_derive)
        if snap is None:
            from .common import open_kb

            with open_kb(db, []) as kb:
                program, said = None, "rules: not used (the reified ledger view)"
                if not ledger:
                    program, said, digest = _rule_set(kb, rules, no_rules, digest)
                say(said)
                with working("building the snapshot when it is missing or stale", format):
                    from ..sparql.query import snapshot_of

                    snap = snapshot_of(kb.ledger, as_of=point, program=program, derive=kb.derive, ledger_view=ledger,
                                       closure_limits=closure_limits)
                if program is not None:
                    from ..sparql.rules_index import remember_program

                    remember_program(db, digest, program)
                    if last_derive:  # the last derive's stored rule set: found by its hash alone next time
                        from ..sparql.rules_index import set_digest

                        remember_program(db, set_digest(program.rule_set_hash), program)
        if snap.built:
            say("snapshot rebuilt")
    for name, q, form in checked:
        if batch:
            sys.stdout.write(f"==> {name} <==\n")
        if form is None or snap is None:
            continue
        worst = max(worst, _run_one(snap, q, form, name, point, budget, format, batch))
    return worst


def _query_files(given: list[Path]) -> list[str]:
    """The query files named: a folder stands for its *.rq files, in name order."""
    out: list[str] = []
    for f in given:
        if f.is_dir():
            found = sorted(p for p in f.glob("*.rq") if p.is_file())
            if not found:
                from ..core.inputs import IS_FOLDER, input_error

                raise input_error(IS_FOLDER, str(f), "is a folder with no .rq files, not a query file",
                                  hint="name a .rq file, or a folder that holds some")
            out.extend(str(p) for p in found)
        else:
            out.append(str(f))
    return out


def _checked(text: Optional[str], name: str, db: str) -> tuple[str, Optional[str], int]:
    """The query text, its form (None when it cannot run) and the exit code of its diagnostic (0: none)."""
    from ..core.errors import HolokbError
    from ..core.inputs import read_text
    from ..sparql.query import SparqlSyntaxError, check_syntax

    try:
        q = text if text is not None else read_text(name, what="query file")
        return q, check_syntax(q, name=name, prefixes=prefixes()), 0
    except SparqlSyntaxError as e:  # the query is the command's input: a usage error (exit 2)
        say(e.render())
        return "", None, 2
    except HolokbError as e:
        from .diagnostics import outcome

        done = outcome(e, ledger=db)
        say(done.text)
        return "", None, done.exit_code


def _run_one(snap, q: str, form: str, name: str, point: AsOf, budget: Limits, format: str, batch: bool) -> int:
    """Run one checked query on the shared snapshot and print its result; the exit code of its
    diagnostic (0: none).  In a batch an evaluation failure is reported and the next query runs."""
    from ..core.errors import HolokbError
    from ..sparql.query import execute

    try:
        with working("querying", format):
            result = execute(snap, q, form=form, as_of=point, view=snap.key.kind, limits=budget, name=name,
                             prefixes=prefixes())
        out = result.serialize(format)
    except HolokbError as e:
        if not batch:
            raise
        from .diagnostics import outcome

        done = outcome(e)
        say(f"{name}: {done.text}")
        return done.exit_code
    sys.stdout.write(out)
    if result.truncated:
        say(f"{name + ': ' if batch else ''}truncated: the {result.limit_hit} budget was hit")
    return 0


def _warm_snapshot(db: str, digest: Optional[str], point: AsOf, rules: Optional[list[Path]], closure_limits: Limits,
                   last_derive: bool = False):
    """The snapshot already on disk for these rule files (found by their digest, see
    ``sparql.rules_index``), or built from the closure `holokb derive` stored for them, without parsing
    the rules or opening the KB; None when neither exists (the full path then parses, builds, and
    records the digest).  ``last_derive``: no rule files are named, so the rule set is the one the
    last ``holokb derive`` stored in the ledger (found by the digest of its text)."""
    if digest is None and not last_derive:
        return None
    from ..sparql.rules_index import lookup, remember, set_digest, stored_digest

    check_ledger_path(db, create=False)
    entry = lookup(db, digest) if digest is not None else None
    if entry is None and not last_derive:
        return None
    from ..sparql.cache import DEFAULT_CACHE
    # The disk snapshot checked against the ledger's markers alone: no Ledger class to import.
    from ..ledger.marker import read_marker

    marker = read_marker(db)
    if last_derive and marker is not None and marker.last_rule_set:
        # the last derive's rule set by its hash (recorded when a query first parsed its text)
        entry = lookup(db, set_digest(marker.last_rule_set))
        if entry is not None and entry.rule_set_hash != marker.last_rule_set:
            entry = None
    if entry is not None and marker is not None:
        snap = DEFAULT_CACHE.get_warm(marker, point, entry.program, closure_limits)
        if snap is not None:
            say(_last_derive_said(entry.rule_set_hash, entry.rules) if last_derive
                else _closed_under(_where(rules), entry.rules, entry.rule_set_hash))
            return snap
    from ..ledger import Ledger

    led = Ledger.open(db)
    try:
        if last_derive:
            last = _last_rule_set(led)
            entry = lookup(db, stored_digest(last[1])) if last is not None else None
            if entry is None:
                return None
            if last is not None and entry.rule_set_hash == last[0]:
                remember(db, set_digest(last[0]), entry)
        snap = DEFAULT_CACHE.get_stored(led, point, entry.program, entry.rule_set_hash, closure_limits)
    finally:
        led.close()
    if snap is not None:
        say(_last_derive_said(entry.rule_set_hash, entry.rules) if last_derive
            else _closed_under(_where(rules), entry.rules, entry.rule_set_hash))
    return snap


def _last_rule_set(ledger) -> Optional[tuple[str, str]]:
    """The hash and text of the rule set of the most recently stored closure (what ``holokb derive``
    last used; ``KnowledgeBase.loaded_rules`` parses the same), or None."""
    infos = sorted(ledger.closures(), key=lambda c: c.id)
    if not infos:
        return None
    text = ledger.rule_set(infos[-1].rule_set_hash)
    return (infos[-1].rule_set_hash, text) if text is not None else None


def _last_derive_said(rule_set_hash: str, rules: int) -> str:
    return (f"rules: closed under the rule set of the last `holokb derive` on this ledger "
            f"({rule_set_hash[:12]}, {rules} rules; --no-rules for asserted triples only)")


def _where(rules: Optional[list[Path]]) -> str:
    return " ".join(str(r) for r in rules) if rules is not None else "./rules (found in the current folder)"


def _closed_under(where: str, rules: int, rule_set_hash: str) -> str:
    return (f"rules: closed under {where}: {rules} rules, rule set {rule_set_hash[:12]} "
            "(--no-rules for asserted triples only)")


def _rule_set(kb, rules: Optional[list[Path]], no_rules: bool, digest: Optional[str]):
    """The program the snapshot is closed under, the line that tells the user which (or none), and
    the digest to record the program under (the rule files', or the stored rule set text's)."""
    if no_rules:
        return None, "rules: none (--no-rules): asserted triples only", digest
    if rules is not None or Path("rules").is_dir():
        from .light import load_rules

        program = load_rules(rules)
        where = _where(rules)
        return program, _closed_under(where, len(program.rules), program.rule_set_hash), digest
    last = _last_rule_set(kb.ledger)
    if last is not None:
        from ..program_cache import stored_program
        from ..sparql.rules_index import stored_digest

        program = stored_program(last[1])  # as KnowledgeBase.loaded_rules
        return program, _last_derive_said(program.rule_set_hash, len(program.rules)), stored_digest(last[1])
    return None, "rules: none (no --rules, no ./rules, no stored derive): asserted triples only", digest
