"""Questions in controlled English → :class:`QueryPlan` (DS005 §5.2: templates, no LLM).

The question forms are alternatives of ``question`` in grammar/english.lark; a claim ("Bob is
green.", the form ProofWriter asks about) is planned as "is this statement true?".

>>> p = EnglishPlanner().plan_claim("The bald eagle does not chase the dog.")
>>> p.goal.polarity, p.answer_form.value
('negate', 'yesNo')
"""
from __future__ import annotations

from ..analysis.program import Const, Var
from ..ingest.english.meaning import Context, Meaning
from ..ingest.english.reader import EnglishReader
from ..ingest.english.reading import ReadSkip
from ..core import Literal
from .plan import (
    AnswerForm, Check, Compare, Param, Pattern, QueryPlan, TimeKind, TimeRef, Unplannable, UnplannableReason, World,
    YesWhen,
)

MAX_QUESTION_CHARS = 2000


class EnglishPlanner:
    """Plans questions with the controlled-English grammar and lexicon of an :class:`EnglishReader`."""

    def __init__(self, reader: EnglishReader | None = None):
        self.reader = reader or EnglishReader()

    def plan(self, question: str) -> QueryPlan | Unplannable:
        """A plan for a question ("Is Bob green?") or a claim to check ("Bob is green.")."""
        text = question.strip()
        if not text:
            return Unplannable(UnplannableReason.EMPTY, "the question is empty")
        if len(text) > MAX_QUESTION_CHARS:
            return Unplannable(UnplannableReason.TOO_LONG, f"longer than {MAX_QUESTION_CHARS} characters")
        return self.plan_claim(text)

    def plan_claim(self, statement: str) -> QueryPlan | Unplannable:
        """"Is this statement true?" for one statement (open world: unprovable is unknown)."""
        meaning = self.reader.read_sentence(statement, 0, Context(), questions=True)
        if isinstance(meaning, ReadSkip):
            return Unplannable(UnplannableReason.NOT_UNDERSTOOD, f"{meaning.code.value}: {meaning.detail}",
                               0, len(statement))
        if meaning.judgement is not None:
            return self._judgement(meaning, statement)
        if meaning.ask:
            return self._wh(meaning, statement)
        return _yes_no(meaning, statement)

    def _wh(self, meaning: Meaning, text: str) -> QueryPlan | Unplannable:
        """Where / where-before / what questions: a value of the goal's object at a valid time."""
        from ..core import IRI

        kind, subject = meaning.ask[0], meaning.ask[1]
        if kind == "event":  # the asked role of an event whose other roles the question names
            e, role = Var("event"), Const(IRI(subject))
            conditions = tuple(Pattern(Const(IRI(r)), e, Const(t)) for r, t in meaning.ask[2])
            return QueryPlan(subjects=tuple(c.object for c in conditions),
                             predicates=(role, *(c.predicate for c in conditions)),
                             goal=Pattern(role, e, Var("who")), form=AnswerForm.VALUE, question=text,
                             conditions=conditions)
        if kind == "path":
            lex = self.reader.lexicon
            preds = tuple(Const(IRI(lex.expand(k))) for k in sorted(lex.table("directions")))
            if not preds:
                return Unplannable(UnplannableReason.UNKNOWN_WORD, "no [directions] in the lexicon", 0, len(text))
            return QueryPlan(subjects=(Const(subject),), predicates=preds,
                             goal=Pattern(Var("step"), Const(subject), Const(meaning.ask[2])), form=AnswerForm.PATH,
                             question=text)
        if kind.startswith("where"):
            entry = self.reader.interpreter._verb_entry("be in")
            pred = Const(IRI(self.reader.lexicon.expand(entry.get("predicate", "ex:isIn"))))
            goal = Pattern(pred, Const(subject), Var("where"))
            time = None
            if kind != "where":
                anchor = Pattern(pred, Const(subject), Const(meaning.ask[2]))
                time = TimeRef(TimeKind.BEFORE if kind == "where_before" else TimeKind.AFTER, anchor=anchor)
            return QueryPlan(subjects=(Const(subject),), predicates=(pred,), goal=goal, form=AnswerForm.VALUE,
                             time=time, question=text)
        pred = Const(IRI(meaning.ask[2]))
        if kind in ("count", "list"):
            return QueryPlan(subjects=(Const(subject),), predicates=(pred,), goal=Pattern(pred, Const(subject), Var("x")),
                             form=AnswerForm.COUNT if kind == "count" else AnswerForm.LIST, question=text)
        if kind == "what_subject":
            return QueryPlan(subjects=(Const(subject),), predicates=(pred,), goal=Pattern(pred, Var("what"), Const(subject)),
                             form=AnswerForm.VALUE, question=text)
        return QueryPlan(subjects=(Const(subject),), predicates=(pred,), goal=Pattern(pred, Const(subject), Var("what")),
                         form=AnswerForm.VALUE, question=text)

    def _judgement(self, meaning: Meaning, text: str) -> QueryPlan | Unplannable:
        """A judgement (lexicon ``[judgements]``): compare the condition's value with a stored one."""
        from ..core import IRI

        lex = self.reader.lexicon
        spec = lex.table("judgements").get(meaning.judgement or "")
        if spec is None:
            return Unplannable(UnplannableReason.UNKNOWN_WORD, f"no judgement '{meaning.judgement}' in the lexicon",
                               0, len(text))
        param = lex.expand(spec["param"])
        given = [p for p, _ in meaning.props if p.predicate == param]
        if len(given) != 1 or not isinstance(given[0].object, Literal):
            return Unplannable(UnplannableReason.UNKNOWN_FORM,
                               f"the condition must give one value for {spec['param']}", 0, len(text))
        name = param.rsplit("/", 1)[-1].rsplit("#", 1)[-1]
        subject = Const(IRI(lex.expand("ex:" + spec["subject"])))
        predicate = Const(IRI(lex.expand(spec["predicate"])))
        limit = Var("limit")
        check = Check((Compare(Param(name), spec.get("op", ">"), limit),),
                      derives=Pattern(Const(IRI(lex.expand(spec["derives"]))), subject) if "derives" in spec else None,
                      yes_when=YesWhen(spec.get("yes_when", "holds")))
        return QueryPlan(version=meaning.version, subjects=(subject,), predicates=(predicate,),
                         goal=Pattern(predicate, subject, limit), params=((name, given[0].object),),
                         form=AnswerForm.YES_NO, check=check, question=text)


