"""Parsing rule files: ``parse_rules(text)`` and ``parse_file(path)`` → :class:`Module`.

Errors are collected, not raised one at a time: after a syntax error the offending statement
is blanked out (keeping line and column numbers) and the file is parsed again, so one run
reports every broken statement.  All diagnostics are raised once as :class:`RuleSyntaxError`.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedInput, VisitError

from ..core.errors import Diagnostic, RuleSyntaxError
from ..core.inputs import InputError, read_text
from ..resources import data_dir
from .diagnostics import diagnose
from .module import Module
from .transform import STANDARD_PREFIXES, Collected, ToAST

#: Stop collecting syntax errors after this many in one file.
MAX_SYNTAX_ERRORS = 20

# Statement terminators: a '.' followed by whitespace, a comment or the end; strings, IRIs and
# comments are matched first so a '.' inside them never counts.
_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|<[^<>"\s]*>|#[^\n]*|(\.)(?=\s|#|$)|.', re.S)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (data_dir("grammar") / "holokb.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def parse_rules(text: str, *, file: str | None = None) -> Module:
    """Parse rule text (includes resolved relative to ``file``'s folder, else the working folder).

    >>> m = parse_rules("@prefix ex: <http://example.org/> . ex:red(ex:alice).")
    >>> m.facts[0].predicate
    'http://example.org/red'
    """
    diags: list[Diagnostic] = []
    state = _IncludeState(sources=[], seen=set(), stack=[])
    coll = _parse_one(text, file, diags, state)
    if diags:
        diags.sort(key=lambda d: (d.location.file or "", d.location.line, d.location.column) if d.location else ("", 0, 0))
        first = diags[0]
        raise RuleSyntaxError(f"{len(diags)} syntax error(s); first: {first.message}", tuple(diags))
    return _module(file, coll, state)


def parse_file(path: str | os.PathLike[str]) -> Module:
    """Parse a ``.hkr`` file (UTF-8) and everything it includes."""
    p = Path(path)
    try:
        text = read_text(p, what="rule file")
    except InputError as e:  # the rule language's own code, with the reader's location and hint
        d = dataclasses.replace(e.diagnostics[0], code="HK108",
                                message=f"cannot read rule file {str(p)!r}: {e.diagnostics[0].message}")
        raise RuleSyntaxError(d.message, (d,)) from None
    return parse_rules(text, file=str(p))


class _IncludeState:
    def __init__(self, sources, seen, stack):
        self.sources: list[tuple[str | None, str]] = sources
        self.seen: set[str] = seen
        self.stack: list[str] = stack
        self.parts: list[Collected] = []
        self.included: list[str] = []


def _parse_one(text: str, file: str | None, diags: list[Diagnostic], state: _IncludeState) -> Collected:
    state.sources.append((file, text))
    key = os.path.realpath(file) if file else "<input>"
    state.seen.add(key)
    state.stack.append(key)
    tree, syntax = _parse_tree(text, file)
    diags.extend(syntax)
    tr = ToAST(file)
    if tree is not None:
        try:
            tr.transform(tree)
        except VisitError as e:  # pragma: no cover - a transformer bug, not a user error
            raise e.orig_exc from None
    diags.extend(d if d.source_line is not None else _with_line(d, text) for d in tr.diagnostics)
    base = Path(file).parent if file else Path.cwd()
    for inc in tr.out.includes:
        target = os.path.normpath(str(base / inc.path))
        real = os.path.realpath(target)
        if real in state.stack:
            chain = " → ".join(Path(s).name for s in state.stack[state.stack.index(real):]) + f" → {Path(real).name}"
            diags.append(_with_line(Diagnostic("HK109", f"include cycle: {chain}", inc.origin,
                                               "remove one of the @include directives"), text))
            continue
        if real in state.seen:
            continue  # a diamond: already included once
        try:
            inc_text = read_text(target, what="rule file")
        except InputError as e:
            diags.append(_with_line(Diagnostic("HK108", f"cannot include {inc.path!r}: {e.diagnostics[0].message}",
                                               inc.origin, f"looked for {target}; paths are relative to the including file"),
                                    text))
            continue
        state.included.append(target)
        _parse_one(inc_text, target, diags, state)
    state.stack.pop()
    state.parts.append(tr.out)
    tr.out.prefixes = {**tr.declared_prefixes}
    return tr.out


def _parse_tree(text: str, file: str | None):
    diags: list[Diagnostic] = []
    parser = _parser()
    work = text
    for _ in range(MAX_SYNTAX_ERRORS):
        try:
            return parser.parse(work), diags
        except UnexpectedInput as e:
            d = diagnose(e, text, file, parser.parse)
            diags.append(d)
            pos = e.pos_in_stream if getattr(e, "pos_in_stream", None) is not None else len(work)
            start, end = _statement_bounds(work, pos)
            if d.code == "HK120" and pos > start:
                end = pos  # the statement lacking its '.' ends here; the next one is intact
            work = work[:start] + re.sub(r"[^\n]", " ", work[start:end]) + work[end:]
    return None, diags


def _statement_bounds(text: str, pos: int) -> tuple[int, int]:
    """[start, end) of the statement around ``pos``: from after the previous terminator through the next."""
    start, end = 0, len(text)
    for m in _SCAN.finditer(text):
        if m.group(1) is None:
            continue
        if m.start() < pos:
            start = m.end()
        else:
            end = m.end()
            break
    return start, max(end, min(pos + 1, len(text)))


def _with_line(d: Diagnostic, text: str) -> Diagnostic:
    if d.location is None:
        return d
    lines = text.splitlines()
    src = lines[d.location.line - 1] if 0 < d.location.line <= len(lines) else None
    return Diagnostic(d.code, d.message, d.location, d.hint, d.severity, src, d.notes)


def _module(file: str | None, root: Collected, state: _IncludeState) -> Module:
    # Included files come first (in include order), the including file last: state.parts is in
    # completion order, which is exactly that.
    prefixes: dict[str, str] = {}
    for part in [root] + [p for p in state.parts if p is not root]:
        for k, v in part.prefixes.items():
            prefixes.setdefault(k, v)
    for k, v in STANDARD_PREFIXES:
        prefixes.setdefault(k, v)
    parts = state.parts
    return Module(
        file=file,
        prefixes=tuple(prefixes.items()),
        declarations=tuple(d for p in parts for d in p.declarations),
        rules=tuple(r for p in parts for r in p.rules),
        facts=tuple(f for p in parts for f in p.facts),
        queries=tuple(q for p in parts for q in p.queries),
        includes=tuple(state.included),
        sources=tuple(state.sources),
    )
