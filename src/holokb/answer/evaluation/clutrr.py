"""CLUTRR: family stories → kinship facts (the kinship reader), composed by rules/kinship.hkr; the
query (A, B) asks "B is A's what?", answered by the one base relation derived for (A, B) worded by
B's gender from the record (rules/kinship.toml ``[answers]``).  Several relations: no answer."""
from __future__ import annotations

import ast
import csv
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ...core import HolokbError, IRI
from .runner import EvalRun, ItemResult, chain_json, check_citations, run_items

if TYPE_CHECKING:
    from ...ingest.english.reading import Reading
    from ...ingest.kinship import StoryReading

_COLUMNS = ("id", "story", "query", "target_text", "genders", "task_name")

_reader = None
_extra = None
_program = None   # the kinship rules analysed once: the kinship reader states facts, never rules
_fill_program = None   # ... with the default rules, for a pair those derive no relation for (or None)
#: Take the conventions of CLUTRR's generated families (rules/kinship.toml ``[defaults]``: rule files
#: of assumptions, cited by name); False loads the English-only rule files instead.
DEFAULTS = True
_loaded_defaults = None
#: Readings of a story's ambiguous pronouns tried before refusing (each is one closure).
MAX_READINGS = 32


def _init() -> None:
    global _reader, _extra, _program, _fill_program, _loaded_defaults
    if _reader is None or _loaded_defaults != DEFAULTS:
        from ...ingest.english.reading import Reading
        from ...ingest.kinship import KinshipReader
        from ...resources import data_dir
        from ...syntax import parse_file
        from ..over_reading import analyze_reading

        _reader = _reader or KinshipReader()
        rules = data_dir("rules")
        spec = _reader.lexicon.data.get("defaults", {})
        _extra = tuple(parse_file(rules / name) for name in ("kinship.hkr", *(() if DEFAULTS else spec.get("off", ()))))
        _program = analyze_reading(Reading(), _extra)
        fill = tuple(parse_file(rules / name) for name in spec.get("fill", ())) if DEFAULTS else ()
        _fill_program = analyze_reading(Reading(), _extra + fill) if any(m.rules for m in fill) else None
        _loaded_defaults = DEFAULTS


def load(path: Path) -> list[dict]:
    """The rows of a CLUTRR CSV; a file without the expected columns is an error."""
    import io

    from ...core.inputs import read_bytes

    csv.field_size_limit(10**8)
    text = read_bytes(path, what="CLUTRR file").decode("utf-8", errors="surrogateescape")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        cols = {c.lstrip("\ufeff") for c in (reader.fieldnames or [])}
        missing = [c for c in _COLUMNS if c not in cols]
        if missing:
            raise HolokbError(f"{path}: not a CLUTRR CSV (missing columns: {', '.join(missing)})")
        return [dict(r) for r in reader]
    except csv.Error as e:
        raise HolokbError(f"{path}: not a CLUTRR CSV ({e})") from None


def _group(task: str) -> str:
    return "length=" + task.rsplit(".", 1)[-1] if "." in task else task


class Item(NamedTuple):
    """A checked CLUTRR row: who is asked about, the genders, the story's reading."""

    rid: str
    gold: str
    group: str
    a: str
    b: str
    genders: dict
    story: "StoryReading"
    skips: tuple


def check(row: dict) -> "ItemResult | Item":
    """The row checked and its story read, or the unsupported result of a bad row / too many readings."""
    _init()
    rid = row.get("id") or "?"
    gold = row.get("target_text") or "?"
    group = _group(row.get("task_name") or "")
    try:
        if any(not isinstance(row.get(c), str) or not row.get(c) for c in _COLUMNS):
            raise ValueError("missing field")
        for c in _COLUMNS:
            row[c].encode("utf-8")
        a, b = ast.literal_eval(row["query"])
        genders = dict(p.split(":", 1) for p in row["genders"].split(",") if ":" in p)
    except (ValueError, SyntaxError, UnicodeEncodeError, TypeError) as e:
        return ItemResult(rid, gold, None, "unsupported", False, group, reason=f"bad_input: {e}", bad_input=True)
    story = _reader.read_story(row["story"], genders)
    skips = tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text,
                   **({"detail": s.detail} if s.detail.startswith("gender") else {})}
                  for s in story.skips if s.code.value != "no_statement")
    if story.count() > MAX_READINGS:
        return ItemResult(rid, gold, None, "unsupported", False, group, skips=skips,
                          reason=f"ambiguous: {story.count()} readings of the pronouns (more than {MAX_READINGS})")
    return Item(rid, gold, group, a, b, genders, story, skips)


