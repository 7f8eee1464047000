"""Soufflé test I/O: ``.facts`` inputs (TSV per ``.input`` options) and expected ``.csv`` outputs."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from datalog_ir import DConst, Unsupported, number_text
from souffle_translate import SouffleProgram, _number, parse_souffle


def read_cell(text: str, kind: str) -> DConst:
    """One TSV cell of a column of ``kind``."""
    if kind == "sym":
        return DConst("sym", text)
    try:
        if kind == "float":
            return DConst("float", float(text))
        return _number(text.strip())
    except ValueError:
        raise Unsupported(f"input cell {text!r} is not a {kind}") from None


def read_record(text: str, type_name: str | None, records) -> DConst:
    """A record cell as Soufflé writes one (``[a, [1, nil]]``, symbols bare) as a record value, its
    fields read by the record type's field types."""
    from holokb.core import IRI
    from holokb.core.functions import NIL, apply_call
    from datalog_ir import term_of

    def parse(s: str, tname: str | None):
        s = s.strip()
        if s == "nil":
            return NIL
        if s.startswith("$"):  # an ADT value: $Branch or $Branch(fields)
            branch, _, inner = s[1:].partition("(")
            key = "adt:" + branch.strip()
            if records is None or key not in records.fields:
                raise Unsupported(f"ADT cell {text!r} not understood")
            return _fields(inner[:-1] if inner else "", records.fields[key][1:], [IRI(key)])
        if not (s.startswith("[") and s.endswith("]")) or records is None or tname not in records.fields:
            raise Unsupported(f"record cell {text!r} not understood")
        return _fields(s[1:-1], records.fields[tname], [])

    def _fields(inner: str, ftypes: list, head: list):
        parts, depth, cur = [], 0, ""
        for ch in inner:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += (ch in "[(") - (ch in "])")
            cur += ch
        if cur.strip() or parts:
            parts.append(cur)
        if len(parts) != len(ftypes):
            raise Unsupported(f"record cell {text!r}: {len(parts)} fields, not {len(ftypes)}")
        fields = list(head)
        for p, ft in zip(parts, ftypes):
            kind = records.kind(ft)
            fields.append(parse(p, ft) if kind == "rec" else term_of(read_cell(p.strip(), kind or "sym")))
        return apply_call("record", tuple(fields))

    return DConst("rec", parse(text, type_name))


def load_case(test_dir: Path) -> tuple[SouffleProgram, dict[str, Path]]:
    """Parse ``<test>.dl``, load its ``.input`` facts; returns the program and the expected files."""
    name = test_dir.name
    sp = parse_souffle((test_dir / f"{name}.dl").read_text(encoding="utf-8", errors="replace"))
    prog = sp.program
    for rel, opts in sp.inputs.items():
        if opts.get("IO", "file") != "file" or opts.get("rfc4180") or opts.get("headers") == "true":
            raise Unsupported(f"input IO {opts}")
        path = test_dir / "facts" / opts.get("filename", f"{rel}.facts")
        if not path.is_file():
            raise Unsupported(f"input file {path.name} missing")
        delim = opts.get("delimiter", "\t").encode().decode("unicode_escape")
        kinds = sp.types[rel]
        rows = prog.facts.setdefault(rel, [])
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line and len(kinds) != 0 and len(kinds) != 1:
                continue
            cells = line.split(delim) if kinds else []
            if len(cells) != len(kinds):
                raise Unsupported(f"input row of {rel} has {len(cells)} cells, not {len(kinds)}")
            tnames = sp.records.columns.get(rel, [None] * len(kinds)) if sp.records else [None] * len(kinds)
            rows.append(tuple(read_record(c, t, sp.records) if k == "rec" else read_cell(c, k)
                              for c, k, t in zip(cells, kinds, tnames)))
    expected: dict[str, Path] = {}
    for rel, opts in sp.outputs.items():
        if opts.get("IO", "file") != "file" or opts.get("headers") == "true" or opts.get("attributeNames"):
            raise Unsupported(f"output IO {opts}")
        if opts.get("delimiter") or opts.get("rfc4180"):
            raise Unsupported("output with a custom delimiter")
        expected[rel] = test_dir / Path(opts.get("filename", f"{rel}.csv")).name
    return sp, expected


def read_expected(path: Path, kinds: list[str]):
    """The rows of an expected ``.csv`` (TSV) as a Counter of normalised tuples."""
    rows = Counter()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not kinds:
            rows[()] += 1
            continue
        cells = line.split("\t")
        rows[normalise_cells(cells, kinds)] += 1
    return rows


def normalise_cells(cells, kinds: list[str]) -> tuple:
    """Numbers canonical per column kind; symbols verbatim."""
    out = []
    for c, k in zip(cells, kinds):
        out.append(c if k == "sym" else (number_text(c) or c))
    return tuple(out) + tuple(cells[len(kinds):])
