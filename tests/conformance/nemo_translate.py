"""Nemo programs (``.rls``) → :class:`datalog_ir.DProgram`, mechanically.

Nemo's rule syntax is rewritten token by token into the Soufflé clause syntax that
``souffle_translate.parse_clauses`` reads (``?X`` → a variable, a bare name → a constant, ``~``
→ ``!``), ``@import``/``@export`` of csv/tsv resources become input facts and compared outputs,
and head aggregates ``#count(?z)`` become body aggregates over a projection (Nemo aggregates
distinct values of the listed variables per group).  Variables met only under ``~`` are
existential (:func:`datalog_ir.existential_negation`).  Anything else raises :class:`Unsupported`.
"""
from __future__ import annotations

import csv
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from datalog_ir import DAgg, DAtom, DProgram, DRule, DVar, Unsupported, existential_negation, number_text
from souffle_io import read_cell
from souffle_translate import parse_clauses

_TOK = re.compile(r"""
    (?P<ws>\s+|%[^\n]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*"(?:\^\^\S+|@[A-Za-z\-]+)?)
  | (?P<iri><[^<>"\s]*>)
  | (?P<var>[?!][A-Za-z_][A-Za-z0-9_]*)
  | (?P<agg>\#[a-z]+\()
  | (?P<num>[+-]?(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+))
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)?)
  | (?P<op>:-|<=|>=|!=|=|<|>|[(),.~+\-*/_])
""", re.X)
_DIRECTIVE = re.compile(r"^\s*@(\w+)\s+(.*?)\.\s*$", re.M | re.S)
_AGGS = {"#count(": "count", "#sum(": "sum", "#min(": "min", "#max(": "max"}


@dataclass
class NemoCase:
    program: DProgram
    expected: dict[str, Path]


def _directives(text: str):
    """(kind, argument text) of every ``@...`` statement, and the text without them."""
    found = []
    out = []
    stmt: list[str] = []
    for line in text.splitlines():
        stripped = line.split("%", 1)[0] if '"' not in line else line
        if stmt or stripped.lstrip().startswith("@"):
            stmt.append(stripped)
            if stripped.rstrip().endswith("."):
                body = " ".join(stmt).strip()
                m = re.match(r"@(\w+)\s*(.*)\.$", body, re.S)
                found.append((m.group(1), m.group(2).strip()) if m else ("?", body))
                stmt = []
            out.append("")
            continue
        out.append(line)
    return found, "\n".join(out)


def _options(spec: str) -> tuple[str, str, dict]:
    m = re.match(r"(\w+)\s*:-\s*(\w+)\s*\{(.*)\}\s*$", spec, re.S)
    if not m:
        raise Unsupported(f"import/export form not understood: {spec[:40]}")
    opts = dict(re.findall(r'(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]+)', m.group(3)))
    return m.group(1), m.group(2), {k: v.strip('"') for k, v in opts.items()}


