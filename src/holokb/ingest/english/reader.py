"""The controlled-English reader: text → facts, rules and skips, each with its exact source span.

>>> r = EnglishReader().read("AchillesIDE uses Ploinky. Blorp the zibble!")
>>> [(f.fact.predicate.value.rsplit('/', 1)[-1], f.span.start, f.span.end) for f in r.facts]
[('uses', 0, 25)]
>>> [(s.code.value, s.text) for s in r.skips]
[('unparsed', 'Blorp the zibble!')]
"""
from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput

from ...core import Fact, Interval, Literal
from ...resources import data_dir
from .lexicon import LexError, Lexicon, TokenFeed, Word
from .parses import MAX_PARSES, Parses, parses, priorities
from .meaning import Context, Frame, Interpreter, Meaning, Prop, Unresolved, Unsupported
from .reading import ReadFact, Reading, ReadRule, ReadSkip, SkipCode, SourceSpan

#: Sentences end at . ! ? followed by white space (or the end), or at a line break.
_SENTENCE = re.compile(r"[^\s](?:[^\n]*?)(?:[.!?;](?=\s|$)|(?=\s*\n)|$)")

MAX_SENTENCE_CHARS = 2000
MAX_SHAPES = 50_000  # cached parse trees by token-type sequence

EXTRACTOR_ID = "holokb.english"
EXTRACTOR_VERSION = "1"


@lru_cache(maxsize=4)
def _parser(grammar: str) -> Lark:
    # Every derivation, so a sentence whose parses mean different things is refused (see parses.py).
    return Lark(grammar, parser="earley", lexer=TokenFeed, ambiguity="explicit", propagate_positions=False,
                start=["start", "question_start"])


@lru_cache(maxsize=4)
def _priorities(grammar: str) -> dict[str, int]:
    return priorities(_parser(grammar))


def _parse(grammar: str, words: list[Word]) -> Parses:
    start = "question_start" if words and words[-1].type == "QMARK" else "start"
    return parses(_parser(grammar).parse(words, start=start), _priorities(grammar))


@lru_cache(maxsize=4)
def _shape_cache(grammar: str) -> dict[tuple[str, ...], object]:
    """Parse trees (or parse errors) by token-type sequence, shared by every reader of ``grammar``: a
    tree depends only on the grammar and the types, so a new reader (one per ingested document)
    need not pay Earley again for shapes already seen in this process."""
    return {}


def warm_shapes(reader: "EnglishReader", texts: "Sequence[str]", jobs: int) -> int:
    """Parse the distinct sentence shapes of ``texts`` once, split over ``jobs`` processes, into this
    process's shape cache, so a process pool forked afterwards starts warm instead of every worker
    parsing every shape again (Earley dominates the cost of reading a corpus).  Returns how many
    shapes were parsed.  Shapes that do not parse are left to the readers (they report the error)."""
    todo: dict[tuple[str, ...], list[Word]] = {}
    for text in texts:
        for a, b in sentences(text):
            if b - a > MAX_SENTENCE_CHARS:
                continue
            try:
                words = reader.tokens(text[a:b], a)
            except LexError:
                continue
            key = tuple(w.type for w in words)
            if words and key not in reader._shapes:
                todo.setdefault(key, words)
    if not todo:
        return 0
    import multiprocessing as mp

    items = sorted(todo.items())
    parts = [items[i::jobs] for i in range(jobs)]
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    with ctx.Pool(jobs) as pool:
        for done in pool.map(_parse_shapes, parts):
            reader._shapes.update(done)
    return len(items)


def _parse_shapes(items: list) -> dict:
    grammar = EnglishReader().grammar
    out = {}
    for key, words in items:
        try:
            out[key] = _parse(grammar, words)
        except (UnexpectedInput, LarkError):
            continue
    return out