def _term(t) -> Const | Var:
    return t if isinstance(t, Var) else Const(t)


def _yes_no(meaning: Meaning, text: str) -> QueryPlan | Unplannable:
    """One fact asked ("Is the bear red?"), or several at once ("Is the bear big and red?": the goal
    and, as conditions, the others; yes when every one holds)."""
    if meaning.rules or not meaning.props:
        return Unplannable(UnplannableReason.UNKNOWN_FORM,
                           "a yes/no question must state facts (not a rule)", 0, len(text))
    from ..core import IRI

    asked = []
    for p, _ in meaning.props:
        if isinstance(p.subject, Var) or isinstance(p.object, Var):
            return Unplannable(UnplannableReason.UNKNOWN_FORM, "a claim about someone unnamed", 0, len(text))
        pattern = Pattern(Const(IRI(p.predicate)), _term(p.subject), _term(p.object),
                          polarity="negate" if p.negated else "affirm")
        if pattern not in asked:
            asked.append(pattern)
    return QueryPlan(subjects=tuple(dict.fromkeys(g.subject for g in asked)),
                     predicates=tuple(dict.fromkeys(g.predicate for g in asked)), goal=asked[0],
                     form=AnswerForm.YES_NO, world=World.OPEN, question=text, conditions=tuple(asked[1:]))