def _clauses(text: str) -> tuple[str, list[tuple[str, tuple, str]]]:
    """Rewrite rule text token by token; head aggregates are cut out and returned per clause."""
    toks = []
    pos = 0
    while pos < len(text):
        m = _TOK.match(text, pos)
        if m is None:
            raise Unsupported(f"Nemo syntax not understood near {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            toks.append((m.lastgroup, m.group()))
    out: list[str] = []
    for kind, t in toks:
        if kind == "str":
            if not t.endswith('"'):
                raise Unsupported("typed or language-tagged literals")
            out.append('"' + _QUOTED + t[1:])  # Nemo exports string literals quoted; see _quoted
        elif kind == "iri":
            raise Unsupported("IRI constants")
        elif kind == "var":
            if t.startswith("!"):
                raise Unsupported("existential rules (!V)")
            out.append("V_" + t[1:])
        elif kind == "agg":
            if t not in _AGGS:
                raise Unsupported(f"aggregate {t[:-1]}")
            out.append(f"__{_AGGS[t]}(")
        elif kind == "id":
            if ":" in t:
                raise Unsupported("prefixed names")
            out.append(t)
        elif t == "~":
            out.append("!")
        else:
            out.append(t)
    # bare names are constants unless they name a relation (followed by '(')
    res = []
    for i, t in enumerate(out):
        nxt = out[i + 1] if i + 1 < len(out) else ""
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", t) and not t.startswith("V_") and nxt != "(":
            res.append(f'"{t}"')
        else:
            res.append(t)
    return " ".join(res), []


def translate(path: Path) -> NemoCase:
    """Translate one ``.rls`` file, load its csv/tsv imports and locate its expected exports."""
    text = path.read_text(encoding="utf-8", errors="replace")
    directives, rules_text = _directives(text)
    prog_text, _ = _clauses(rules_text)
    prog = parse_clauses(prog_text)
    prog.rules = [_quoted(r) for r in prog.rules]
    prog.facts = {p: [tuple(_quoted(c) for c in row) for row in rows] for p, rows in prog.facts.items()}
    prog.rules = _head_aggregates(existential_negation(prog.rules))
    inputs, outputs = [], []
    for kind, arg in directives:
        if kind == "import":
            inputs.append(_options(arg))
        elif kind == "export":
            outputs.append(_options(arg))
        else:
            raise Unsupported(f"@{kind}")
    for pred, fmt, opts in inputs:
        if fmt not in ("csv", "tsv") or set(opts) - {"resource"}:
            raise Unsupported(f"import format {fmt} {sorted(opts)}")
        src = path.parent / opts.get("resource", "")
        if not src.is_file():
            raise Unsupported("import resource missing")
        delim = "," if fmt == "csv" else "\t"
        try:
            with src.open(encoding="utf-8", newline="") as f:
                for row in csv.reader(f, delimiter=delim):
                    prog.facts.setdefault(pred, []).append(tuple(_cell(c) for c in row))
        except UnicodeDecodeError:
            raise Unsupported("compressed or non-UTF-8 resource") from None
    expected_dir = path.with_suffix("")
    expected = {}
    for pred, fmt, opts in outputs:
        if fmt != "csv" or set(opts) - {"resource"}:
            raise Unsupported(f"export format {fmt} {sorted(opts)}")
        expected[pred] = expected_dir / f"{opts.get('resource', pred)}.csv".replace(".csv.csv", ".csv")
    for p in list(prog.facts):
        prog.arity.setdefault(p, len(prog.facts[p][0]) if prog.facts[p] else 0)
    for r in prog.rules:
        prog.arity.setdefault(r.head.pred, len(r.head.args))
    prog.outputs = sorted(expected)
    return NemoCase(prog, expected)


_QUOTED = "\x01"


def _quoted(x):
    """String literals of the program carry their quotes (how Nemo exports them); import cells do not."""
    from datalog_ir import DBin, DCmp, DConst, DNeg

    if isinstance(x, DConst):
        if x.kind == "sym" and str(x.value).startswith(_QUOTED):
            return DConst("sym", '"' + str(x.value)[1:] + '"')
        return x
    if isinstance(x, DRule):
        return DRule(_quoted(x.head), tuple(_quoted(i) for i in x.body))
    if isinstance(x, DAtom):
        return DAtom(x.pred, tuple(_quoted(a) for a in x.args))
    if isinstance(x, DNeg):
        return DNeg(_quoted(x.atom))
    if isinstance(x, DCmp):
        return DCmp(x.op, _quoted(x.left), _quoted(x.right))
    if isinstance(x, DBin):
        return DBin(x.op, _quoted(x.left), _quoted(x.right))
    if isinstance(x, DAgg):
        return DAgg(x.func, _quoted(x.term), tuple(tuple(_quoted(i) for i in c) for c in x.body))
    return x


def _cell(c: str):
    n = number_text(c)
    if n is not None and re.fullmatch(r"[+-]?\d+", c.strip()):
        return read_cell(c.strip(), "int")
    if n is not None and re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+", c.strip()):
        return read_cell(c.strip(), "float")
    return read_cell(c, "sym")


def _head_aggregates(rules: list[DRule]) -> list[DRule]:
    """``r(?x, #count(?y)) :- body`` → ``_hagN(?x, ?y) :- body`` and ``r(?x, ?n) :- _hagN(?x, _)``-grouped."""
    out: list[DRule] = []
    k = itertools.count(1)
    for r in rules:
        aggs = [(i, a) for i, a in enumerate(r.head.args) if isinstance(a, DAtom) and a.pred.startswith("__")]
        if not aggs:
            if any(isinstance(a, DAtom) for a in r.head.args):
                raise Unsupported("function terms in a head")
            out.append(r)
            continue
        if len(aggs) > 1:
            raise Unsupported("several aggregates in one head")
        i, agg = aggs[0]
        func = agg.pred[2:]
        if not agg.args or not all(isinstance(v, DVar) for v in agg.args):
            raise Unsupported("aggregate over an expression")
        group = [a for j, a in enumerate(r.head.args) if j != i]
        if not all(isinstance(g, DVar) for g in group):
            raise Unsupported("constants or expressions beside a head aggregate")
        n = next(k)
        proj = tuple(dict.fromkeys(group + list(agg.args)))
        out.append(DRule(DAtom(f"_hag{n}", proj), r.body))
        out.append(DRule(DAtom(f"_hag{n}g", tuple(dict.fromkeys(group))), (DAtom(f"_hag{n}", proj),)))
        target = DVar(f"_agg_target{n}")
        term = None if func == "count" else agg.args[0]
        head_args = tuple(target if j == i else a for j, a in enumerate(r.head.args))
        body = (DAtom(f"_hag{n}g", tuple(dict.fromkeys(group))),
                _assign(target, DAgg(func, term, ((DAtom(f"_hag{n}", proj),),))))
        out.append(DRule(DAtom(r.head.pred, head_args), body))
    return out


def _assign(target: DVar, agg: DAgg):
    from datalog_ir import DCmp

    return DCmp("=", target, agg)