def sentences(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every sentence of ``text`` in order."""
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text)]


class EnglishReader:
    """Reads controlled English (grammar/english.lark, lexicon grammar/english.toml + ``lexicons``)."""

    extractor_id = EXTRACTOR_ID
    extractor_version = EXTRACTOR_VERSION

    def __init__(self, *, lexicons: tuple[str | Path, ...] = ()):
        self.lexicon = Lexicon.load(tuple(Path(p) for p in lexicons))
        grammar = (data_dir("grammar") / "english.lark").read_text(encoding="utf-8")
        self.grammar = grammar
        self.parser = _parser(grammar)
        self.interpreter = Interpreter(self.lexicon)
        self._shapes = _shape_cache(grammar)
        self.functional = {self.lexicon.expand(k): v for k, v in self.lexicon.table("functional").items()}
        self.groups = {self.lexicon.expand(k): self.lexicon.expand(v)
                       for k, v in self.lexicon.table("functional_groups").items()}

    def tokens(self, text: str, offset: int = 0) -> list[Word]:
        return self.lexicon.tokens(text, offset)

    def parse(self, words: list[Word]) -> tuple[Tree, ...]:
        """The distinct parse trees of one sentence's tokens (raises _ParseFailure): one for most
        sentences; several when the grammar's priorities leave more than one derivation standing.

        The grammar sees only token types, so the trees are parsed once per sequence of types and
        reused with the sentence's own tokens put in (Earley costs milliseconds per sentence;
        texts repeat a few shapes many times)."""
        key = tuple(w.type for w in words)
        hit = self._shapes.get(key)
        if hit is None:
            try:
                hit = _parse(self.grammar, words)
            except (UnexpectedInput, LarkError) as e:
                hit = e
            if len(self._shapes) >= MAX_SHAPES:
                self._shapes.clear()
            self._shapes[key] = hit
        if isinstance(hit, Exception):
            raise _rebind_error(hit, words)
        if hit.truncated:
            raise _ParseFailure(f"more than {MAX_PARSES} parses: too ambiguous to read")
        return tuple(_rebind(t, words) for t in hit.trees)

    def read(self, text: str, context: Context | None = None, *, story_times: "Sequence[int] | None" = None) -> Reading:
        """Read every sentence of ``text``; what cannot be read is a :class:`ReadSkip`.

        ``context`` carries what later text may refer to (the dated heading, the last subjects,
        rule numbering) across the chunks of one document.  ``story_times`` (one per sentence) makes
        the text a story: a state change holds from its sentence's story time until the next one."""
        ctx = context if context is not None else Context()
        facts: list[ReadFact] = []
        rules: list[ReadRule] = []
        skips: list[ReadSkip] = []
        spans: list[SourceSpan] = []
        for i, (a, b) in enumerate(sentences(text)):
            span = SourceSpan(a, b, i)
            spans.append(span)
            if story_times is not None:
                ctx.story_time = story_times[i] if i < len(story_times) else None
            result = self.read_sentence(text[a:b], a, ctx)
            if isinstance(result, ReadSkip):
                skips.append(replace(result, span=span))
                # A pronoun after a sentence not read could mean someone in it: nothing to refer back to.
                ctx.last_subjects = ctx.last_objects = ctx.prev_objects = ctx.last_said = ()
                continue
            if result.heading:
                skips.append(ReadSkip(SkipCode.NO_STATEMENT, span, text[a:b], "a heading states no fact"))
            for prop, frame in result.props:
                facts.append(ReadFact(_fact(prop, frame), _interval(frame), span))
            rules.extend(ReadRule(r, span) for r in result.rules)
            if not result.heading and not result.props and not result.rules:
                skips.append(ReadSkip(SkipCode.UNSUPPORTED, span, text[a:b], "no statement in the sentence"))
        return Reading(tuple(self._supersede(facts)), tuple(rules), tuple(skips), tuple(spans))

    def read_sentence(self, sentence: str, offset: int, ctx: Context, *, questions: bool = False) -> Meaning | ReadSkip:
        """One sentence's meaning, or the skip that says why there is none (span filled by caller).

        With ``questions`` a yes/no question ("Is Bob big?") means the statement it asks about."""
        dummy = SourceSpan(offset, offset + len(sentence), -1)
        if len(sentence) > MAX_SENTENCE_CHARS:
            return ReadSkip(SkipCode.TOO_LONG, dummy, sentence[:200], f"longer than {MAX_SENTENCE_CHARS} characters")
        try:
            words = self.tokens(sentence, offset)
        except LexError as e:
            return ReadSkip(SkipCode.BAD_CHARACTER, dummy, sentence, str(e))
        if not words:
            return ReadSkip(SkipCode.UNPARSED, dummy, sentence, "empty sentence")
        try:
            trees = self.parse(words)
        except _ParseFailure as e:
            return ReadSkip(SkipCode.UNPARSED, dummy, sentence, str(e))
        if len(trees) == 1:
            return self._interpret(trees[0], ctx, words[0].start, questions, dummy, sentence)
        # Several parses: each is read against its own copy of the context; the sentence is read only
        # when every parse that means something means the same (and leaves the same context behind).
        results = []
        for tree in trees:
            mine = ctx.copy()
            results.append((self._interpret(tree, mine, words[0].start, questions, dummy, sentence), mine))
        read = [(m, c) for m, c in results if isinstance(m, Meaning)]
        if not read:
            return results[0][0]
        keys = {_meaning_key(m, c) for m, c in read}
        if len(keys) > 1:
            return ReadSkip(SkipCode.AMBIGUOUS, dummy, sentence,
                            f"{len(keys)} parses give different readings; not guessed")
        ctx.restore(read[0][1])
        return read[0][0]

    def _interpret(self, tree: Tree, ctx: Context, start: int, questions: bool, dummy: SourceSpan,
                   sentence: str) -> Meaning | ReadSkip:
        try:
            return self.interpreter.sentence(tree, ctx, start, questions=questions)
        except Unsupported as e:
            return ReadSkip(SkipCode.UNSUPPORTED, dummy, sentence, str(e))
        except Unresolved as e:
            return ReadSkip(SkipCode.UNRESOLVED, dummy, sentence, str(e))

    def _supersede(self, facts: list[ReadFact]) -> list[ReadFact]:
        """Functional predicates (lexicon ``[functional]``): a statement with a start time and no end
        ends where the next statement of the same key starts (document order among equal starts)."""
        out = list(facts)
        by_key: dict[tuple, list[int]] = {}
        for i, f in enumerate(facts):
            which = self.functional.get(f.fact.predicate.value)
            if which is None or f.valid.start == Interval.always().start:
                continue
            group = self.groups.get(f.fact.predicate.value, f.fact.predicate.value)
            key = (group, f.fact.subject if which == "subject" else f.fact.object, f.fact.qualifiers)
            by_key.setdefault(key, []).append(i)
        for idx in by_key.values():
            starts = sorted({facts[i].valid.start for i in idx})
            for i in idx:
                f = facts[i]
                later = [t for t in starts if t > f.valid.start]
                if f.valid.end is None and later:  # statements made together ("either … or") end together
                    out[i] = replace(f, valid=Interval(f.valid.start, later[0]))
        return out


