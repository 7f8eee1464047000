"""Rules a sentence states: conditionals ("If something is red then it is big."), generic statements
("Red things are big.", "No cat is green.", "Only big things are red."), with "or" in their
conditions read as one rule for each way the conditions hold."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from lark import Token, Tree

from ...analysis.program import Atom, Const, Rule, Var
from ...core import RDF_TYPE
from .structures import VERBAL, Frame, Meaning, Prop, Ref, Unresolved, Unsupported, has, kids, tokens_of

if TYPE_CHECKING:
    from .scope import Scope


class RuleReading:
    """The Interpreter's reading of rule sentences (mixed into :class:`~.meaning.Interpreter`)."""

    def _condition_props(self, items: list[Tree], scope: "Scope", frame: Frame, *,
                         types: list[Prop] | None = None, any_of: bool = False) -> list[list[Prop]]:
        """The props of a rule's conditions or conclusions, as alternatives: one list of props for each
        way the conditions can hold ("is red or big": two; ``any_of``, the items joined by "or": each
        item's own).  An indefinite or bare plural subject ("If a cat is red …", "If cats are red …")
        is a variable of its class, whose class condition goes to ``types``; where ``types`` is None (a
        conclusion after its conditions: "… then a dog is big", which dog?) such a subject is refused,
        never read as the individual "the cat"."""
        alts: list[list[Prop]] = [[]]
        union: list[list[Prop]] = []
        subs: list[Ref] = []
        for c in items:
            pred = c.children[-1]
            if c.data in ("cond_clause", "cons_clause"):
                subs = self.subjects(c.children[0], scope)
                if any(s.kind for s in subs):
                    if types is None:
                        raise Unsupported("an indefinite or plural subject in a conclusion ('then a dog is …': which one?)")
                    subs = [self._typed_variable(s, scope, types) if s.kind else s for s in subs]
                    scope.last = subs
            elif not subs:
                raise Unresolved("a condition without a subject")
            mine: list[list[Prop]] = [[]]
            for s in subs:
                mine = _product(mine, self.alternatives(pred, s, scope, frame))
            if any_of:
                union += mine
            else:
                alts = _product(alts, mine)
        return union if any_of else alts

    def alternatives(self, t: Tree, subject: Ref, scope: "Scope", frame: Frame) -> list[list[Prop]]:
        """The props of predicate ``t`` as alternatives: one list for a predicate, one for each
        adjective of "is red or big" (which states no fact: :meth:`predicate` refuses it)."""
        if t.data != "be_adj_or":
            return [self.predicate(t, subject, scope, frame)]
        items = _either(kids(t, "adjectives_or")[0])
        return [self.predicate(Tree("be_adj", [Tree("adjectives", [i])]), subject, scope, frame) for i in items]

    def conditional(self, body: Tree, scope: "Scope", out: Meaning, *, conclusion_first: bool = False,
                    unless: bool = False) -> None:
        """"If something is red then it is big." (also without "then": "If something is red it is big.",
        "When something is red, it is big."); ``conclusion_first``: "Something is big if it is red." (the
        clauses read in the order written, so "it" refers back to "something" either way).  Conditions
        joined by "or" ("If something is red or big …", "If the cat is red or the dog is big …") give
        one rule for each way they can hold.  ``unless``: "Unless something is cold, it is red." is "If
        something is not cold then it is red." (one condition only: "unless it is cold and big" could
        deny either part)."""
        frame = Frame()
        scope.in_rule = True
        words = [t.value.lower() for t in body.children if isinstance(t, Token) and t.type.startswith(("W_", "C_"))]
        if has(body, "AS") and words != ["long"]:  # "as long as" only ("as big as …" is no condition)
            raise Unsupported(f"'as {' '.join(words)} as' opening a condition")
        cond_tree = [c for c in body.children if isinstance(c, Tree) and c.data in ("conditions", "conditions_or")][0]
        conds = [c for c in cond_tree.children if isinstance(c, Tree)]
        any_of = cond_tree.data == "conditions_or"
        so = kids(body, "so_consequent")
        if so:  # "If the cat is big, so is the dog."
            conss = [_so_consequent(so[0], conds, any_of)]
        else:
            conss = [c for c in kids(body, "consequents")[0].children if isinstance(c, Tree)]
        types: list[Prop] = []  # class conditions of indefinite subjects ("a cat"): conditions too
        if conclusion_first:
            cons = self._condition_props(conss, scope, frame, types=types)
            before = len(scope.kind_objects)
            cond = self._condition_props(conds, scope, frame, types=types, any_of=any_of)
            if len(scope.kind_objects) > before:
                _no_kind_in_condition(scope)
        else:
            cond = self._condition_props(conds, scope, frame, types=types, any_of=any_of)
            _no_kind_in_condition(scope)
            cons = self._condition_props(conss, scope, frame)
        if len(cons) != 1:
            raise Unsupported("'or' in a conclusion (which of them holds?)")
        if unless:
            if len(cond) != 1 or len(cond[0]) != 1 or types:
                raise Unsupported("'unless' with more than one condition (which of them is denied?)")
            cond = [[replace(cond[0][0], negated=not cond[0][0].negated)]]
        if any_of and types:
            # "If a cat is red or a dog is big then …": each rule would need only its own class
            raise Unsupported("an indefinite subject in conditions joined by 'or'")
        for alt in _bounded(cond):
            self._rules(out, scope, types + alt, cons[0], scope.kind_objects)

    def only_if(self, body: Tree, scope: "Scope", out: Meaning) -> None:
        """"Something is red only if it is cold." is "If something is red then it is cold.": the
        predicates of the clause (or clauses) before "only if" are the conditions."""
        first = body.children[0]
        conds = []
        for clause in kids(first, "clause") if first.data == "clauses" else [first]:
            subjects = kids(clause, "subjects")[0]
            preds = [c for c in kids(clause, "predicates")[0].children if isinstance(c, Tree)]
            conds += [Tree("cond_clause", [subjects, preds[0]])] + [Tree("cond_elided", [p]) for p in preds[1:]]
        self.conditional(Tree("conditional", [Tree("conditions", conds)] + kids(body, "consequents")), scope, out)

    def _typed_variable(self, ref: Ref, scope: "Scope", types: list[Prop]) -> Ref:
        """A fresh rule variable for the generic subject ``ref`` ("a cat"), its class condition added to ``types``."""
        x = scope.variable()
        types.extend(Prop(x, RDF_TYPE, c) for c in ref.members)
        scope.typed[ref.term] = x  # "… a dog is big then the dog …": the same dog
        return Ref(x, agree=ref.agree)

    def generic_statement(self, body: Tree, scope: "Scope", out: Meaning) -> None:
        """One generic statement: "Only big things are red." or any other form (:meth:`generic`)."""
        (self.generic_only if body.data == "generic_only" else self.generic)(body, scope, out)

    def generic(self, body: Tree, scope: "Scope", out: Meaning) -> None:
        frame = Frame()
        scope.in_rule = True
        x = scope.variable()
        cond: list[list[Prop]] = [[]]
        # "No cat is green." is "Every cat is not green.": the same conditions, the conclusion denied.
        denied = body.data.startswith("generic_no_")
        form = body.data.replace("generic_no_", "generic_")
        if form in ("generic_adj", "generic_adj_rel"):  # "Red, cold things …", "Nice people who …"
            adjs = [c for c in body.children if isinstance(c, Tree) and c.data in ("adjectives", "adjectives_or")][0]
            items = _either(adjs) if adjs.data == "adjectives_or" else kids(adjs, "adj_item")
            props = [Prop(x, RDF_TYPE, self.class_iri([tokens_of(item)[-1].value]), has(item, "NOT")) for item in items]
            cond = [[p] for p in props] if adjs.data == "adjectives_or" else [props]  # "Red or big things …"
        elif form not in ("generic_rel", "generic_obj_rel"):
            words = [t.value for t in tokens_of(kids(body, "nominal")[0])]
            cond = [[Prop(x, RDF_TYPE, c) for c in self.member_classes(words)]]
        if form in ("generic_rel", "generic_adj_rel", "generic_noun_rel"):  # "Anything that is red and sees the dog …"
            for p in kids(body, "relative")[0].children:
                if isinstance(p, Tree):
                    cond = _product(cond, self.alternatives(p, Ref(x), scope, frame))
        for rel in kids(body, "obj_relative"):  # "Things that the cat chases …": the cat chases ?x
            cond = _product(cond, [self._object_relative(rel, x, scope, frame)])
        _no_kind_in_condition(scope)
        scope.last = [Ref(x)]
        cons = [q for p in kids(body, "predicates")[0].children if isinstance(p, Tree) for q in self.predicate(p, Ref(x), scope, frame)]
        if denied:
            if len(cons) != 1 or scope.kind_objects:
                # "No cat is big and red.": not both, or neither?  Refused rather than guessed.
                raise Unsupported("'no …' with more than one conclusion (not both, or none of them?)")
            cons = [replace(cons[0], negated=not cons[0].negated)]
        for alt in _bounded(cond):
            self._rules(out, scope, alt, cons, scope.kind_objects)

    def _object_relative(self, rel: Tree, x: Var, scope: "Scope", frame: Frame) -> list[Prop]:
        """"(that) the cat does not chase": what its subject does to ``x``, the clause's missing object."""
        subject_t = [c for c in rel.children if isinstance(c, Tree) and c.data != "particle"][0]
        if subject_t.data in ("pronoun", "reflexive", "anaphor"):
            raise Unresolved("a pronoun in a relative clause ('things that it chases'): who?")
        subject = self.np(subject_t, scope)
        who: list[Prop] = []
        if subject.kind:  # "that cats chase": what some member of the kind chases
            y = Var(f"z{len(scope.vars)}")
            who = [Prop(y, RDF_TYPE, c) for c in subject.members]
            subject = Ref(y)
        verb = [c for c in rel.children if isinstance(c, Token) and c.type.startswith("W_")]
        gap = Tree("objects", [Tree("gap", [])])
        scope.gap = x
        try:
            return who + self.verb_phrase(Tree("verb", verb + kids(rel, "particle") + [gap]), subject.term, scope,
                                          frame, has(rel, "NOT"))
        finally:
            scope.gap = None

    def generic_only(self, body: Tree, scope: "Scope", out: Meaning) -> None:
        """"Only big, kind things are red." = whatever is red is big and kind."""
        scope.in_rule = True
        x = scope.variable()
        lists = [[tokens_of(i) for i in kids(a, "adj_item")] for a in kids(body, "adjectives")]
        if any(len(toks) != 1 for items in lists for toks in items):
            raise Unsupported("a negated adjective with 'only'")
        if len(lists[1]) != 1:
            raise Unsupported("'only … things are' several adjectives (all of them, or each?)")
        scope.last = [Ref(x)]
        cond = [Prop(x, RDF_TYPE, self.class_iri([lists[1][0][0].value]))]
        self._rules(out, scope, cond, [Prop(x, RDF_TYPE, self.class_iri([t[0].value])) for t in lists[0]])

    def _rules(self, out: Meaning, scope: "Scope", cond: list[Prop], cons: list[Prop], kinds: list[Prop] = ()) -> None:
        """One rule per conclusion; ``kinds`` (bare plural objects' classes) join the body of the
        conclusions that name their variable."""
        for p in cons:
            mine = [k for k in kinds if k.subject in (p.subject, p.object)]
            body = tuple(_atom(q) for q in cond + mine)
            body_vars = {a for q in cond + mine for a in (q.subject, q.object) if isinstance(a, Var)}
            if any(isinstance(a, Var) and a not in body_vars for a in (p.subject, p.object)):
                raise Unresolved("a conclusion about someone the conditions do not name")
            scope.ctx.rule_count += 1
            out.rules.append(Rule(f"sentence_rule_{scope.ctx.rule_count}", _atom(p), body))



