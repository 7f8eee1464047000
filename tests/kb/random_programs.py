"""Random stratified rule programs with negation and aggregates over random facts, for the
differential tests of prove / check --consistency against the engine's closure (hypothesis).

Imported by name (tests folders are not packages).  Programs are rule-language text; those the
analysis rejects (a cycle through `not` or an aggregate) are discarded by the caller.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path

from hypothesis import strategies as st

PREFIX = "@prefix ex: <http://example.org/> .\n"
CONSTANTS = ("a", "b", "c")
NUMBERS = (1, 2, 3)
EDB_BINARY = ("e", "f")
EDB_CLASS = ("g",)
IDB_BINARY = ("i0", "i1", "c0")
IDB_CLASS = ("u0", "u1")
CLASSES = EDB_CLASS + IDB_CLASS
BINARY = EDB_BINARY + IDB_BINARY


@st.composite
def rule(draw, n: int) -> str:
    """One rule: a first atom binding ?x (and ?y), maybe a join, maybe a `not`, a head over bound variables."""
    if draw(st.integers(0, 4)) == 0:
        cls = draw(st.sampled_from(CLASSES))
        func = draw(st.sampled_from(("count", "sum", "min", "max")))
        inner = "?y : ex:e(?x, ?y)" if func == "count" else "?k : ex:v(?x, ?k)"
        return f"rule r{n}: ex:c0(?x, ?n) :- ex:{cls}(?x), ?n = {func}({inner}).\n"
    body, bound = [], ["x"]
    if draw(st.booleans()):
        body.append(f"ex:{draw(st.sampled_from(BINARY))}(?x, ?y)")
        bound.append("y")
        if draw(st.booleans()):
            body.append(f"ex:{draw(st.sampled_from(BINARY))}(?y, ?z)")
            bound.append("z")
    else:
        body.append(f"ex:{draw(st.sampled_from(CLASSES))}(?x)")
    neg = draw(st.sampled_from(("none", "class", "binary", "binary_any")))
    v = draw(st.sampled_from(bound))
    if neg == "class":
        body.append(f"not ex:{draw(st.sampled_from(CLASSES))}(?{v})")
    elif neg == "binary":
        w = draw(st.sampled_from(bound))
        body.append(f"not ex:{draw(st.sampled_from(BINARY))}(?{v}, ?{w})")
    elif neg == "binary_any":
        body.append(f"not ex:{draw(st.sampled_from(BINARY))}(?{v}, ?_)")
    if draw(st.booleans()):
        head = f"ex:{draw(st.sampled_from(IDB_CLASS))}(?{draw(st.sampled_from(bound))})"
    else:
        head = (f"ex:{draw(st.sampled_from(IDB_BINARY[:2]))}"
                f"(?{draw(st.sampled_from(bound))}, ?{draw(st.sampled_from(bound))})")
    return f"rule r{n}: {head} :- {', '.join(body)}.\n"


@st.composite
def program_text(draw) -> str:
    n = draw(st.integers(1, 5))
    return PREFIX + "".join(draw(rule(k)) for k in range(n))


@st.composite
def facts(draw) -> tuple[tuple[str, str, object], ...]:
    """(subject, predicate, object) with predicate e/f (IRI objects), g (class membership), v (numbers)."""
    pairs = st.tuples(st.sampled_from(CONSTANTS), st.sampled_from(CONSTANTS))
    out = [(s, p, o) for p in EDB_BINARY for s, o in draw(st.sets(pairs, max_size=4))]
    out += [(s, "a", "g") for s in draw(st.sets(st.sampled_from(CONSTANTS), max_size=3))]
    out += [(s, "v", k) for s, k in draw(st.sets(st.tuples(st.sampled_from(CONSTANTS), st.sampled_from(NUMBERS)),
                                                 max_size=3))]
    return tuple(sorted(out, key=repr))


def turtle(rows) -> str:
    lines = [PREFIX]
    for s, p, o in rows:
        if p == "a":
            lines.append(f"ex:{s} a ex:{o} .\n")
        elif isinstance(o, int):
            lines.append(f"ex:{s} ex:{p} {o} .\n")
        else:
            lines.append(f"ex:{s} ex:{p} ex:{o} .\n")
    return "".join(lines)


def candidate_goals() -> list[str]:
    """Every ground atom of the IDB (and some EDB) relations over the constants (and small counts)."""
    out = [f"ex:{c}(ex:{x})" for c in IDB_CLASS + EDB_CLASS for x in CONSTANTS]
    out += [f"ex:{p}(ex:{x}, ex:{y})" for p in IDB_BINARY[:2] + EDB_BINARY for x in CONSTANTS for y in CONSTANTS]
    out += [f"ex:c0(ex:{x}, {k})" for x in CONSTANTS for k in range(0, 7)]
    return out


def goal_text(pred: str, args, negated: bool) -> str:
    """A derived fact (predicate IRI, args, polarity) written as a ground goal for prove/explain."""
    from holokb.core import IRI, RDF_TYPE

    def term(t):
        return f"<{t.value}>" if isinstance(t, IRI) else str(t.value)

    if pred == RDF_TYPE:
        return f"{'not ' if negated else ''}<{args[1].value}>({term(args[0])})"
    return f"{'not ' if negated else ''}<{pred}>({', '.join(term(a) for a in args)})"


def analysed(text: str):
    """The checked program of ``text``; a program the analysis rejects (a cycle through `not` or an
    aggregate: not stratified) is discarded as an example."""
    from hypothesis import assume

    from holokb.analysis import analyze
    from holokb.core import HolokbError
    from holokb.syntax import parse_rules

    try:
        return analyze(parse_rules(text))
    except HolokbError:
        assume(False)


@contextmanager
def loaded_kb(name: str, text: str, *, at: int, load: bool = True):
    """A fresh knowledge base in a temporary folder, with ``text`` written to file ``name`` and
    loaded at system time ``at`` (unless ``load`` is false: an empty file is not valid input)."""
    from holokb.kb import KnowledgeBase

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / name
        f.write_text(text)
        with KnowledgeBase.open(Path(d) / "kb.db") as kb:
            if load:
                kb.load([f], at=at)
            yield kb
