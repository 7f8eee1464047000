"""Engine tests in the rule language: programs are rule text, checked by the real analysis.

``rules("rule r: ex:p(?x) :- ex:q(?x).")`` → a checked Program (``ex:`` is http://ex.org/; unary
atoms stay unary, ``rdf_types=False``), ``query("ex:p(?x)", prog)`` → its Query, ``facts(...)``
→ a Database from ground facts written in the language.  Facts that need a validity interval,
a key or a confidence are added with ``Database.add`` in the test itself.
"""
from __future__ import annotations

from holokb.analysis import Program, Query, analyze
from holokb.core import IRI
from holokb.engine import Database
from holokb.syntax import parse_rules

EX = "http://ex.org/"
PREFIX = "@prefix ex: <http://ex.org/> .\n"


def rules(text: str) -> Program:
    return analyze(parse_rules(PREFIX + text), rdf_types=False)


def query(text: str, program: Program | None = None) -> Query:
    t = text.strip().removesuffix(".")
    known = None if program is None else {r.head.predicate: r.head.arity for r in program.rules}
    return analyze(parse_rules(PREFIX + f"?- {t}."), rdf_types=False, known_predicates=known).queries[0]


def facts(text: str, db: Database | None = None) -> Database:
    db = db if db is not None else Database()
    for f in rules(text).facts:
        db.add(f.predicate, tuple(a.term for a in f.args), negated=f.negated)
    return db


def iri(name: str) -> IRI:
    return IRI(EX + name)


def names(rows) -> set:
    """Rows of IRIs/literals → tuples of local names / python values."""
    out = set()
    for r in rows:
        out.add(tuple(x.value[len(EX):] if isinstance(x, IRI) else x.value for x in r))
    return out


TC = """
rule base: ex:path(?x, ?y) :- ex:edge(?x, ?y).
rule step: ex:path(?x, ?z) :- ex:path(?x, ?y), ex:edge(?y, ?z).
"""


def tc_program() -> Program:
    return rules(TC)


def chain(n: int, db: Database | None = None, *, pred: str = "edge") -> Database:
    db = db or Database()
    for i in range(n):
        db.add(EX + pred, (iri(f"n{i}"), iri(f"n{i + 1}")))
    return db
