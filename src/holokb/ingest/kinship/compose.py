"""Composition of kinship relations by the rule file, for phrases that name an unnamed person on
the way ("his sister's son [K]": sibling then child).  The rule file decides what the path means,
exactly as it does for stated facts; a path it does not compose to exactly one relation states
nothing."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ...core import IRI


@lru_cache(maxsize=2)
def _program(rules: str):
    from ...analysis import analyze
    from ...syntax import parse_file

    return analyze(parse_file(Path(rules)))


@lru_cache(maxsize=4096)
def compose(path: tuple[str, ...], rules: str) -> tuple[str, ...]:
    """The relations (full IRIs) the rules derive from the first to the last person of ``path``
    (relation IRIs, each from one person to the next), sorted."""
    from ...engine import Database, closure

    if len(path) == 1:
        return path
    program = _program(rules)
    db = Database()
    people = [IRI(f"urn:holokb:kin:{i}") for i in range(len(path) + 1)]
    for i, rel in enumerate(path):
        db.add(rel, (people[i], people[i + 1]), key=i)
    model = closure(program, db)
    out = set()
    for (pred, negated) in model.relations:
        if not negated and model.contains(pred, (people[0], people[-1])):
            out.add(pred)
    return tuple(sorted(out))


@lru_cache(maxsize=256)
def inverse(relation: str, rules: str) -> str | None:
    """The one relation the rules derive back from ``relation`` (child → parent, sibling → sibling), or
    None when they derive none or several."""
    from ...engine import Database, closure

    db = Database()
    a, b = IRI("urn:holokb:kin:0"), IRI("urn:holokb:kin:1")
    db.add(relation, (a, b), key=0)
    model = closure(_program(rules), db)
    out = {pred for (pred, negated) in model.relations if not negated and model.contains(pred, (b, a))}
    return next(iter(out)) if len(out) == 1 else None