def _meaning_key(m: Meaning, ctx: Context) -> tuple:
    """What a parse's reading states and leaves for later sentences, order aside (two parses of
    "Bob is big and red" may list the same props in another order)."""
    rules = sorted(repr((r.head, sorted(map(repr, r.body)))) for r in m.rules)
    return (tuple(sorted(repr(p) for p in m.props)), tuple(rules), m.heading, m.judgement, m.version, repr(m.ask),
            ctx.key())


def _rebind(tree: Tree, words: list[Word]) -> Tree:
    """The cached tree with this sentence's tokens (leaves know their token index by column)."""
    kids = []
    for c in tree.children:
        if isinstance(c, Token):
            w = words[c.column - 1]
            kids.append(Token(w.type, w.text, start_pos=w.start, end_pos=w.end, line=1, column=c.column))
        else:
            kids.append(_rebind(c, words))
    return Tree(tree.data, kids)


def _rebind_error(e: Exception, words: list[Word]) -> Exception:
    tok = getattr(e, "token", None)
    if isinstance(tok, Token) and tok.type != "$END" and tok.column and 0 < tok.column <= len(words):
        w = words[tok.column - 1]
        return _ParseFailure(f"unexpected '{w.text}' at offset {w.start}")
    return _ParseFailure("the sentence ends too early" if isinstance(e, UnexpectedInput) else type(e).__name__)


class _ParseFailure(Exception):
    pass


def _fact(p: Prop, frame: Frame) -> Fact:
    quals = (("version", Literal(frame.version)),) if frame.version else ()
    return Fact(p.subject, p.predicate if not isinstance(p.predicate, str) else _iri(p.predicate), p.object,
                quals, "negate" if p.negated else "affirm")


def _iri(s: str):
    from ...core import IRI

    return IRI(s)


def _interval(frame: Frame) -> Interval:
    if frame.valid_from is None and frame.valid_to is None:
        return Interval.always()
    start = frame.valid_from if frame.valid_from is not None else Interval.always().start
    return Interval(start, frame.valid_to)


