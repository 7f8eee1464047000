"""bAbI (20 tasks): each story is read up to each question; the question is asked at its story time.

File format: ``ID text`` lines, questions ``ID question<TAB>answer<TAB>supporting ids``; IDs restart
at 1 for a new story.  Answers: a word, ``yes``/``no`` (supported Yes/No), ``maybe`` (unsupported
because the story gives alternatives), comma lists and paths.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ...core import HolokbError
from ...core.inputs import os_error
from .runner import EvalRun, ItemResult, chain_json, check_citations, run_items

_LINE = re.compile(r"^(\d+) (.*)$")


@dataclass(frozen=True, slots=True)
class Question:
    """One question with the statements of its story before it: (line id, text) each."""

    id: str
    story: tuple[tuple[int, str], ...]
    line: int
    text: str
    answer: str
    bad: str | None = None


def load(path: Path) -> list[Question]:
    """The questions of a bAbI task file; a file with no ``ID text`` lines is an error."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise os_error(e, path) from None
    out: list[Question] = []
    story: list[tuple[int, str]] = []
    n_story = 0
    seen = 0
    story_bad: str | None = None
    for lineno, bline in enumerate(raw.splitlines(), 1):
        if not bline.strip():
            continue
        try:
            line = bline.decode("utf-8")
            bad = None
        except UnicodeDecodeError:
            line, bad = bline.decode("utf-8", errors="replace"), "bad_input: text that is not UTF-8"
        m = _LINE.match(line)
        if m is None:
            raise HolokbError(f"{path}:{lineno}: not a bAbI line (expected 'ID text')")
        seen += 1
        ident, rest = int(m.group(1)), m.group(2)
        if ident == 1:
            story = []
            n_story += 1
            story_bad = None
        if bad and "\t" not in m.group(2):  # a story line that is not UTF-8: every later question of the story
            story_bad = f"bad_input: story line {ident} is not UTF-8"
        if "\t" in rest:
            parts = rest.split("\t")
            if len(parts) < 2:
                raise HolokbError(f"{path}:{lineno}: a question line needs question<TAB>answer")
            q, a = parts[0].strip(), parts[1].strip()
            out.append(Question(f"{Path(path).name}:{n_story}:{ident}", tuple(story), ident, q, a,
                                bad or story_bad or (None if q and a else "bad_input: empty question or answer")))
        elif rest.strip():  # a statement line with no text states nothing (and has no sentence to time)
            story.append((ident, rest.strip()))
    if not seen:
        raise HolokbError(f"{path}: not a bAbI file (no 'ID text' lines)")
    return out


_reader = None
_planner = None
_extra = None
_cache: dict = {}


def _init() -> None:
    global _reader, _planner, _extra
    if _reader is None:
        from ...ingest.english import EnglishReader
        from ...resources import data_dir
        from ...syntax import parse_file
        from ..english_planner import EnglishPlanner

        _reader = EnglishReader()
        _planner = EnglishPlanner(_reader)
        _extra = (parse_file(data_dir("rules") / "babi.hkr"),)


def _story(q: Question):
    """The story before the question, read and closed (cached for consecutive questions)."""
    from ..over_reading import close_reading

    key = q.story
    hit = _cache.get("key")
    if hit is not None and hit[0] == key:
        return hit[1]
    text = "\n".join(s for _, s in q.story)
    reading = _reader.read(text, story_times=[i for i, _ in q.story])
    story = close_reading(reading, text, document=q.id.rsplit(":", 1)[0], extra=_extra)
    _cache["key"] = (key, story)
    return story


def _resolve(plan, story):
    """Question words name story entities case-insensitively ("gertrude" is Gertrude)."""
    from ...analysis.program import Const
    from ...core import IRI

    names: dict[str, IRI] = {}
    for f in story.reading.facts:
        for t in (f.fact.subject, f.fact.object):
            if isinstance(t, IRI):
                names.setdefault(t.value.lower(), t)

    def fix(c):
        if isinstance(c, Const) and isinstance(c.term, IRI) and c.term.value.lower() in names:
            return Const(names[c.term.value.lower()])
        return c

    def pat(p):
        return None if p is None else replace(p, subject=fix(p.subject), object=fix(p.object))

    time = plan.time
    if time is not None and time.anchor is not None:
        time = replace(time, anchor=pat(time.anchor))
    return replace(plan, goal=pat(plan.goal), subjects=tuple(fix(s) for s in plan.subjects), time=time,
                   conditions=tuple(pat(c) for c in plan.conditions))