#: Conditions with "or" give one rule for each way they hold; more than this many is refused.
MAX_ALTERNATIVES = 16


def _product(alts: list[list[Prop]], options: list[list[Prop]]) -> list[list[Prop]]:
    """Every way both hold: each alternative of ``alts`` joined with each of ``options``."""
    return [a + o for a in alts for o in options]


def _so_consequent(so: Tree, conds: list[Tree], any_of: bool) -> Tree:
    """"If the cat is big, so is the dog." (then the dog is too / neither is the dog): the conclusion
    is the one condition's predicate said of the new subject.  The auxiliary must fit the predicate
    ("so is" a copula, "so does" a verb) and "so" / "too" an affirmed condition, "neither" / "not
    either" a denied one; several conditions are refused (which of them is repeated?)."""
    if len(conds) != 1 or any_of or conds[0].data != "cond_clause":
        raise Unsupported("'so is …' after several conditions (which of them holds of it?)")
    pred = [c for c in conds[0].children if isinstance(c, Tree) and c.data != "subjects"][0]
    aux = [c for c in so.children if isinstance(c, Token) and c.type in ("BE", "DO")][0]
    if (pred.data in VERBAL) != (aux.type == "DO"):
        raise Unsupported(f"'{aux.value}' does not repeat the condition's predicate")
    denied = has(pred, "NOT") or any(has(i, "NOT") for i in pred.iter_subtrees() if i.data == "adj_item")
    if denied != (has(so, "NEITHER") or has(so, "NOT")):
        raise Unsupported("'so' after a denied condition, or 'neither' after an affirmed one")
    np = [c for c in so.children if isinstance(c, Tree)][0]
    if np.data in ("pronoun", "anaphor", "reflexive"):
        raise Unsupported("'so is it': the condition's subject again, or another thing?")
    return Tree("cons_clause", [Tree("subjects", [np]), pred])


def _either(adjectives_or: Tree) -> list[Tree]:
    """The items of "red or big"; "not red or big" is refused (neither of them, or not red or big?)."""
    items = kids(adjectives_or, "adj_item")
    if has(items[0], "NOT"):
        raise Unsupported("'not … or …' (neither of them, or only the first denied?)")
    return items


def _bounded(alts: list[list[Prop]]) -> list[list[Prop]]:
    if len(alts) > MAX_ALTERNATIVES:
        raise Unsupported(f"conditions with 'or' that hold in {len(alts)} ways (at most {MAX_ALTERNATIVES} rules a sentence)")
    return alts


def _no_kind_in_condition(scope: "Scope") -> None:
    """"If someone likes cats …": every cat or some cat?  Refused rather than guessed."""
    if scope.kind_objects:
        raise Unsupported("a bare plural object in a condition ('likes cats': all of them or some?)")


def _atom(p: Prop) -> Atom:
    args = tuple(a if isinstance(a, Var) else Const(a) for a in (p.subject, p.object))
    return Atom(p.predicate, args, p.negated)


