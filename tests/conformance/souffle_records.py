"""Soufflé records in rule bodies → holokb's record values (``record(…)``, ``field(?r, ?i)``).

A record written as an atom's argument is a pattern: ``s([x, r])`` becomes ``s(R), x = field(R, 0),
r = field(R, 1)`` (nested patterns through fresh variables, ``_`` skipped, constants compared).
Under negation, and in a comparison whose variables are all bound elsewhere, a record is built
instead (``R = record(x, y)``); ``v = [x, y]`` with only ``v`` bound destructures ``v``.  What can
be neither (a negated pattern with a variable bound nowhere) raises :class:`Unsupported`.
Heads keep ``record(…)`` expressions: the emitter binds them like any head expression.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from datalog_ir import DAgg, DAtom, DBin, DCall, DCmp, DConst, DNeg, DVar, Unsupported, groundings, map_children

NIL = DConst("rec", "nil")
#: An ADT value is a record whose field 0 is the IRI <adt:Branch> (DConst kind "adt"); its branch's
#: field types are kept under "adt:Branch" in :attr:`RecordTypes.fields`.
ADT_PREFIX = "adt:"


@dataclass
class RecordTypes:
    """Column type names per relation and field type names per record type (to type the fields)."""

    columns: dict[str, list[str]] = field(default_factory=dict)
    fields: dict[str, list[str]] = field(default_factory=dict)
    kinds: dict[str, str | None] = field(default_factory=dict)  # type name -> int/float/sym/rec

    def kind(self, type_name: str | None) -> str | None:
        return None if type_name is None else self.kinds.get(type_name)


_fresh = itertools.count(1)


def is_record(e) -> bool:
    return isinstance(e, DCall) and e.func == "record"


def has_records(items) -> bool:
    return any(_mentions(it) for it in items)


def _mentions(x) -> bool:
    if is_record(x) or x == NIL:
        return True
    if isinstance(x, DAtom):
        return any(_mentions(a) for a in x.args)
    if isinstance(x, DNeg):
        return _mentions(x.atom)
    if isinstance(x, DCmp):
        return _mentions(x.left) or _mentions(x.right)
    if isinstance(x, DBin):
        return _mentions(x.left) or _mentions(x.right)
    if isinstance(x, DCall):
        return any(_mentions(a) for a in x.args)
    if isinstance(x, DAgg):
        return any(_mentions(i) for conj in x.body for i in conj)
    return False


def expand(body: tuple, info: RecordTypes) -> tuple[tuple, dict[str, str]]:
    """The body with record patterns read through ``field``; the kinds the fields give variables."""
    kinds: dict[str, str] = {}
    out: list = []
    for it in body:
        if isinstance(it, DAtom):
            out.extend(_atom(it, info, kinds))
        else:
            out.append(it)
    bound = _bound(out)
    final: list = []
    for it in out:
        if isinstance(it, DNeg) and any(is_record(a) for a in it.atom.args):
            final.extend(_built_negation(it, bound))
        elif isinstance(it, DCmp) and it.op == "=" and (is_record(it.left) or is_record(it.right)):
            final.extend(_equality(it, bound, kinds))
        elif isinstance(it, DCmp):
            final.append(DCmp(it.op, _aggregates(it.left, info), _aggregates(it.right, info)))
        else:
            final.append(it)
    return tuple(final), kinds


def _aggregates(e, info: RecordTypes):
    if isinstance(e, DAgg):
        return DAgg(e.func, e.term, tuple(expand(conj, info)[0] for conj in e.body))
    return map_children(e, lambda c: _aggregates(c, info)) if isinstance(e, (DBin, DCall)) else e


def _atom(a: DAtom, info: RecordTypes, kinds: dict[str, str]) -> list:
    cols = info.columns.get(a.pred, [None] * len(a.args))
    args, reads = [], []
    for t, tname in zip(a.args, cols):
        if is_record(t):
            v = DVar(f"rec_{next(_fresh)}")
            args.append(v)
            reads.extend(_destructure(v, t, tname, info, kinds))
        else:
            args.append(t)
    return [DAtom(a.pred, tuple(args)), *reads]


def _destructure(v: DVar, pattern: DCall, tname: str | None, info: RecordTypes, kinds: dict[str, str]) -> list:
    tag = pattern.args[0] if pattern.args and isinstance(pattern.args[0], DConst) and pattern.args[0].kind == "adt" else None
    if tag is not None:
        tname = ADT_PREFIX + tag.value
    ftypes = info.fields.get(tname or "", [None] * len(pattern.args))
    if len(ftypes) != len(pattern.args):
        raise Unsupported("record pattern of another arity than its type")
    out: list = []
    for i, (sub, ftype) in enumerate(zip(pattern.args, ftypes)):
        read = DCall("field", (v, DConst("int", i)))
        if isinstance(sub, DVar):
            if sub.name == "_":
                continue
            out.append(DCmp("=", sub, read))
            k = info.kind(ftype)
            if k is not None:
                kinds.setdefault(sub.name, k)
        elif is_record(sub):
            w = DVar(f"rec_{next(_fresh)}")
            out.append(DCmp("=", w, read))
            out.extend(_destructure(w, sub, ftype, info, kinds))
        else:
            out.append(DCmp("=", read, sub))
    return out


def _bound(items) -> set[str]:
    """Variables bound by positive atoms and by ``v = expr`` of bound variables (to a fixpoint)."""
    bound = {a.name for it in items if isinstance(it, DAtom) for a in it.args if isinstance(a, DVar)}
    return bound | {v for v, _ in groundings(items, bound)}


def _vars(e) -> set[str]:
    if isinstance(e, DVar):
        return {e.name} - {"_"}
    if isinstance(e, (DBin,)):
        return _vars(e.left) | _vars(e.right)
    if isinstance(e, DCall):
        return set().union(*(_vars(a) for a in e.args)) if e.args else set()
    return set()


def _anonymous(e) -> bool:
    """Whether ``e`` holds ``_`` (a pattern that matches, never a value that can be built)."""
    if isinstance(e, DVar):
        return e.name == "_"
    if isinstance(e, DCall):
        return any(_anonymous(a) for a in e.args)
    if isinstance(e, DBin):
        return _anonymous(e.left) or _anonymous(e.right)
    return False


def _built_negation(it: DNeg, bound: set[str]) -> list:
    pre, args = [], []
    for t in it.atom.args:
        if is_record(t):
            if not _vars(t) <= bound:
                raise Unsupported("negated record pattern with a variable bound nowhere else")
            v = DVar(f"rec_{next(_fresh)}")
            pre.append(DCmp("=", v, t))
            args.append(v)
        else:
            args.append(t)
    return [*pre, DNeg(DAtom(it.atom.pred, tuple(args)))]


def _equality(it: DCmp, bound: set[str], kinds: dict[str, str]) -> list:
    left, right = it.left, it.right
    if _vars(left) | _vars(right) <= bound and not (_anonymous(left) or _anonymous(right)):
        return [it]  # everything known: build and compare
    if is_record(right) and isinstance(left, DVar) and left.name in bound:
        return _destructure(left, right, None, RecordTypes(), kinds)
    if is_record(left) and isinstance(right, DVar) and right.name in bound:
        return _destructure(right, left, None, RecordTypes(), kinds)
    raise Unsupported("record equality with unbound variables on both sides")
