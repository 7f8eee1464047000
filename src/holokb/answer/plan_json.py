"""QueryPlan ⇄ JSON (``holokb answer --plan plan.json``), strict, with coded diagnostics.

Every problem in a plan file becomes one :class:`Diagnostic` naming the JSON path; all are
collected and raised once as :class:`PlanError`.  Codes:

========  ============================================================
HK801     not JSON (with line and column)
HK802     a value of the wrong JSON type
HK803     an unknown field (plans are strict so typos are not ignored)
HK804     a required field is missing
HK805     a value that is not allowed (bad variable, IRI, literal, enum word)
HK806     the plan is too large or nested too deeply
========  ============================================================

Terms are written as JSON strings — ``"?x"`` a variable, ``"<http://…>"`` an IRI, anything else
a :class:`Name` resolved at answer time — or as JSON numbers and booleans (typed literals), or
as objects: ``{"iri": "…"}``, ``{"duration": "PT15M"}``, ``{"dateTime": "…"}``, ``{"date": "…"}``,
``{"value": "…", "datatype": "…", "lang": "…"}``.  The shipped schema is ``plan.schema.json``.

>>> p = plan_from_json('{"predicates": ["expires after"], "params": {"inactivityMinutes": 20}}')
>>> p.param("inactivityMinutes").value
20
>>> plan_from_json(plan_to_json(p)) == p
True
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from ..analysis.program import Const, Var
from ..core.errors import Diagnostic, DiagnosticError, InvalidValueError, Location
from ..core.terms import (
    IRI, XSD_BOOLEAN, XSD_DATE, XSD_DATETIME, XSD_DECIMAL, XSD_DURATION, XSD_INTEGER, XSD_STRING, Literal,
)
from ..core.time import parse_instant
from .plan import (
    AnswerForm, Check, Name, Param, Pattern, PlanTerm, QueryPlan, Compare, TimeKind, TimeRef, TimeUnit, World,
    YesWhen,
)

PLAN_FORMAT = 1
#: Largest plan text accepted (a plan is a handful of fields; megabytes are a mistake or an attack).
MAX_PLAN_BYTES = 1_000_000
MAX_ITEMS = 1000
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class PlanError(DiagnosticError):
    """A plan (JSON or typed) was rejected; ``diagnostics`` holds every problem found."""

    def __str__(self) -> str:
        return self.render()


class _Reader:
    """Walks the JSON value, converting what is valid and noting what is not."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.diags: list[Diagnostic] = []

    def err(self, path: str, code: str, message: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(code, f"{path}: {message}", Location(self.source, 1, 1), hint=hint))

    def expect(self, path: str, v: Any, types: tuple[type, ...], what: str) -> bool:
        if isinstance(v, bool) and bool not in types:
            ok = False
        else:
            ok = isinstance(v, types)
        if not ok:
            self.err(path, "HK802", f"expected {what}, got {_json_type(v)}")
        return ok

    def fields(self, path: str, obj: dict, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
        for k in sorted(obj):
            if k not in allowed:
                self.err(f"{path}.{k}", "HK803", "unknown field", hint=f"allowed fields: {', '.join(allowed)}")
        for k in required:
            if k not in obj:
                self.err(path, "HK804", f"missing required field {k!r}")

    def enum(self, path: str, v: Any, cls):
        if not self.expect(path, v, (str,), "a string"):
            return None
        for m in cls:
            if m.value == v:
                return m
        self.err(path, "HK805", f"{v[:40]!r} is not one of {', '.join(m.value for m in cls)}")
        return None

    # -- terms ----------------------------------------------------------------------------------

    def term(self, path: str, v: Any) -> PlanTerm | None:
        if isinstance(v, str):
            if v.startswith("?"):
                if not _VAR.match(v[1:]):
                    self.err(path, "HK805", f"not a variable name: {v[:40]!r}", hint="variables look like ?x or ?duration")
                    return None
                return Var(v[1:])
            if v.startswith("<"):
                if not v.endswith(">"):
                    self.err(path, "HK805", f"unterminated IRI {v[:40]!r}")
                    return None
                return self._iri(path, v[1:-1])
            if not v.strip():
                self.err(path, "HK805", "an empty name")
                return None
            return Name(v)
        lit = self.literal(path, v)
        return None if lit is None else Const(lit) if isinstance(lit, Literal) else lit

    def _iri(self, path: str, s: str) -> Const | None:
        try:
            return Const(IRI(s))
        except InvalidValueError as e:
            self.err(path, "HK805", e.message)
            return None

    def literal(self, path: str, v: Any) -> Literal | Const | None:
        """A JSON scalar or typed-value object as a literal (an ``{"iri"}`` object as an IRI const)."""
        try:
            if isinstance(v, bool):
                return Literal.of(v)
            if isinstance(v, int):
                return Literal.of(v)
            if isinstance(v, Decimal):
                return Literal(format(v, "f"), XSD_DECIMAL)
            if isinstance(v, float):
                return Literal.of(v)
            if isinstance(v, dict):
                return self._typed(path, v)
        except InvalidValueError as e:
            self.err(path, "HK805", e.message)
            return None
        self.err(path, "HK802", f"expected a term (string, number, boolean or typed-value object), got {_json_type(v)}")
        return None

    def _typed(self, path: str, v: dict) -> Literal | Const | None:
        forms = ("iri", "duration", "dateTime", "date", "value")
        keys = [k for k in forms if k in v]
        if len(keys) != 1:
            self.err(path, "HK805", f"a typed value names exactly one of {', '.join(forms)}")
            return None
        k = keys[0]
        self.fields(path, v, ("value", "datatype", "lang") if k == "value" else (k,))
        s = v[k]
        if not self.expect(f"{path}.{k}", s, (str,), "a string"):
            return None
        if k == "iri":
            return self._iri(f"{path}.iri", s)
        if k == "value":
            dt, lang = v.get("datatype", XSD_STRING), v.get("lang")
            if not self.expect(f"{path}.datatype", dt, (str,), "a datatype IRI"):
                return None
            if lang is not None and not self.expect(f"{path}.lang", lang, (str,), "a language tag"):
                return None
            return Literal(s, dt, lang)
        return Literal(s, {"duration": XSD_DURATION, "dateTime": XSD_DATETIME, "date": XSD_DATE}[k])

    # -- structures -----------------------------------------------------------------------------

    def pattern(self, path: str, v: Any) -> Pattern | None:
        if not self.expect(path, v, (dict,), "a pattern object"):
            return None
        self.fields(path, v, ("subject", "predicate", "object", "qualifiers", "polarity"), ("predicate",))
        pred = self.term(f"{path}.predicate", v["predicate"]) if "predicate" in v else None
        subj = self.term(f"{path}.subject", v["subject"]) if v.get("subject") is not None else None
        obj = self.term(f"{path}.object", v["object"]) if v.get("object") is not None else None
        quals: list[tuple[str, PlanTerm]] = []
        q = v.get("qualifiers", {})
        if self.expect(f"{path}.qualifiers", q, (dict,), "an object of qualifier values"):
            for k in sorted(q):
                t = self.term(f"{path}.qualifiers.{k}", q[k])
                if t is not None:
                    quals.append((k, t))
        polarity = v.get("polarity", "affirm")
        if polarity not in ("affirm", "negate"):
            self.err(f"{path}.polarity", "HK805", f"{str(polarity)[:20]!r} is not one of affirm, negate")
            polarity = "affirm"
        if pred is None or (v.get("subject") is not None and subj is None) or (v.get("object") is not None and obj is None):
            return None
        return Pattern(pred, subj, obj, tuple(quals), polarity)

    def terms(self, path: str, v: Any) -> tuple[PlanTerm, ...]:
        if not self.expect(path, v, (list,), "a list"):
            return ()
        if len(v) > MAX_ITEMS:
            self.err(path, "HK806", f"more than {MAX_ITEMS} items")
            return ()
        out = [self.term(f"{path}[{i}]", x) for i, x in enumerate(v)]
        return tuple(t for t in out if t is not None)

    def params(self, path: str, v: Any) -> tuple[tuple[str, Literal], ...]:
        if not self.expect(path, v, (dict,), "an object of parameter values"):
            return ()
        out = []
        for k in sorted(v):
            x = v[k]
            lit: Any
            if isinstance(x, str):
                lit = Literal(x, XSD_STRING)
            else:
                lit = self.literal(f"{path}.{k}", x)
            if isinstance(lit, Const):
                self.err(f"{path}.{k}", "HK805", "a parameter is a value, not an IRI")
            elif lit is not None:
                out.append((k, lit))
        return tuple(out)

    def operand(self, path: str, v: Any):
        if isinstance(v, dict) and "param" in v:
            self.fields(path, v, ("param", "unit"))
            name = v["param"]
            if not self.expect(f"{path}.param", name, (str,), "a parameter name"):
                return None
            unit = self.enum(f"{path}.unit", v["unit"], TimeUnit) if "unit" in v else None
            if "unit" in v and unit is None:
                return None
            return Param(name, unit)
        t = self.term(path, v)
        if isinstance(t, Name):
            self.err(path, "HK805", f"a test compares values: use ?var, a typed value or {{\"param\": …}}, not the name {v[:40]!r}")
            return None
        return t

    def check(self, path: str, v: Any) -> Check | None:
        if not self.expect(path, v, (dict,), "a check object"):
            return None
        self.fields(path, v, ("tests", "derives", "yesWhen"), ("tests",))
        tests = []
        raw = v.get("tests", [])
        if self.expect(f"{path}.tests", raw, (list,), "a list of tests"):
            if not raw:
                self.err(f"{path}.tests", "HK805", "a check needs at least one test")
            for i, t in enumerate(raw[:MAX_ITEMS]):
                tp = f"{path}.tests[{i}]"
                if not self.expect(tp, t, (dict,), "a test object"):
                    continue
                self.fields(tp, t, ("left", "op", "right"), ("left", "op", "right"))
                if not all(k in t for k in ("left", "op", "right")):
                    continue
                left, right = self.operand(f"{tp}.left", t["left"]), self.operand(f"{tp}.right", t["right"])
                op = t["op"]
                if op not in ("=", "!=", "<", "<=", ">", ">="):
                    self.err(f"{tp}.op", "HK805", f"{str(op)[:10]!r} is not one of = != < <= > >=")
                    continue
                if left is not None and right is not None:
                    tests.append(Compare(left, op, right))
        derives = self.pattern(f"{path}.derives", v["derives"]) if v.get("derives") is not None else None
        yes_when = self.enum(f"{path}.yesWhen", v["yesWhen"], YesWhen) if "yesWhen" in v else YesWhen.HOLDS
        if not tests or yes_when is None:
            return None
        return Check(tuple(tests), derives, yes_when)

    def time(self, path: str, v: Any) -> TimeRef | None:
        if not self.expect(path, v, (dict,), "a time object"):
            return None
        self.fields(path, v, ("kind", "at", "anchor"), ("kind",))
        kind = self.enum(f"{path}.kind", v["kind"], TimeKind) if "kind" in v else None
        if kind is None:
            return None
        instant = None
        if kind is TimeKind.AT:
            at = v.get("at")
            if at is None:
                self.err(path, "HK804", "an 'at' time needs the field 'at' (an instant)")
                return None
            if isinstance(at, int) and not isinstance(at, bool):
                instant = at
            elif self.expect(f"{path}.at", at, (str,), "an instant (ISO date/time or unix ms)"):
                try:
                    instant = parse_instant(at)
                except InvalidValueError as e:
                    self.err(f"{path}.at", "HK805", e.message)
                    return None
            else:
                return None
        elif "at" in v:
            self.err(f"{path}.at", "HK805", f"only an 'at' time has an instant (kind is {kind.value!r})")
        anchor = None
        if kind in (TimeKind.BEFORE, TimeKind.AFTER):
            if "anchor" not in v:
                self.err(path, "HK804", f"a {kind.value!r} time needs an 'anchor' pattern")
                return None
            anchor = self.pattern(f"{path}.anchor", v["anchor"])
            if anchor is None:
                return None
        elif "anchor" in v:
            self.err(f"{path}.anchor", "HK805", f"only 'before'/'after' times have an anchor (kind is {kind.value!r})")
        return TimeRef(kind, instant, anchor)


_TOP = ("planFormat", "version", "subjects", "predicates", "goal", "params", "form", "check", "time", "world",
        "question", "conditions")


def plan_from_json(data: "str | bytes | dict", *, source: str = "<plan>") -> QueryPlan:
    """Parse and validate a plan; raise :class:`PlanError` with every problem found."""
    r = _Reader(source)
    if isinstance(data, (str, bytes)):
        if len(data) > MAX_PLAN_BYTES:
            raise PlanError("plan too large", (Diagnostic("HK806", f"the plan is {len(data)} bytes; at most "
                                                          f"{MAX_PLAN_BYTES} are accepted", Location(source, 1, 1)),))
        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            obj = json.loads(text, parse_float=Decimal)
        except UnicodeDecodeError as e:
            raise PlanError("plan is not UTF-8", (Diagnostic("HK801", f"not UTF-8 text (byte {e.start})",
                                                             Location(source, 1, 1)),)) from None
        except json.JSONDecodeError as e:
            lines = text.splitlines()
            line = lines[e.lineno - 1] if e.lineno - 1 < len(lines) else ""
            raise PlanError("plan is not JSON", (Diagnostic("HK801", f"not JSON: {e.msg}",
                                                            Location(source, e.lineno, e.colno),
                                                            source_line=line),)) from None
        except RecursionError:
            raise PlanError("plan nested too deeply", (Diagnostic("HK806", "the plan is nested too deeply",
                                                                  Location(source, 1, 1)),)) from None
    else:
        obj = data
    if not r.expect("$", obj, (dict,), "a plan object"):
        raise PlanError("invalid plan", tuple(r.diags))
    r.fields("$", obj, _TOP)
    fmt = obj.get("planFormat", PLAN_FORMAT)
    if fmt != PLAN_FORMAT or isinstance(fmt, bool):
        r.err("$.planFormat", "HK805", f"unsupported plan format {str(fmt)[:20]!r} (this holokb reads {PLAN_FORMAT})")
    version = obj.get("version")
    if version is not None and not r.expect("$.version", version, (str,), "a version string"):
        version = None
    subjects = r.terms("$.subjects", obj.get("subjects", []))
    predicates = r.terms("$.predicates", obj.get("predicates", []))
    goal = r.pattern("$.goal", obj["goal"]) if obj.get("goal") is not None else None
    params = r.params("$.params", obj.get("params", {}))
    form = r.enum("$.form", obj["form"], AnswerForm) if obj.get("form") is not None else None
    check = r.check("$.check", obj["check"]) if obj.get("check") is not None else None
    time = r.time("$.time", obj["time"]) if obj.get("time") is not None else None
    world = r.enum("$.world", obj["world"], World) if obj.get("world") is not None else None
    question = obj.get("question")
    if question is not None and not r.expect("$.question", question, (str,), "a string"):
        question = None
    conditions: list[Pattern] = []
    if obj.get("conditions") is not None and r.expect("$.conditions", obj["conditions"], (list,), "a list of patterns"):
        for i, c in enumerate(obj["conditions"][:MAX_ITEMS]):
            pc = r.pattern(f"$.conditions[{i}]", c)
            if pc is not None:
                conditions.append(pc)
    if not r.diags and goal is None and check is None and not predicates:
        r.err("$", "HK804", "a plan needs a goal, a check or at least one predicate")
    if r.diags:
        raise PlanError(f"invalid plan ({len(r.diags)} problem{'s' if len(r.diags) != 1 else ''})", tuple(r.diags))
    return QueryPlan(version, subjects, predicates, goal, params, form, check, time, world, question,
                     tuple(conditions))


# -- out ------------------------------------------------------------------------------------------

def term_to_json(t: PlanTerm | Literal | IRI) -> Any:
    """A plan term in its canonical JSON form (the inverse of the reader above)."""
    if isinstance(t, Var):
        return "?" + t.name
    if isinstance(t, Name):
        return t.text
    if isinstance(t, Const):
        t = t.term
    if isinstance(t, IRI):
        return f"<{t.value}>"
    v = t.value
    if t.datatype == XSD_BOOLEAN and t.lexical in ("true", "false"):
        return v
    if t.datatype == XSD_INTEGER and t.lexical == str(v):
        return v
    if t.datatype == XSD_DURATION:
        return {"duration": t.lexical}
    out = {"value": t.lexical, "datatype": t.datatype}
    if t.lang:
        out["lang"] = t.lang
    return out


def pattern_to_json(p: Pattern) -> dict:
    out: dict[str, Any] = {"predicate": term_to_json(p.predicate)}
    if p.subject is not None:
        out["subject"] = term_to_json(p.subject)
    if p.object is not None:
        out["object"] = term_to_json(p.object)
    if p.qualifiers:
        out["qualifiers"] = {k: term_to_json(v) for k, v in p.qualifiers}
    if p.polarity != "affirm":
        out["polarity"] = p.polarity
    return out


def _operand_to_json(o) -> Any:
    if isinstance(o, Param):
        return {"param": o.name, **({"unit": o.unit.value} if o.unit else {})}
    return term_to_json(o)


def plan_to_json(plan: QueryPlan) -> dict:
    """Canonical JSON: fields in a fixed order, empty ones left out, terms in canonical form."""
    out: dict[str, Any] = {"planFormat": PLAN_FORMAT}
    if plan.version is not None:
        out["version"] = plan.version
    if plan.subjects:
        out["subjects"] = [term_to_json(t) for t in plan.subjects]
    if plan.predicates:
        out["predicates"] = [term_to_json(t) for t in plan.predicates]
    if plan.goal is not None:
        out["goal"] = pattern_to_json(plan.goal)
    if plan.params:
        out["params"] = {k: (v.lexical if v.datatype == XSD_STRING and not v.lang else term_to_json(v))
                         for k, v in plan.params}
    if plan.form is not None:
        out["form"] = plan.form.value
    if plan.check is not None:
        c = plan.check
        out["check"] = {"tests": [{"left": _operand_to_json(t.left), "op": t.op, "right": _operand_to_json(t.right)}
                                  for t in c.tests]}
        if c.derives is not None:
            out["check"]["derives"] = pattern_to_json(c.derives)
        if c.yes_when is not YesWhen.HOLDS:
            out["check"]["yesWhen"] = c.yes_when.value
    if plan.time is not None:
        t = plan.time
        out["time"] = {"kind": t.kind.value}
        if t.instant is not None:
            out["time"]["at"] = t.instant
        if t.anchor is not None:
            out["time"]["anchor"] = pattern_to_json(t.anchor)
    if plan.world is not None:
        out["world"] = plan.world.value
    if plan.question is not None:
        out["question"] = plan.question
    if plan.conditions:
        out["conditions"] = [pattern_to_json(c) for c in plan.conditions]
    return out


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float, Decimal)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__
