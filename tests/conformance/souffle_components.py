"""Soufflé components (``.comp`` / ``.init`` / ``.override``) expanded into plain Soufflé tokens.

A component is a template; ``.init x = C<T…>`` makes an instance whose relations and types are
named ``x.<name>`` (nested instances ``x.y.<name>``).  Inside an instance a name resolves to the
innermost scope that declares it (a relation or type of the instance, or of a nested instance
named by its first segment), else to the enclosing instance's scope, else to the program's own.
A component inherits the items of its bases (``.comp B : A<T>``); ``.override R`` drops the
clauses of ``R`` that a base states directly (not those of instances the base makes).  Type
parameters are replaced in type positions only (attribute types, ``.type`` right-hand sides,
component arguments).  The expansion runs on tokens, before the translator parses anything, so
every clause keeps its own syntax; what it cannot place raises :class:`Unsupported`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from datalog_ir import Unsupported

_CLOSE = {"(": ")", "[": "]", "{": "}"}


@dataclass
class _Template:
    name: str
    params: list[str]
    bases: list[tuple[str, list[str]]]  # (component name, argument type names)
    body: list  # tokens between the braces
    outer: "_Templates"  # the templates visible where it was defined


@dataclass
class _Templates:
    defs: dict[str, _Template] = field(default_factory=dict)
    parent: "_Templates | None" = None

    def find(self, name: str) -> _Template:
        t: _Templates | None = self
        while t is not None:
            if name in t.defs:
                return t.defs[name]
            t = t.parent
        raise Unsupported(f"component {name} is not defined")


@dataclass
class _Scope:
    prefix: str
    relations: set[str]
    types: set[str]
    instances: set[str]
    params: dict[str, str]  # type parameter -> resolved type name
    parent: "_Scope | None"

    def relation(self, name: str) -> str:
        s: _Scope | None = self
        while s is not None:
            if name in s.relations or name.split(".", 1)[0] in s.instances:
                return s.prefix + name
            s = s.parent
        return name

    def type(self, name: str) -> str:
        s: _Scope | None = self
        while s is not None:
            if name in s.params:
                return s.params[name]
            if name in s.types:
                return s.prefix + name
            s = s.parent
        return name


def has_components(toks: list) -> bool:
    return any(t.kind == "dir" and t.text in (".comp", ".init") for t in toks)


def expand(toks: list) -> list:
    """``toks`` (ending with an eof token) with every component instantiated and the
    definitions removed."""
    eof = toks[-1]
    items = _items(toks[:-1])
    templates = _Templates()
    top = _Scope("", set(), set(), set(), {}, None)
    out: list = []
    for kind, item in items:
        if kind == "comp":
            templates.defs[item[1].text] = _template(item, templates)
        elif kind == "init":
            _instance(item, top, templates, out)
        elif kind == "override":
            raise Unsupported(".override outside a component")
        else:
            out.extend(item)
    return out + [eof]


# -- splitting a token list into items -------------------------------------------------------------
def _match(toks: list, i: int) -> int:
    """The index just past the bracket that closes the one at ``i``."""
    opener, depth = toks[i].text, 0
    closer = _CLOSE[opener]
    for k in range(i, len(toks)):
        t = toks[k]
        if t.kind == "op" and t.text == opener:
            depth += 1
        elif t.kind == "op" and t.text == closer:
            depth -= 1
            if depth == 0:
                return k + 1
    raise Unsupported(f"unbalanced {opener!r} in a component")


def _items(toks: list) -> list[tuple[str, list]]:
    """(kind, tokens) per item: comp, init, override, decl, type, io, other directive, clause."""
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "dir" and t.text == ".comp":
            k = i + 1
            while k < len(toks) and not (toks[k].kind == "op" and toks[k].text == "{"):
                k += 1
            if k == len(toks):
                raise Unsupported("component without a body")
            end = _match(toks, k)
            out.append(("comp", toks[i:end]))
            i = end
        elif t.kind == "dir" and t.text == ".init":
            end = i + 4  # .init x = C
            if end < len(toks) and toks[end].kind == "op" and toks[end].text == "<":
                end = _angle(toks, end)
            out.append(("init", toks[i:end]))
            i = end
        elif t.kind == "dir" and t.text == ".override":
            out.append(("override", toks[i:i + 2]))
            i += 2
        elif t.kind == "dir":
            end = _directive_end(toks, i)
            kind = {".decl": "decl", ".type": "type", ".input": "io", ".output": "io", ".printsize": "io"}.get(t.text,
                                                                                                                "other")
            out.append((kind, toks[i:end]))
            i = end
        else:
            end = _clause_end(toks, i)
            out.append(("clause", toks[i:end]))
            i = end
    return out


def _angle(toks: list, i: int) -> int:
    depth = 0
    for k in range(i, len(toks)):
        if toks[k].text == "<":
            depth += 1
        elif toks[k].text == ">":
            depth -= 1
            if depth == 0:
                return k + 1
    raise Unsupported("unbalanced '<' in component arguments")


def _clause_end(toks: list, i: int) -> int:
    k = i
    while k < len(toks):
        t = toks[k]
        if t.kind == "op" and t.text in _CLOSE:
            k = _match(toks, k)
            continue
        if t.kind == "op" and t.text == ".":
            return k + 1
        if t.kind == "dir" and k > i:
            raise Unsupported("clause without its final '.' in a component")
        k += 1
    raise Unsupported("clause without its final '.' in a component")


def _directive_end(toks: list, i: int) -> int:
    """The end of a directive: ``.decl`` names, attributes and qualifiers; ``.type`` definitions;
    ``.input``/``.output`` names and options; other directives up to the next directive or clause."""
    d, k = toks[i].text, i + 1
    if d == ".decl":
        while k < len(toks) and not (toks[k].kind == "op" and toks[k].text == "("):
            k += 1
        k = _match(toks, k)
        while k < len(toks) and toks[k].kind == "id" and toks[k].text not in ("choice",) and _qualifier(toks, k):
            k += 1
        return k
    if d == ".type":
        k += 1  # the name
        if k < len(toks) and toks[k].text == "<:":
            return k + 2
        if k < len(toks) and toks[k].text == "=":
            k += 1
            if k < len(toks) and toks[k].text == "[":
                return _match(toks, k)
            while k < len(toks):
                k += 1  # a type or branch name
                if k < len(toks) and toks[k].text == "{":
                    k = _match(toks, k)
                if k < len(toks) and toks[k].text == "|":
                    k += 1
                    continue
                return k
        return k
    if d in (".input", ".output", ".printsize"):
        k += 1
        while k + 1 < len(toks) and toks[k].text == ",":
            k += 2
        if k < len(toks) and toks[k].text == "(" and toks[k - 1].kind == "id":
            k = _match(toks, k)
        return k
    # .pragma "…" "…", .plan 1:(2,1), …: strings, numbers and the punctuation of a plan
    while k < len(toks) and (toks[k].kind in ("str", "num") or toks[k].text in (":", "(", ")", ",")):
        k += 1
    return k


def _qualifier(toks: list, k: int) -> bool:
    from souffle_translate import _QUALIFIERS

    return toks[k].text in _QUALIFIERS


# -- emitting an instance --------------------------------------------------------------------------
def _template(item: list, outer: _Templates) -> _Template:
    name = item[1].text
    k, params, bases = 2, [], []
    if item[k].text == "<":
        end = _angle(item, k)
        params = [t.text for t in item[k + 1:end - 1] if t.kind == "id"]
        k = end
    if item[k].text == ":":
        k += 1
        while item[k].text != "{":
            base = item[k].text
            k += 1
            args: list[str] = []
            if item[k].text == "<":
                end = _angle(item, k)
                args = [t.text for t in item[k + 1:end - 1] if t.kind == "id"]
                k = end
            bases.append((base, args))
            if item[k].text == ",":
                k += 1
    return _Template(name, params, bases, item[k + 1:-1], outer)


def _collect(tpl: _Template, args: list[str], scope_params: dict[str, str], overrides: frozenset) -> list:
    """(kind, tokens, params, templates, from_base) of the instance's items: its bases' (their
    clauses of overridden relations dropped), then its own."""
    if len(args) != len(tpl.params):
        raise Unsupported(f"component {tpl.name} takes {len(tpl.params)} type argument(s)")
    params = dict(zip(tpl.params, args))
    own = _items(tpl.body)
    mine = {it[1].text for kind, it in own if kind == "override"}
    local = _Templates(parent=tpl.outer)
    out = []
    for base, bargs in tpl.bases:
        btpl = tpl.outer.find(base)
        resolved = [params.get(a, scope_params.get(a, a)) for a in bargs]
        for kind, toks, p, t, _ in _collect(btpl, resolved, scope_params, frozenset(mine) | overrides):
            out.append((kind, toks, p, t, True))
    for kind, toks in own:
        if kind == "comp":
            local.defs[toks[1].text] = _template(toks, local)
        out.append((kind, toks, params, local, False))
    if overrides:  # an overridden relation's clauses stated directly in this (base) component go
        out = [o for o in out if not (o[0] == "clause" and not o[4] and _head(o[1]) in overrides)]
    return out


def _head(toks: list) -> str:
    return toks[0].text if toks and toks[0].kind == "id" else ""


def _instance(init: list, scope: _Scope, templates: _Templates, out: list) -> None:
    name, comp = init[1].text, init[3].text
    args = [scope.type(t.text) for t in init[5:-1] if t.kind == "id"] if len(init) > 4 else []
    tpl = templates.find(comp)
    items = _collect(tpl, args, scope.params, frozenset())
    prefix = scope.prefix + name + "."
    relations = {t.text for kind, toks, *_ in items if kind == "decl" for t in _decl_names(toks)}
    types = {toks[1].text for kind, toks, *_ in items if kind == "type"}
    instances = {toks[1].text for kind, toks, *_ in items if kind == "init"}
    scope.instances.add(name)
    for kind, toks, params, local, _ in items:
        inner = _Scope(prefix, relations, types, instances, params, scope)
        if kind == "init":
            _instance(toks, inner, local, out)
        elif kind in ("comp", "override"):
            continue
        elif kind == "decl":
            out.extend(_rename_decl(toks, inner))
        elif kind == "type":
            out.extend(_rename_type(toks, inner))
        elif kind == "io":
            out.extend(_rename_io(toks, inner))
        elif kind == "clause":
            out.extend(_rename_clause(toks, inner))
        else:
            raise Unsupported(f"directive {toks[0].text} inside a component")


def _renamed(t, text: str):
    return type(t)(t.kind, text, t.pos)


def _decl_names(toks: list) -> list:
    out, k = [], 1
    while toks[k].kind == "id":
        out.append(toks[k])
        k += 1
        if toks[k].text == ",":
            k += 1
    return out


def _rename_decl(toks: list, scope: _Scope) -> list:
    out, k = [toks[0]], 1
    while toks[k].text != "(":
        t = toks[k]
        out.append(_renamed(t, scope.prefix + t.text) if t.kind == "id" else t)
        k += 1
    end = _match(toks, k)
    for j in range(k, end):
        t = toks[j]
        out.append(_renamed(t, scope.type(t.text)) if t.kind == "id" and toks[j - 1].text == ":" else t)
    return out + toks[end:]


def _rename_type(toks: list, scope: _Scope) -> list:
    out = [toks[0], _renamed(toks[1], scope.prefix + toks[1].text)]
    for j in range(2, len(toks)):
        t = toks[j]
        ref = t.kind == "id" and toks[j - 1].text in ("<:", "=", "|", ":")
        out.append(_renamed(t, scope.type(t.text)) if ref else t)
    return out


def _rename_io(toks: list, scope: _Scope) -> list:
    out = [toks[0]]
    for j in range(1, len(toks)):
        t = toks[j]
        name = t.kind == "id" and toks[j - 1].text in (toks[0].text, ",") and _outside_parens(toks, j)
        out.append(_renamed(t, scope.relation(t.text)) if name else t)
    return out


def _outside_parens(toks: list, j: int) -> bool:
    depth = 0
    for t in toks[:j]:
        depth += t.text == "(" and t.kind == "op"
        depth -= t.text == ")" and t.kind == "op"
    return depth == 0


def _rename_clause(toks: list, scope: _Scope) -> list:
    out = []
    for j, t in enumerate(toks):
        atom = t.kind == "id" and j + 1 < len(toks) and toks[j + 1].kind == "op" and toks[j + 1].text == "("
        out.append(_renamed(t, scope.relation(t.text)) if atom else t)
    return out