def predicted_word(answer) -> str | None:
    """The answer as bAbI words: yes/no, a value, "maybe" for a story's alternatives, else None."""
    from ..contract import MissingKind, Verdict

    if answer.verdict is Verdict.SUPPORTED:
        if answer.text in ("Yes", "No"):
            return answer.text.lower()
        # A class as a value ("afraid of wolves": the kind entity kind/wolf) is named by its word.
        return answer.text.removeprefix("kind/") if answer.text else None
    m = answer.missing
    return "maybe" if m is not None and m.kind is MissingKind.NOT_PROVED and "maybe" in m.message else None


def score(q: Question) -> ItemResult:
    from ..contract import Verdict
    from ..plan import TimeKind, TimeRef, Unplannable
    from ..story_answer import answer_at

    _init()
    group = q.id.split(":", 1)[0]
    if q.bad:
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=q.bad, bad_input=True, path=OVER_READING)
    story = _story(q)
    skips = tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text, "detail": s.detail}
                  for s in story.reading.skips)
    plan = _planner.plan(q.text)
    if isinstance(plan, Unplannable):
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"question: {plan.message}",
                          skips=skips, bad_input=True, path=OVER_READING)
    plan = _resolve(plan, story)
    if plan.time is None:
        plan = replace(plan, time=TimeRef(TimeKind.AT, instant=q.line))
    lex = _reader.lexicon
    answer = answer_at(story, plan, functional={lex.expand(k): v for k, v in lex.table("functional").items()},
                       groups={lex.expand(k): lex.expand(v) for k, v in lex.table("functional_groups").items()},
                       inertia={lex.expand(k): (lex.expand(v["since"]), lex.expand(v["until"]))
                                for k, v in lex.table("inertia").items()},
                       words={str(k): str(v) for k, v in lex.table("answer_words").items()},
                       labels={lex.expand(k): str(v) for k, v in lex.table("directions").items()},
                       defaults={lex.expand(k): {**v, "own": lex.expand(v["own"]), "mate": lex.expand(v["mate"])}
                                 for k, v in lex.table("defaults").items()})
    predicted = predicted_word(answer)
    correct = predicted == q.answer
    reason = None if answer.verdict is Verdict.SUPPORTED else (answer.missing.message if answer.missing else "")
    cited, ok = check_citations(answer, story.text, {(s.start, s.end) for s in story.reading.sentences})
    return ItemResult(q.id, q.answer, predicted, answer.verdict.value, correct, group, chain_json(answer), reason,
                      skips, cited=cited if correct else None, spans_ok=ok if correct else None, path=OVER_READING)


OVER_READING = "over_reading"

#: Tasks whose story semantics kb.answer does not have yet: their files are answered over the
#: reading (``answer/story_answer.py``), and every result and summary line says so.  Every other
#: file, and a file whose name carries no task number, is answered through kb.answer.  Empty:
#: every task (1-20) goes through kb.answer; the over-reading path stays as the differential check
#: (``--via reading``).
OVER_READING_TASKS: frozenset[int] = frozenset()

_TASK = re.compile(r"^qa(\d+)_")


def path_for(path: Path, via: str = "auto") -> str:
    """Which answer path scores a file: ``via`` "kb" / "reading", or "auto" by its task number."""
    if via == "kb":
        return "kb.answer"
    if via == "reading":
        return OVER_READING
    m = _TASK.match(Path(path).name)
    return OVER_READING if m and int(m.group(1)) in OVER_READING_TASKS else "kb.answer"


def eval_babi(paths: list[Path], *, limit: int | None = None, jobs: int = 1, via: str = "auto",
              per_story: bool = True) -> list[EvalRun]:
    """One run per task file (first ``limit`` questions of each), each through the path
    :func:`path_for` names (kb.answer unless the task still needs the over-reading path).  Through
    kb.answer, ``per_story`` (default) keeps one KB per story, ingested once as the story goes
    (``babi_kb.score_story``); without it every question gets a KB of its own story so far
    (``babi_kb.score_via_kb``, the differential check)."""
    from .babi_kb import score_story, score_via_kb, stories

    if via not in ("auto", "kb", "reading"):
        raise HolokbError(f"unknown answer path {via!r} (auto, kb or reading)")
    runs = []
    for p in paths:
        qs = load(p)
        if limit is not None:
            qs = qs[:limit]
        if path_for(p, via) != "kb.answer":
            results = run_items(qs, score, jobs=jobs, init=_init, chunksize=16)
        elif per_story:
            results = [r for rs in run_items(stories(qs), score_story, jobs=jobs, init=_init, chunksize=2) for r in rs]
        else:
            results = run_items(qs, score_via_kb, jobs=jobs, init=_init, chunksize=16)
        runs.append(EvalRun(str(p), tuple(results)))
    return runs
