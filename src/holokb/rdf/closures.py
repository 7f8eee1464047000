"""Stored closures as RDF: a full export carries derived facts with their proofs, and an import
restores them as stored closures (export → import → export is byte-identical).

Nodes (all in the default graph, IRIs content-derived so exports are deterministic):

* a closure ``hk:closure/<sha256 of rule-set hash and AsOf>`` with ``hk:ruleSet``, ``hk:ruleText``
  (the canonical rules, when the ledger kept them), ``hk:asOfSystem``, ``hk:asOfValid``,
  ``hk:computedAt``, and ``hk:truncated`` / ``hk:limitHit`` / ``hk:stale`` when they apply;
* a derived fact ``<closure>/d/<position>`` with ``hk:closure``, ``hk:predicate``, ``hk:arg0``,
  ``hk:arg1``, …, ``hk:validFrom`` / ``hk:validTo`` (absent = open), ``hk:negated true`` when
  negated, ``hk:rule``, ``hk:depth``, ``hk:score``, and its proof step: ``hk:premise0``, … (the
  asserted fact's ``hk:fact/<id>`` node, or another derived node of the same closure) and
  ``hk:binding0``, … (nodes ``<derived>/b/<i>`` with ``hk:key`` and ``hk:value``).

Derived facts are kept apart from asserted ones: they never become spans, and ``hk:current``
holds asserted triples only.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, Iterator

from ..core import MIN_TIME, AsOf, Interval
from ..core.limits import LimitHit
from ..core.premises import AssertedRef, DerivedRef
from ..core.terms import IRI, XSD_BOOLEAN, XSD_STRING, Literal, Term
from ..ledger.derived import DerivedRecord, StoredClosure
from . import vocab as V
from .parse import Quad

_TRUE = Literal("true", XSD_BOOLEAN)


def closure_iri(rule_set_hash: str, as_of: AsOf) -> IRI:
    """The closure node: content-derived from its key."""
    h = hashlib.sha256(f"{rule_set_hash}\x00{as_of.system}\x00{as_of.valid}".encode("utf-8")).hexdigest()
    return IRI(V.CLOSURE_NS + h)


def closure_quads(closures: Iterable[StoredClosure]) -> Iterator[Quad]:
    """The quads of every closure (unsorted; the serializer orders them)."""
    from .mapping import time_literal

    for c in closures:
        node = closure_iri(c.rule_set_hash, c.as_of)
        yield node, V.TYPE, V.CLOSURE_CLASS, None
        yield node, V.RULE_SET, Literal(c.rule_set_hash, XSD_STRING), None
        if c.rule_text is not None:
            yield node, V.RULE_TEXT, Literal(c.rule_text, XSD_STRING), None
        yield node, V.AS_OF_SYSTEM, time_literal(c.as_of.system), None
        yield node, V.AS_OF_VALID, time_literal(c.as_of.valid), None
        yield node, V.COMPUTED_AT, time_literal(c.computed_at), None
        if c.truncated:
            yield node, V.TRUNCATED, _TRUE, None
        if c.limit_hit is not None:
            yield node, V.LIMIT_HIT, Literal(str(c.limit_hit), XSD_STRING), None
        if c.stale:
            yield node, V.STALE, _TRUE, None
        for n, d in enumerate(c.derived):
            dn = IRI(f"{node.value}/d/{n}")
            yield dn, V.TYPE, V.DERIVED_CLASS, None
            yield dn, V.CLOSURE, node, None
            yield dn, V.PREDICATE, d.predicate, None
            for i, a in enumerate(d.args):
                yield dn, V.positional("arg", i), a, None
            if d.valid.start != MIN_TIME:
                yield dn, V.VALID_FROM, time_literal(d.valid.start), None
            if d.valid.end is not None:
                yield dn, V.VALID_TO, time_literal(d.valid.end), None
            if d.negated:
                yield dn, V.NEGATED, _TRUE, None
            yield dn, V.RULE, Literal(d.rule, XSD_STRING), None
            yield dn, V.DEPTH, Literal.of(d.depth), None
            if d.score is not None:
                yield dn, V.SCORE, Literal(repr(float(d.score)), V.XSD_DOUBLE), None
            for i, ref in enumerate(d.premises):
                target = IRI(f"{node.value}/d/{ref.seq}") if isinstance(ref, DerivedRef) else V.fact_iri(ref.fact_id)
                yield dn, V.positional("premise", i), target, None
            for i, (name, value) in enumerate(d.bindings):
                bn = IRI(f"{dn.value}/b/{i}")
                yield dn, V.positional("binding", i), bn, None
                yield bn, V.TYPE, V.BINDING_CLASS, None
                yield bn, V.KEY, Literal(name, XSD_STRING), None
                yield bn, V.VALUE, value, None


def closures_from_nodes(nodes: dict[IRI, dict[IRI, list[Term]]], ctx) -> list[StoredClosure]:
    """Rebuild the stored closures described by ``nodes`` (subject → property → values), sorted by key."""
    from .mapping import _one, _text, time_value

    out: list[StoredClosure] = []
    for node in sorted(nodes, key=lambda n: n.value):
        props = nodes[node]
        if V.CLOSURE_CLASS not in props.get(V.TYPE, ()):
            continue
        rule_set = _text(node, _one(node, props, V.RULE_SET, ctx), V.RULE_SET, ctx) or ""
        as_of = AsOf(time_value(_one(node, props, V.AS_OF_SYSTEM, ctx), ctx, "hk:asOfSystem", node, V.AS_OF_SYSTEM),
                     time_value(_one(node, props, V.AS_OF_VALID, ctx), ctx, "hk:asOfValid", node, V.AS_OF_VALID))
        if closure_iri(rule_set, as_of) != node:
            raise ctx.error(node, f"closure node {node} does not match its key (expected {closure_iri(rule_set, as_of)})",
                            V.RULE_SET)
        computed = time_value(_one(node, props, V.COMPUTED_AT, ctx), ctx, "hk:computedAt", node, V.COMPUTED_AT)
        limit_text = _text(node, _one(node, props, V.LIMIT_HIT, ctx, False), V.LIMIT_HIT, ctx)
        try:
            limit = None if limit_text is None else LimitHit(limit_text)
        except ValueError:
            raise ctx.error(node, f"hk:limitHit of {node} names no budget: {limit_text!r}", V.LIMIT_HIT) from None
        derived = _derived_of(node, nodes, ctx)
        out.append(StoredClosure(rule_set, as_of, computed, _flag(node, props, V.TRUNCATED, ctx), limit,
                                 _flag(node, props, V.STALE, ctx),
                                 _text(node, _one(node, props, V.RULE_TEXT, ctx, False), V.RULE_TEXT, ctx),
                                 tuple(derived)))
    return out


def _derived_of(closure: IRI, nodes: dict[IRI, dict[IRI, list[Term]]], ctx) -> list[DerivedRecord]:
    from .mapping import _interval, _iri, _one, _text

    prefix = closure.value + "/d/"
    found: dict[int, DerivedRecord] = {}
    for node, props in nodes.items():
        rest = node.value[len(prefix):] if node.value.startswith(prefix) else ""
        if not (rest.isdigit() and rest.isascii()):
            continue
        pred = _iri(node, _one(node, props, V.PREDICATE, ctx), V.PREDICATE, ctx)
        args = tuple(_positional(node, props, "arg", ctx))
        premises = []
        for p in _positional(node, props, "premise", ctx):
            p = _iri(node, p, V.positional("premise", len(premises)), ctx)
            seq = p.value[len(prefix):] if p.value.startswith(prefix) else ""
            if seq.isdigit() and seq.isascii():
                premises.append(DerivedRef(int(seq)))
            elif p.value.startswith(V.FACT_NS) and "/" not in p.value[len(V.FACT_NS):]:
                premises.append(AssertedRef(p.value[len(V.FACT_NS):]))
            else:
                raise ctx.error(node, f"premise {p} of {node} is neither a fact node nor a derived fact of its closure",
                                V.positional("premise", len(premises)))
        bindings = []
        for b in _positional(node, props, "binding", ctx):
            b = _iri(node, b, V.positional("binding", len(bindings)), ctx)
            bp = nodes.get(b)
            if bp is None:
                raise ctx.error(node, f"binding node {b} of {node} is not described", V.positional("binding", 0))
            bindings.append((_text(b, _one(b, bp, V.KEY, ctx), V.KEY, ctx) or "", _one(b, bp, V.VALUE, ctx)))
        depth = _one(node, props, V.DEPTH, ctx)
        score = _one(node, props, V.SCORE, ctx, False)
        if not isinstance(depth, Literal) or not isinstance(depth.value, int) or isinstance(depth.value, bool):
            raise ctx.error(node, f"hk:depth of {node} must be an integer, got {depth}", V.DEPTH)
        if score is not None and not (isinstance(score, Literal) and isinstance(score.value, (int, float))):
            raise ctx.error(node, f"hk:score of {node} must be a number, got {score}", V.SCORE)
        valid: Interval = _interval(node, props, V.VALID_FROM, V.VALID_TO, ctx, False)
        found[int(rest)] = DerivedRecord(
            pred, args, valid, _text(node, _one(node, props, V.RULE, ctx), V.RULE, ctx) or "", depth.value,
            None if score is None else float(score.value), _flag(node, props, V.NEGATED, ctx), tuple(premises),
            tuple(bindings))
    if sorted(found) != list(range(len(found))):
        raise ctx.error(closure, f"closure {closure} has derived facts at positions {sorted(found)[:5]}…, "
                        "not 0, 1, 2, …", V.CLOSURE)
    return [found[i] for i in range(len(found))]


def _positional(node: IRI, props: dict[IRI, list[Term]], name: str, ctx) -> list[Term]:
    from .mapping import _one

    out = []
    while True:
        prop = V.positional(name, len(out))
        if prop not in props:
            return out
        out.append(_one(node, props, prop, ctx))


def _flag(node: IRI, props: dict[IRI, list[Term]], prop: IRI, ctx) -> bool:
    from .mapping import _one

    v = _one(node, props, prop, ctx, False)
    if v is None:
        return False
    if not (isinstance(v, Literal) and isinstance(v.value, bool)):
        raise ctx.error(node, f"{prop} of {node} must be true or false, got {v}", prop)
    return v.value