def readings_left(item: Item, closures: dict | None = None) -> tuple[list[tuple[int, "Reading"]], list[str]]:
    """The readings of the pronouns that do not contradict the family (with their index in
    ``story.readings()``), and why each other one was set aside.  When several are left, each is
    closed under the rules (kept in ``closures`` by index, without proofs) and held to the family
    checks again over what it derives; that sets readings aside only when some reading passes."""

    kept, clashes = _stated_readings_left(item)
    if len(kept) < 2:
        return kept, clashes
    from ..over_reading import close_reading

    by_entity = {_reader.entity(n): g for n, g in item.genders.items()}
    closures = {} if closures is None else closures
    derived = []
    for i, reading in kept:
        closures[i] = close_reading(reading, "", document=item.rid, extra=_extra, program=_program,
                                    record_proofs=False)
        derived.append(derived_clash(closures[i].model, by_entity))
    if all(d is not None for d in derived) or all(d is None for d in derived):
        return kept, clashes
    return [k for k, d in zip(kept, derived) if d is None], clashes + [d for d in derived if d is not None]


def derived_clash(model, by_entity: dict) -> str | None:
    """The family checks (generations, one mother and one father…) over every kinship relation a
    closed reading derives: the store's compositions keep both in any family read right."""
    facts = set()
    for rel in _reader.lexicon.answers:
        iri = _reader.lexicon.iri(rel)
        facts.update((iri, args[0], args[1]) for args, _ in model.rows(iri))
    return generation_clash(facts) or gender_clash(facts, by_entity)


def _stated_readings_left(item: Item) -> tuple[list[tuple[int, "Reading"]], list[str]]:
    from ...ingest.english.reading import Reading

    story = item.story
    by_entity = {_reader.entity(n): g for n, g in item.genders.items()}
    # generations choose between readings of the pronouns; statements that break them in every reading
    # (a crowd story giving some other pair inversely) say nothing about the pronouns
    by_generation = story.choices and generation_clash(stated_facts(Reading(story.facts), _program)) is None
    kept, clashes = [], []
    for i, reading in enumerate(story.readings()):
        stated = stated_facts(reading, _program)
        clash = stated_clash(stated) or gender_clash(stated, by_entity) or (
            generation_clash(stated) if by_generation else None)
        if clash is not None:
            clashes.append(clash)  # this reading of the pronouns contradicts itself: not the story's
        else:
            kept.append((i, reading))
    return kept, clashes


def score(row: dict) -> ItemResult:
    from ..contract import Answer, Verdict
    from ..over_reading import close_reading
    from ..over_reading import explain_at

    item = check(row)
    if isinstance(item, ItemResult):
        return item
    rid, gold, group, a, b, genders, story, skips = item
    story_text = row["story"]
    ea, eb = _reader.entity(a), _reader.entity(b)
    answers = _reader.lex["answers"]
    first = None
    closures: dict = {}
    kept, clashes = readings_left(item, closures)
    for i, reading in kept:
        # proofs for the reading the answer's chain comes from; the others only have to agree
        closed = closures.get(i) if first is not None and i in closures else close_reading(
            reading, story_text, document=rid, extra=_extra, program=_program, record_proofs=first is None)
        rels = sorted({rel for rel in answers if closed.model.contains(rel.replace("ex:", _reader.ns), (ea, eb))})
        if not rels and _fill_program is not None:   # a default fills the gap (rules/kinship_defaults.hkr)
            closed = close_reading(reading, story_text, document=rid, extra=_extra, program=_fill_program,
                                   record_proofs=first is None)
            rels = sorted({rel for rel in answers if closed.model.contains(rel.replace("ex:", _reader.ns), (ea, eb))})
        if len(rels) != 1:
            why = "no kinship relation derived between them" if not rels else f"several relations derived: {rels}"
            if first is not None or story.choices:
                why += " in one reading of " + "; ".join(c.reason for c in story.choices)
            return ItemResult(rid, gold, None, "unsupported", False, group, reason=why, skips=skips)
        if first is None:
            first = (closed, rels[0], reading)
        if rels[0] != first[1]:
            return ItemResult(rid, gold, None, "unsupported", False, group, skips=skips,
                              reason=f"the readings disagree ({first[1]} vs {rels[0]}): "
                                     + "; ".join(c.reason for c in story.choices))
    if first is None:
        return ItemResult(rid, gold, None, "unsupported", False, group, skips=skips,
                          reason=f"the story contradicts itself: {clashes[0]}")
    closed, relname, reading = first
    rel = relname.replace("ex:", _reader.ns)
    word = answers[relname].get(genders.get(b, ""), None)
    if word is None:
        return ItemResult(rid, gold, None, "unsupported", False, group, reason=f"no gender for {b}", skips=skips)
    chain = explain_at(closed, rel, (ea, eb), False, 0)
    answer = Answer(word, Verdict.SUPPORTED, fact_chain=chain, values=(IRI(rel),))
    correct = word == gold
    cited, ok = check_citations(answer, story_text, {(s.start, s.end) for s in reading.sentences})
    return ItemResult(rid, gold, word, "supported", correct, group, chain_json(answer), None, skips,
                      cited=cited if correct else None, spans_ok=ok if correct else None)


