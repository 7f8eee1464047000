"""The four external suites as data: list their cases and run one case → :class:`Outcome`.

Shared by the pytest runners (one test per case) and ``report.py`` (the summary table).  Every
outcome is cached per process, so a suite's summary test reuses its cases' runs.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from _corpora import corpora_root
from datalog_ir import Unsupported, diff, run
from holokb.core.errors import RuleAnalysisError, RuleSyntaxError

#: Seconds per program; a budget hit is a failure (no suite program here is infinite).  The slowest
#: that passes (inline_nqueens: n-queens over record lists) closes in ~4.5 s on a quiet 2-core
#: machine, past 10 s beside a second test worker under load.
TIMEOUT_S = 30.0

#: Cases the engine cannot run yet, with why (asserted still failing with xfail(strict=True)).
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def summary(outcomes: dict[str, Outcome], suite: str) -> tuple[Counter, Counter]:
    """(counts of run/passed/failed/known-gap/skipped, skip reasons with counts)."""
    counts, reasons = Counter(), Counter()
    for name, o in outcomes.items():
        if (suite, name) in KNOWN_GAPS:
            counts["known_gap"] += 1
        elif o.status == "skip":
            counts["skipped"] += 1
            reasons[o.reason] += 1
        else:
            counts["run"] += 1
            counts["passed" if o.status == "pass" else "failed"] += 1
    return counts, reasons


@dataclass(frozen=True)
class Outcome:
    """``status`` is pass, fail or skip; ``reason`` is the skip reason or the failure detail."""

    status: str
    reason: str = ""


def root() -> Path | None:
    """The corpora folder, or None when absent."""
    return corpora_root()


# -- Soufflé evaluation ------------------------------------------------------------------------
def souffle_manifest(category: str, kind: str) -> list[str]:
    """Test names of ``category`` with manifest ``kind`` (manifest order)."""
    r = root()
    if r is None:
        return []
    lines = (r / "souffle_tests" / "manifest.tsv").read_text(encoding="utf-8").splitlines()[1:]
    rows = [ln.split("\t") for ln in lines]
    return [row[1] for row in rows if row[0] == category and row[2] == kind]


@functools.lru_cache(maxsize=None)
def souffle_evaluation(name: str, category: str = "evaluation") -> Outcome:
    """Run ``<category>/<name>`` and compare every ``.output`` relation with its ``.csv``."""
    from souffle_io import load_case, normalise_cells, read_expected

    d = root() / "souffle_tests" / "tests" / category / name
    try:
        sp, expected = load_case(d)
        sizes = _printed_sizes(d / f"{name}.out", sp.printsize) if not expected else {}
        if not expected and not sizes:
            raise Unsupported("no .output relation to compare (stdout or printsize only)")
        for p in expected.values():
            if not p.is_file():
                raise Unsupported("expected output file missing")
        res = run(sp.program, timeout_s=TIMEOUT_S)
    except Unsupported as e:
        return Outcome("skip", str(e))
    except (RuleAnalysisError, RuleSyntaxError) as e:  # holokb refuses what Soufflé runs: a failure
        return Outcome("fail", f"rejected: {e.diagnostics[0].render()}")
    if res.truncated:
        return Outcome("fail", f"budget hit: {res.limit_hit}")
    problems = []
    for rel, n in sorted(sizes.items()):  # .printsize: Soufflé printed the relation's size
        got = len(res.relations.get(rel, {}))
        if got != n:
            problems.append(f"{rel}: {got} rows, Soufflé printed {n}")
    for rel, path in sorted(expected.items()):
        kinds = sp.types[rel]
        want = read_expected(path, kinds)
        got = Counter()
        for k, v in res.relations[rel].items():
            got[normalise_cells(k, kinds) if kinds else ()] += v
        if want != got:
            problems.append(f"{rel}: {diff(want, got)}")
    return Outcome("fail", "; ".join(problems)) if problems else Outcome("pass")


def _printed_sizes(out: Path, names: list[str]) -> dict[str, int]:
    """``name<TAB>count`` lines of a Soufflé ``.out`` file for the ``.printsize`` relations."""
    if not names or not out.is_file():
        return {}
    sizes = {}
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0] in names and parts[1].strip().isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes if set(sizes) == set(names) else {}


# -- Soufflé semantic (programs that must be rejected) ------------------------------------------
#: Soufflé error messages whose reason holokb shares → the diagnostic codes that match them.
SHARED_ERRORS: tuple[tuple[re.Pattern, frozenset[str]], ...] = (
    (re.compile(r"Ungrounded variable"), frozenset({"HK201", "HK202", "HK203"})),
    (re.compile(r"Underscore in head of rule"), frozenset({"HK201"})),
    (re.compile(r"Unable to stratify relation"), frozenset({"HK208", "HK209"})),
    (re.compile(r"Mutually dependent aggregate"), frozenset({"HK209"})),
    (re.compile(r"Mismatching arity of relation"), frozenset({"HK205"})),
    (re.compile(r"Argument in fact is not constant"), frozenset({"HK215"})),
    (re.compile(r"Undefined relation"), frozenset({"HK206"})),
)
_ERROR_LINE = re.compile(r"^Error: (.*?)(?: in file \S+ at line (\d+))?$")


def expected_errors(err_text: str) -> list[tuple[str, int | None]]:
    """(message, line) of every ``Error:`` in a Soufflé ``.err`` file."""
    out = []
    for ln in err_text.splitlines():
        m = _ERROR_LINE.match(ln)
        if m:
            out.append((m.group(1), int(m.group(2)) if m.group(2) else None))
    return out


@functools.lru_cache(maxsize=None)
def souffle_semantic(name: str) -> Outcome:
    """A rejected program: holokb must reject it with the codes of the shared reasons."""
    from datalog_ir import to_holokb
    from holokb.analysis import analyze
    from holokb.syntax import parse_rules
    from souffle_translate import parse_souffle

    d = root() / "souffle_tests" / "tests" / "semantic" / name
    err = d / f"{name}.err"
    errors = expected_errors(err.read_text(encoding="utf-8", errors="replace")) if err.is_file() else []
    if not errors:
        return Outcome("skip", "no error message in the expected .err")
    try:
        sp = parse_souffle((d / f"{name}.dl").read_text(encoding="utf-8", errors="replace"), strict=False)
    except Unsupported as e:
        return Outcome("skip", str(e))
    required: list[tuple[str, frozenset[str]]] = []
    unshared = []
    for msg, line in errors:
        codes = next((c for pat, c in SHARED_ERRORS if pat.search(msg)), None)
        if codes is None:
            unshared.append(msg)
        elif line is None or line in sp.kept_lines:
            required.append((msg, codes))
    if not required:
        why = "error not shared by holokb: " + unshared[0].split(" in file")[0] if unshared else \
            "shared errors only in clauses that use unsupported features"
        return Outcome("skip", _short(why))
    try:
        text = to_holokb(sp.program)
        analyze(parse_rules(text), rdf_types=False)
    except Unsupported as e:
        return Outcome("skip", str(e))
    except (RuleAnalysisError, RuleSyntaxError) as e:
        got = {dg.code for dg in e.diagnostics}
        missing = [msg for msg, codes in required if not (codes & got)]
        if missing:
            return Outcome("fail", f"rejected with {sorted(got)} but nothing matches {missing[:3]}")
        return Outcome("pass")
    return Outcome("fail", f"accepted, but Soufflé rejects: {[m for m, _ in required][:3]}")


def _short(s: str) -> str:
    s = re.sub(r"\b(variable|relation|type|component|functor|branch|attribute)\s+\S+", r"\1 …", s)
    return s[:80]


# -- datalog-conformance YAML cases ---------------------------------------------------------------
#: expect_error values → the diagnostic codes that match them.
YAML_ERRORS = {
    "unbound_variable": frozenset({"HK201", "HK202", "HK203"}),
    "safety_violations": frozenset({"HK201", "HK202", "HK203"}),
    "SafetyViolationError": frozenset({"HK201", "HK202", "HK203"}),
    "arity_mismatch": frozenset({"HK205"}),
    "cyclic_negation": frozenset({"HK208"}),
}


@functools.lru_cache(maxsize=1)
def yaml_cases() -> dict[str, dict]:
    """Case id (``<file stem>::<test name>``) → the case dict, in file then test order."""
    import yaml

    r = root()
    if r is None:
        return {}
    # libyaml's safe loader when PyYAML has it: the same documents (checked equal on all 99 files) in a
    # sixth of the CPU; the pure-Python one was half of every xdist worker's collection (~8 s each)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[str, dict] = {}
    base = r / "datalog_conformance_pypi" / "cases"
    for f in sorted(base.rglob("*.yaml")):
        doc = yaml.load(f.read_text(encoding="utf-8"), Loader=loader)
        rel = f.relative_to(base).with_suffix("").as_posix()
        tests = doc.get("tests") or [doc]
        for k, t in enumerate(tests):
            out[f"{rel}::{t.get('name') or k}"] = {"source": doc.get("source", ""), **t}
    return out


def _yaml_const(v):
    from datalog_ir import DConst

    if isinstance(v, bool):
        raise Unsupported("boolean constant")
    if isinstance(v, int):
        return DConst("int", v)
    if isinstance(v, float):
        return DConst("float", v)
    return DConst("sym", str(v))


def _yaml_program(facts: dict, rules: list[str], for_rejection: bool, nemo: bool = False):
    from datalog_ir import DAtom, existential_negation
    from souffle_translate import parse_clauses

    text = "\n".join(_clause_text(r) for r in rules)
    try:
        prog = parse_clauses(text)
    except Unsupported as e:
        if any(re.match(r"\s*~?[A-Za-z_]\w*\s*$", a) for r in rules for a in re.split(r":-|,", r)):
            raise Unsupported("propositional atoms / strong negation (defeasible-logic syntax)") from None
        raise e
    if nemo:  # cases harvested from Nemo keep Nemo's reading of negation
        prog.rules = existential_negation(prog.rules)
    for pred, rows in (facts or {}).items():
        for row in rows or []:
            args = tuple(_yaml_const(v) for v in row)
            if for_rejection:  # holokb's analysis must see every arity
                prog.text_facts.append(DAtom(pred, args))
            else:
                prog.facts.setdefault(pred, []).append(args)
    return prog


_NOT = re.compile(r'("(?:[^"\\]|\\.)*")|\bnot\s+')


def _clause_text(rule: str) -> str:
    """A YAML rule string in the Soufflé clause syntax the translator reads (``not`` → ``!``)."""
    text = _NOT.sub(lambda m: m.group(1) or "!", rule.strip())
    return text if text.endswith(".") else text + "."


@functools.lru_cache(maxsize=None)
def yaml_case(case_id: str) -> Outcome:
    """Run one YAML case: ``expect`` relations must match; ``expect_error`` must be rejected."""
    from datalog_ir import to_holokb
    from holokb.analysis import analyze
    from holokb.syntax import parse_rules

    t = yaml_cases()[case_id]
    if "theory" in t or "theories" in t:
        th = t.get("theory") or {}
        if any(th.get(k) for k in ("defeasible_rules", "defeaters", "superiority")) or "theories" in t:
            return Outcome("skip", "defeasible logic (defeasible rules, defeaters or superiority)")
        if "expect" not in t or "definitely" not in t["expect"]:
            return Outcome("skip", "defeasible logic: no 'definitely' expectation")
        rules = [f"{r['head']} :- {', '.join(r['body'])}" if r.get("body") else r["head"]
                 for r in th.get("strict_rules", [])]
        facts, expect = th.get("facts") or {}, t["expect"]["definitely"]
    else:
        prog_spec = t["program"]
        rules, facts, expect = prog_spec.get("rules") or [], prog_spec.get("facts") or {}, t.get("expect")
    try:
        if "expect_error" in t:
            codes = YAML_ERRORS.get(t["expect_error"])
            if codes is None:
                return Outcome("skip", f"error kind not shared: {t['expect_error']}")
            prog = _yaml_program(facts, rules, True)
            try:
                analyze(parse_rules(to_holokb(prog)), rdf_types=False)
            except (RuleAnalysisError, RuleSyntaxError) as e:
                got = {d.code for d in e.diagnostics}
                return Outcome("pass") if codes & got else Outcome("fail", f"rejected with {sorted(got)}, want {sorted(codes)}")
            return Outcome("fail", f"accepted, but expected error {t['expect_error']}")
        prog = _yaml_program(facts, rules, False, nemo=str(t.get("source", "")).startswith("nemo"))
        _arities(prog, expect)
        prog.outputs = sorted(expect)
        res = run(prog, timeout_s=TIMEOUT_S)
    except Unsupported as e:
        return Outcome("skip", str(e))
    if res.truncated:
        return Outcome("fail", f"budget hit: {res.limit_hit}")
    from datalog_ir import normalise_row

    problems = []
    for rel in sorted(expect):
        # YAML strings stay verbatim (a quoted "1.0" is a string); numbers are spelled canonically.
        want = Counter(tuple(v if isinstance(v, str) else normalise_row((str(v),))[0] for v in row)
                       for row in expect[rel] or [])
        got = res.relations[rel]
        if want != got:
            problems.append(f"{rel}: {diff(want, got)}")
    return Outcome("fail", "; ".join(problems)) if problems else Outcome("pass")


def _arities(prog, expect: dict) -> None:
    for rel, rows in expect.items():
        if rows:
            prog.arity.setdefault(rel, len(rows[0]))
    for r in prog.rules:
        prog.arity.setdefault(r.head.pred, len(r.head.args))
    for p, rows in prog.facts.items():
        prog.arity.setdefault(p, len(rows[0]) if rows else 0)


# -- Nemo test cases ----------------------------------------------------------------------------------
def nemo_cases() -> list[str]:
    """``.rls`` programs (relative paths), sorted; ``*.rls.disabled`` are upstream-disabled."""
    r = root()
    if r is None:
        return []
    base = r / "nemo_testcases" / "testcases"
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*.rls"))


@functools.lru_cache(maxsize=None)
def nemo_case(rel: str) -> Outcome:
    """Run one Nemo program; every ``@export``ed relation must equal its expected CSV (as a multiset)."""
    import csv
    import io

    from datalog_ir import normalise_row
    from nemo_translate import translate

    path = root() / "nemo_testcases" / "testcases" / rel
    try:
        case = translate(path)
        if not case.expected:
            raise Unsupported("no @export to compare")
        for p in case.expected.values():
            if not p.is_file():
                raise Unsupported("expected CSV missing")
        res = run(case.program, timeout_s=TIMEOUT_S)
    except Unsupported as e:
        return Outcome("skip", str(e))
    if res.truncated:
        return Outcome("fail", f"budget hit: {res.limit_hit}")
    problems = []
    for rel_name, p in sorted(case.expected.items()):
        want = Counter(normalise_row(tuple(row)) for row in csv.reader(io.StringIO(p.read_text(encoding="utf-8"))) if row)
        got = Counter()
        for k, v in res.relations[rel_name].items():
            got[normalise_row(k)] += v
        if want != got:
            problems.append(f"{rel_name}: {diff(want, got)}")
    return Outcome("fail", "; ".join(problems)) if problems else Outcome("pass")
