"""Sentences of several clauses about named things: "The cat is big and so is the dog.", "So is the
dog." (the sentence before again), "Neither the cat nor the dog is red.", "It is not the case that
the bear is red.", and the boundary between two clauses joined by "and"."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from lark import Token, Tree

from ...analysis.program import Var
from .structures import VERBAL, Frame, Meaning, Prop, Unresolved, Unsupported, has, kids

if TYPE_CHECKING:
    from .scope import Scope


class ClauseReading:
    """The Interpreter's reading of clause-joining sentences (mixed into :class:`~.meaning.Interpreter`)."""

    def _clause_boundary(self, scope: "Scope", out: Meaning) -> None:
        """Between two clauses joined by "and" / "but", a pronoun refers back as after a sentence: "The
        bear is big and it is red." (it: the bear, the clause before's one subject, when that clause had
        no object it could also be); the genders the clauses before gave ("Bob is a man and …") count."""
        scope.hand_over()
        scope.last, scope.objects = [], []
        for who, g in self._stated_genders(out):
            scope.genders.setdefault(who, g)

    def not_the_case(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"It is not the case that the bear is red." (or "It is false / not true that …") denies one
        statement, "It is true that …" states it; a clause stating several
        ("… that the bear is big and red": not both, or neither?) or a rule is refused."""
        words = [t.value.lower() for t in body.children if isinstance(t, Token) and t.type not in ("BE", "NOT", "THE", "THAT")]
        if words not in (["it", "case"], ["it", "true"], ["it", "false"], ["it", "untrue"]):
            raise Unsupported(f"'{' '.join(words)}' before 'that'")
        deny = has(body, "NOT") != (words[1] in ("false", "untrue"))
        p, f = self._one_fact(kids(body, "clause")[0], scope, frame, "'it is not the case that' a clause")
        out.props.append((replace(p, negated=p.negated != deny), f))

    def _one_fact(self, clause: Tree, scope: "Scope", frame: Frame, what: str) -> tuple[Prop, Frame]:
        """The one plain fact ``clause`` states, for a form that turns it around ("it is not the case
        that …", "neither … nor …"); a clause stating several, a rule, a type of an aside or an event is
        refused (not both, or neither?)."""
        inner = Meaning()
        extra, events = len(scope.extra), len(scope.events)
        self.clause(clause, scope, frame, inner)
        if len(inner.props) != 1 or inner.rules or len(scope.extra) > extra or len(scope.events) > events \
                or inner.props[0][0].kind:
            raise Unsupported(f"{what} stating more (or other) than one fact")
        return inner.props[0]

    def so_clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"The cat is big and so is the dog." (and "…, as is the dog."): the clause, then its predicates
        again of the new subject; "… is not big and neither is the dog." the same for a denial.  The
        auxiliary must fit ("so is" after "is", "so does" after a verb) and "so" / "neither" the
        clause's polarity, else the sentence is refused."""
        clause = kids(body, "clause")[0]
        props, rules = len(out.props), len(out.rules)
        self.clause(clause, scope, frame, out)
        preds = kids(clause, "predicates")[0]
        verbal = [p.data in VERBAL for p in preds.children if isinstance(p, Tree)]
        aux = [c for c in body.children if isinstance(c, Token) and c.type in ("BE", "DO")][0]
        if any(verbal) if aux.type == "BE" else not all(verbal):
            raise Unsupported(f"'{aux.value}' does not repeat the clause's predicate")
        said = [p.negated for p, _ in out.props[props:]] + [r.head.negated for r in out.rules[rules:]]
        if not said or any(said) != (has(body, "NEITHER") or has(body, "NOT")) or len(set(said)) > 1:
            raise Unsupported("'so' after a denial, or 'neither' after a statement")
        self._clause_boundary(scope, out)
        np = [c for c in body.children if isinstance(c, Tree) and c.data != "clause"][0]
        self.clause(Tree("clause", [Tree("subjects", [np]), preds]), scope, frame, out)

    def so_sentence(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"So is the dog.", "The dog is too / as well.", "Neither / Nor does the dog.", "The dog isn't
        either.": what the sentence before said of its last subject, said again of this one.  The
        auxiliary must fit the predicates repeated ("is" after "is red", "does" after "chases the
        cat"), and "so" / "too" a statement, "neither" / "nor" / "not either" a denial; a sentence
        before that was a rule, a question or about several things at once leaves nothing to repeat."""
        if not scope.ctx.last_said:
            raise Unresolved("'so is …' / '… is too' with no plain statement before it to repeat")
        aux_kind, said = scope.ctx.last_said
        aux = [c for c in body.children if isinstance(c, Token) and c.type in ("BE", "DO")][0]
        if aux.type != aux_kind:
            raise Unsupported(f"'{aux.value}' does not repeat the sentence before's predicate")
        denial = has(body, "NEITHER") or has(body, "NOR") or has(body, "NOT")
        if any(neg != denial for _, _, neg in said):
            raise Unsupported("'so' / 'too' after a denial, or 'neither' after a statement")
        subject = self.np([c for c in body.children if isinstance(c, Tree)][0], scope)
        if subject.kind or isinstance(subject.term, Var):
            raise Unsupported("'so is …' about a kind or someone unnamed")
        for pred, obj, neg in said:
            out.props.append((Prop(subject.term, pred, obj, neg), Frame(version=frame.version)))
        scope.last = [subject]
        scope.said = scope.ctx.last_said

    def neither_clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"Neither the cat nor the dog is red.": each subject's one statement, denied (a predicate
        stating more than one thing, or a generic subject, is refused: not both, or neither?)."""
        nps = [c for c in body.children if isinstance(c, Tree)][:-1]
        pred = [c for c in body.children if isinstance(c, Tree)][-1]
        what = "'neither … nor' with a predicate"
        for np in nps:
            p, f = self._one_fact(Tree("clause", [Tree("subjects", [np]), Tree("predicates", [pred])]), scope, frame, what)
            if p.negated:  # "Neither the cat nor the dog is not red."
                raise Unsupported(f"{what} stating more (or other) than one fact")
            out.props.append((replace(p, negated=True), f))