def stated_facts(reading, program) -> set[tuple[str, object, object]]:
    """What a reading states: its facts, and what each single-premise rule of ``program`` (an inverse, a
    symmetric relation: "[A] is [B]'s mother" also states that B is A's child) makes of one of them."""
    from ...syntax.ast import Atom, Var

    base = {(f.fact.predicate.value, f.fact.subject, f.fact.object) for f in reading.facts
            if f.fact.polarity != "negate"}
    out = set(base)
    for rule in program.rules:
        head = rule.head
        if head is None or len(rule.body) != 1 or not isinstance(rule.body[0], Atom) or rule.body[0].negated \
                or not all(isinstance(x, Var) for x in rule.body[0].args + head.args) or len(head.args) != 2:
            continue
        body = rule.body[0]
        for pred, s, o in base:
            if pred != body.predicate or len(body.args) != 2:
                continue
            env: dict = {}
            if any(env.setdefault(v.name, t) != t for v, t in zip(body.args, (s, o))):
                continue
            if all(v.name in env for v in head.args):
                out.add((head.predicate, env[head.args[0].name], env[head.args[1].name]))
    return out


def _show(t) -> str:
    return getattr(t, "value", str(t)).rsplit("/", 1)[-1]


def stated_clash(stated: set) -> str | None:
    """Two kinship relations stated for one pair, e.g. "[A] and his sister [B] got their mother [B] …":
    the story (or this reading of its pronouns) contradicts itself.  Clashes that need compositions
    are left alone: the rule store's compositions are not associative, and a story read right can
    still derive two relations for a pair it does not ask about."""
    kin = {_reader.lexicon.iri(r) for r in _reader.lexicon.answers}
    by_pair: dict = {}
    for pred, s, o in stated:
        if pred in kin:
            by_pair.setdefault((s, o), set()).add(pred)
    for (s, o), rels in sorted(by_pair.items(), key=str):
        if len(rels) > 1:
            a, b = sorted(rels)[:2]
            return f"{_show(s)} and {_show(o)} are read as both {_show(a)} and {_show(b)}"
    return None


def gender_clash(stated: set, genders: dict) -> str | None:
    """Someone with two stated holders of one gender of a relation the vocabulary allows once per
    gender (rules/kinship.toml ``[one_per_gender]``: two mothers, two wives), e.g. "[A] was changing
    her daughter [J]'s diaper when her mother [G] called" read with "her" = J."""
    lex = _reader.lexicon
    for rel in lex.data.get("one_per_gender", {}).get("relations", ()):
        iri = lex.iri(rel)
        holders: dict = {}
        for pred, who, holder in stated:
            g = genders.get(holder)
            if pred == iri and g:
                holders.setdefault((who, g), set()).add(holder)
        for (who, g), hs in sorted(holders.items(), key=str):
            if len(hs) > 1:
                word = lex.answers.get(rel, {}).get(g, rel)
                return f"{_show(who)} would have two {word}s: " + " and ".join(sorted(_show(h) for h in hs))
    return None


def generation_clash(stated: set) -> str | None:
    """Blood relations that no numbering of generations fits (rules/kinship.toml ``[generations]``):
    someone their own ancestor, a parent who is also a sibling, "[A]'s son [B] … [B]'s grandson [A]".
    Union-find with each person's generation relative to their set's root."""
    lex = _reader.lexicon
    steps = {lex.iri(r): int(d) for r, d in lex.data.get("generations", {}).items()}
    parent: dict = {}
    offset: dict = {}   # generation of x minus generation of parent[x]

    def find(x):
        if parent.setdefault(x, x) == x:
            offset.setdefault(x, 0)
            return x, 0
        root, d = find(parent[x])
        parent[x], offset[x] = root, offset[x] + d
        return root, offset[x]

    for pred, s, o in sorted(stated, key=str):
        d = steps.get(pred)
        if d is None:
            continue
        (rs, ds), (ro, do) = find(s), find(o)
        if rs == ro:
            if do - ds != d:
                return f"{_show(o)} cannot be {_show(pred)} of {_show(s)}: the generations do not add up"
            continue
        parent[ro], offset[ro] = rs, ds + d - do   # gen(o) = gen(s) + d
    return None


def eval_clutrr(path: Path, *, limit: int | None = None, jobs: int = 1, via_kb: bool = True,
                defaults: bool = True) -> EvalRun:
    """Score a CLUTRR file through kb.ingest + kb.answer (default) or over the reading (``via_kb=False``,
    the cross-check path: the same answers on every item of the six corpus files); ``defaults`` takes
    the generated families' conventions (rules/kinship.toml ``[defaults]``)."""
    global DEFAULTS
    DEFAULTS = defaults
    _init()
    rows = load(path)
    if limit is not None:
        rows = rows[:limit]
    if via_kb:
        from .clutrr_kb import score_via_kb as scorer
    else:
        scorer = score
    return EvalRun(str(path), tuple(run_items(rows, scorer, jobs=jobs, init=_init, chunksize=16)))
