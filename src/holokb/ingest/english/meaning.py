"""The meaning of one parsed sentence: facts and rules (the sentence forms are grammar/english.lark).

Noun phrases denote entities (IRIs minted from the words: names keep their case, "the bald eagle"
is ``baldEagle``), kinds (a bare plural or an indefinite subject: "Session tokens", "a session
token"), variables (someone, something, and the pronouns that refer back to them inside a rule) or
values (durations, dates, numbers).  Adjectives and nouns after a copula are classes
(``rdf:type``): "Bob is big" is ``rdf:type(Bob, Big)``.  Verbs name predicates by their third-person
form joined with their particle or preposition ("expiresAfter"), unless the lexicon's ``[verbs]``
table says otherwise.
"""
from __future__ import annotations

from dataclasses import replace

from lark import Token, Tree

from ...analysis.program import Var
from ...core import IRI, RDF_TYPE, Duration, Literal
from ...core.terms import XSD_DATE
from ...core.time import parse_date_ms
from .clauses import ClauseReading
from .lexicon import Lexicon, is_plural, lemma, pos_flags
from .predicates import PredicateReading
from .questions import QuestionReading
from .rules import RuleReading
from .scope import Scope
from .structures import (DAY_MS, STORY_RANK, VERBAL, Context, Frame, Meaning, Prop, Ref, Unresolved, Unsupported, camel, has,
                         kids, tokens_of)
from .verbs import VerbReading

_UNIT_MS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": DAY_MS, "w": 7 * DAY_MS}

# What the reader and the planner take from here (the types live in .structures).
__all__ = ["Context", "Frame", "Interpreter", "Meaning", "Prop", "Ref", "Scope", "Unresolved", "Unsupported"]


class Interpreter(PredicateReading, VerbReading, ClauseReading, RuleReading, QuestionReading):
    """Turns parse trees into :class:`Meaning` under a lexicon."""

    def __init__(self, lexicon: Lexicon):
        self.lex = lexicon
        self.ns = lexicon.namespace
        self.verbs = {k: v for k, v in lexicon.table("verbs").items()}
        self.attributes = lexicon.table("attributes")
        self.aspects = frozenset(lexicon.table("aspects").get("words", ()))  # "red in color": Red
        self.classes = {k: lexicon.expand(v) for k, v in lexicon.table("classes").items()}
        self.genders = lexicon.table("genders")
        # "Bob is a man.": the classes whose members a pronoun names by gender.
        self.gender_classes = {self.class_iri([w]): g for w, g in self.genders.items() if g}

    # -- names --------------------------------------------------------------------------------
    def iri(self, local: str) -> IRI:
        return IRI(self.ns + local)

    def class_iri(self, words: list[str]) -> IRI:
        """"big" → ex:Big, "bald eagle" → ex:BaldEagle, "mice" → ex:Mouse."""
        ws = [w.lower() for w in words]
        ws[-1] = lemma(ws[-1], "NOUN") if is_plural(ws[-1]) else ws[-1]
        return self.iri(camel(ws, True))

    def member_classes(self, words: list[str]) -> tuple[IRI, ...]:
        """The classes a member of a kind named by ``words`` belongs to: each adjective before the
        noun names one, and the noun with any nouns before it one more ("big animals" are Big and
        Animal; "big fire trucks" Big and FireTruck: a fire truck is not a fire).  So "Big animals
        are red." applies to a bear stated big and an animal, as "All big animals …" does, and to
        "The bear is a big animal." (which states Big, Animal and BigAnimal)."""
        k = 0
        while k < len(words) - 1 and "A" in pos_flags(words[k].lower()):
            k += 1
        return tuple(self.class_iri([w]) for w in words[:k]) + (self.class_iri(words[k:]),)

    def entity_of_words(self, toks: list[Token], sentence_start: bool) -> Ref:
        """An entity (or kind) from the words of a nominal."""
        words = [t.value for t in toks]
        if words and words[-1].lower() in self.classes and len(words) > 1:
            inner = self.entity_of_words(toks[:-1], sentence_start)
            return replace(inner, types=inner.types + (IRI(self.classes[words[-1].lower()]),))
        caps = [w[:1].isupper() or w[:1].isdigit() for w in words]
        if sentence_start and caps[0] and pos_flags(words[0].lower()) != "X" and (
                (len(words) > 1 and not all(caps[1:])) or (len(words) == 1 and is_plural(words[0]))):
            words = [words[0].lower()] + words[1:]
            caps[0] = False
        if all(caps):
            return Ref(self.iri("".join(words)))
        plural = is_plural(words[-1])
        ws = [w.lower() for w in words]
        if plural:
            ws[-1] = lemma(ws[-1], "NOUN")
        if not plural:
            return Ref(self.iri(camel(ws, False)))
        return Ref(self.iri(camel(ws, False)), kind=True, cls=self.class_iri(words), members=self.member_classes(words))

    def _noun_agreement(self, toks: list[Token]) -> str:
        """The pronoun a common noun phrase takes: a plural is "p", a noun of the lexicon's
        ``[genders]`` its gender ("" for person), any other noun "n" ("the bear … it")."""
        head = toks[-1].value.lower()
        if is_plural(head) and lemma(head, "NOUN") != head:
            return "p"
        return self.genders.get(head, self.genders.get(lemma(head, "NOUN"), "n"))

    # -- noun phrases ---------------------------------------------------------------------------
    def np(self, t: Tree, scope: "Scope") -> Ref:
        if t.data == "gap":
            assert scope.gap is not None
            return Ref(scope.gap)
        first = tokens_of(t)[0]
        start = first.start_pos == scope.sentence_start
        match t.data:
            case "named":
                toks = tokens_of(t)
                if len(toks) == 1 and toks[0].type == "ID":
                    return Ref(self.iri(toks[0].value))
                ref = self.entity_of_words(toks, start)  # "Cats" at the start of a sentence: a bare plural
                return replace(ref, agree="p") if ref.kind else ref
            case "definite":
                nominal = kids(t, "nominal")[0]
                toks = tokens_of(nominal)
                of = [c for c in t.children if isinstance(c, Tree) and c.data != "nominal"]
                if of:
                    inner = self.np(of[0], scope)
                    if not isinstance(inner.term, IRI):
                        raise Unsupported("'of' with a non-entity")
                    local = inner.term.value[len(self.ns):]
                    words = [w.lower() for w in (t.value for t in toks)]
                    return Ref(self.iri(camel([local] + words, local[:1].isupper())))
                ref = self.entity_of_words(toks, False)
                ref = replace(ref, agree=self._noun_agreement(toks))
                if ref.term in scope.typed:  # "If a dog is big then the dog …": the rule's variable
                    return Ref(scope.typed[ref.term], agree=ref.agree)
                return replace(ref, kind=False, cls=None, members=()) if ref.kind else ref
            case "indefinite":
                toks = tokens_of(kids(t, "nominal")[0])
                ref = self.entity_of_words(toks, False)
                words = [x.value for x in toks]
                return Ref(ref.term, kind=True, cls=self.class_iri(words), members=self.member_classes(words),
                           types=ref.types, agree=self._noun_agreement(toks))
            case "indefinite_adj":  # "a big thing", "a young person": something of those classes
                items = [i for a in t.children if isinstance(a, Tree) for i in kids(a, "adj_item")]
                if any(has(i, "NOT") for i in items):
                    raise Unsupported("a negated adjective before 'thing' / 'person'")
                words = [tokens_of(i)[-1].value for i in items]
                noun = [x for x in t.children if isinstance(x, Token) and x.type == "THINGS"][0].value.lower()
                cls = self.class_iri(words + ["thing"])
                return Ref(cls, kind=True, cls=cls, members=tuple(self.class_iri([w]) for w in words),
                           agree="h" if noun in ("person", "one") else "n")
            case "versioned":
                toks = tokens_of(t)
                scope.version = toks[-1].value.lstrip("vV")
                return self.entity_of_words(toks[:-1], start)
            case "bare":
                ref = self.entity_of_words(tokens_of(t), start)
                return replace(ref, agree="p") if ref.kind else ref
            case "someone":
                return Ref(scope.variable())
            case "pronoun":
                return scope.pronoun(first.value)
            case "anaphor":  # "that person", "the thing", "he or she": the rule's one unnamed thing, as "they"
                if not scope.in_rule:
                    raise Unresolved(f"'{' '.join(x.value for x in tokens_of(t))}' outside a rule: which one?")
                return scope.pronoun("they")
            case "reflexive":  # "The bear likes itself.": the clause's one subject
                if len(scope.last) != 1 or scope.last[0].kind:
                    raise Unresolved(f"'{first.value}' without one subject to refer to")
                return scope.last[0]
        raise Unsupported(f"noun phrase form {t.data}")

    def _aside(self, t: Tree, who: Ref, scope: "Scope") -> None:
        """"Bob, who is big, …", "… the cat, which is red.": what the relative says of a named thing is
        stated beside the clause (of someone unnamed or a kind it would be a condition: refused)."""
        if who.kind or not isinstance(who.term, (IRI, Literal)):
            raise Unsupported("an aside ('…, who is big, …') about someone unnamed or a kind")
        for p in t.children:
            if isinstance(p, Tree):
                scope.extra.extend(self.predicate(p, who, scope, Frame()))

    def subjects(self, t: Tree, scope: "Scope") -> list[Ref]:
        nps = [c for c in t.children if isinstance(c, Tree) and c.data != "relative"]
        if len(nps) > 1 and not has(t, "AND"):
            # "Bob, Anne are big.", "Now, the cat is big." (a name before a comma): a list without
            # "and" is no list (it read Big(Now))
            raise Unsupported("subjects joined by commas without 'and'")
        refs: list[Ref] = []
        for c in t.children:
            if not isinstance(c, Tree):
                continue
            if c.data == "relative":  # "Bob, who is big, …": what the aside says of Bob is stated too
                self._aside(c, refs[-1], scope)
                continue
            if c.data == "pronoun" and not scope.vars and not scope.in_rule and not scope.last \
                    and tokens_of(c)[0].value.lower() in ("they", "them") and len(scope.ctx.last_subjects) > 1:
                refs.extend(scope.ctx.last_subjects)
            else:
                refs.append(self.np(c, scope))
        scope.last = refs
        return refs

    # -- values -------------------------------------------------------------------------------
    def value(self, t: Tree, scope: "Scope") -> Literal:
        toks = tokens_of(t)
        match t.data:
            case "measure":
                unit = self.lex.units[lemma(toks[1].value.lower(), "NOUN")]
                n = float(toks[0].value)
                return Literal.of(Duration(ms=int(round(n * _UNIT_MS[unit]))))
            case "date":
                return Literal(toks[0].value, XSD_DATE)
            case "number":
                return Literal.of(int(toks[0].value)) if toks[0].value.isdigit() else Literal(toks[0].value, "http://www.w3.org/2001/XMLSchema#decimal")
            case "time":
                return Literal(toks[0].value, "http://www.w3.org/2001/XMLSchema#string")
        raise Unsupported(f"value form {t.data}")

    def object_refs(self, t: Tree, scope: "Scope") -> list[Ref]:
        """``objects``: noun phrases (coordinated) or one value."""
        out = []
        for c in t.children:
            if isinstance(c, Tree):
                if c.data == "relative":  # "visits the cat, which is red": what the aside says is stated too
                    self._aside(c, out[-1], scope)
                elif c.data in ("measure", "date", "number", "time"):
                    out.append(Ref(self.value(c, scope)))
                else:
                    out.append(self.np(c, scope))
        return out

    def clock(self, hhmm: str, scope: "Scope") -> int:
        h, m = hhmm.split(":")
        return (scope.ctx.date or 0) + (int(h) * 60 + int(m)) * 60_000

    def frames(self, stmt: Tree, scope: "Scope") -> Frame:
        frame = Frame()
        for c in stmt.children:
            if not isinstance(c, Tree):
                continue
            toks = tokens_of(c)
            if c.data == "at_time":
                frame.valid_from = self.clock(toks[1].value, scope)
            elif c.data == "under_version":
                frame.version = [x for x in toks if x.type == "VERSION"][0].value.lstrip("vV")
            elif c.data == "also_as" and toks[-1].value.lower() != "well":
                raise Unsupported(f"'as {toks[-1].value}' after a statement")
            elif c.data == "time_word":
                words = " ".join(t.value.lower() for t in toks if t.type != "COMMA")
                rank = self.lex.table("times").get(words)
                if rank is None:
                    raise Unsupported(f"unknown time word '{words}'")
                frame.time_rank = int(rank)
            elif c.data == "all_day":
                if scope.ctx.date is None:
                    raise Unsupported("'all day' without a dated heading")
                frame.valid_from, frame.valid_to = scope.ctx.date, scope.ctx.date + DAY_MS
        return frame

    # -- sentences ------------------------------------------------------------------------------
    def sentence(self, tree: Tree, ctx: Context, sentence_start: int, *, questions: bool = False) -> Meaning:
        stmt = tree.children[0]
        scope = Scope(ctx, sentence_start, checking=questions)
        if stmt.data != "statement":
            if not questions:
                raise Unsupported("a question is not a statement")
            return self.yes_no_question(stmt, scope)
        frame = self.frames(stmt, scope)
        body = [c for c in stmt.children if isinstance(c, Tree) and c.data == "body"][0].children[0]
        out = Meaning()
        match body.data:
            case "clause":
                self.clause(body, scope, frame, out)
            case "clauses" | "concessive":  # "The dog visits the cat and the cat visits the dog.", "Although …, …"
                parts = [c for c in body.children if isinstance(c, Tree)]
                for k, c in enumerate(x for c in parts for x in ([c] if c.data == "clause" else kids(c, "clause"))):
                    if k:
                        self._clause_boundary(scope, out)
                    self.clause(c, scope, frame, out)
            case "conditional":
                self.conditional(body, scope, out, unless=has(body, "UNLESS"))
            case "conditional_post":
                self.conditional(body, scope, out, conclusion_first=True, unless=has(body, "UNLESS"))
            case "conditional_only_if":
                self.only_if(body, scope, out)
            case "not_the_case":
                self.not_the_case(body, scope, frame, out)
            case "so_clause":
                self.so_clause(body, scope, frame, out)
            case "so_sentence":
                self.so_sentence(body, scope, frame, out)
            case "neither_clause":
                self.neither_clause(body, scope, frame, out)
            case ("generic_adj" | "generic_every" | "generic_all" | "generic_rel" | "generic_adj_rel" | "generic_no_adj"
                  | "generic_no_every" | "generic_no_rel" | "generic_no_adj_rel" | "generic_noun_rel" | "generic_only"
                  | "generic_obj_rel" | "generic_noun_obj_rel"):
                self.generic_statement(body, scope, out)
            case "generics":  # "Red things are big, and big things are kind."
                for g in body.children:
                    if isinstance(g, Tree):
                        self.generic_statement(g, scope, out)
                        scope.kind_objects = []  # each rule took its own bare plural objects' classes
            case "dated_heading":
                ctx.date = parse_date_ms([x for x in tokens_of(body) if x.type == "DATE"][0].value)
                out.heading = True
            case _:
                out.heading = True
        if scope.version and frame.version is None:
            frame.version = scope.version
        for p in scope.extra:
            out.props.append((p, Frame(version=frame.version)))
        for p in scope.events:  # instantaneous: holds at its story time only
            t = int(p.kind.split(":", 1)[1])
            out.props.append((replace(p, kind=""), Frame(valid_from=t, valid_to=t + 1)))
        for who, g in self._stated_genders(out):  # "Bob is a man.": later pronouns for Bob must be "he"
            if ctx.genders.get(who, g) != g:
                raise Unsupported(f"the text gives {who} two genders")
            ctx.genders[who] = g
        ctx.genders.update(scope.genders)
        scope.hand_over()
        plain = body.data in ("clause", "clauses", "concessive", "so_clause", "so_sentence") and not out.rules
        ctx.last_said = scope.said if plain and ctx.story_time is None else ()
        return out

    def _stated_genders(self, out: Meaning):
        """(subject, gender) for each type fact of ``out`` whose class has a gender ("Bob is a man.")."""
        for p, _ in out.props:
            g = self.gender_classes.get(p.object) if p.predicate == RDF_TYPE and not p.negated else None
            if g and not isinstance(p.subject, Var):
                yield p.subject, g

    def clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        subs = self.subjects(kids(body, "subjects")[0], scope)
        preds = [c for c in kids(body, "predicates")[0].children if isinstance(c, Tree)]
        subs = self._plural_agreement(body, subs, preds)
        scope.last = subs
        generic = [r for r in subs if r.kind]
        if any(isinstance(c, Tree) and c.data == "indefinite_adj" for c in kids(body, "subjects")[0].children):
            raise Unsupported("'a big thing …' as a clause's subject (the generic form reads it)")
        if generic:
            # A bare plural or indefinite subject ("Cats chase the dog.", "A cat is red.") states a rule
            # over the members of its class, never a fact about the individual "the cat".  Only a
            # measured parameter of the kind itself ("Session tokens expire after 15 minutes.": every
            # value object a literal) is a fact, about the kind entity (its own IRI, see _kind).
            if len(subs) != 1:
                raise Unsupported("a generic statement about several kinds")
            x = scope.variable()
            props = [q for p in preds for q in self.predicate(p, Ref(x), scope, frame)]
            values = [isinstance(q.object, Literal) for q in props]
            if props and all(values) and not any(p.data.startswith("be_") for p in preds):
                kind = self._kind(subs[0])
                for q in props:
                    q = replace(q, subject=kind)
                    out.props.append((q, self._story_frame(q, frame, scope)))
                return
            if any(values):
                raise Unsupported("a generic statement mixing a measured value with other predicates")
            self._rules(out, scope, [Prop(x, RDF_TYPE, c) for c in subs[0].members], props, scope.kind_objects)
            return
        verbal = {p.data in VERBAL for p in preds}
        for s in subs:
            if isinstance(s.term, Var):
                raise Unsupported("a statement about someone unnamed")
            for ty in s.types:
                out.props.append((Prop(s.term, RDF_TYPE, ty), Frame(version=frame.version)))
            said = []
            for p in preds:
                for q in self.predicate(p, s, scope, frame):
                    said.append((q.predicate, q.object, q.negated))
                    if isinstance(q.object, Var):  # "The cat chases dogs.": a rule over the dogs
                        if scope.ctx.story_time is not None or q.kind:
                            raise Unsupported("a story event about a kind (a bare plural object)")
                        self._rules(out, scope, [], [q], scope.kind_objects)
                    else:
                        out.props.append((q, self._story_frame(q, frame, scope)))
            # "… So is the dog.": what the next sentence may repeat (one auxiliary must fit every predicate)
            scope.said = (("DO" if verbal == {True} else "BE"), tuple(said)) if len(verbal) == 1 and said else ()

    def _plural_agreement(self, body: Tree, subs: list[Ref], preds: list[Tree]) -> list[Ref]:
        """"Sheep are afraid of wolves.": a bare noun whose plural is itself is generic when the
        copula is plural ("are")."""
        np = [c for c in kids(body, "subjects")[0].children if isinstance(c, Tree)]
        if len(subs) != 1 or subs[0].kind or len(np) != 1 or np[0].data not in ("bare", "named"):
            return subs
        words = tokens_of(np[0])
        bes = [t for p in preds for t in p.children if isinstance(t, Token) and t.type == "BE"]
        if len(words) != 1 or not bes or any(b.value.lower() not in ("are", "were") for b in bes) \
                or "N" not in pos_flags(words[0].value.lower()):
            return subs
        w = words[0].value.lower()
        return [Ref(self.iri(w), kind=True, cls=self.class_iri([w]), members=(self.class_iri([w]),), agree="p")]

    def _story_frame(self, p: Prop, frame: Frame, scope: "Scope") -> Frame:
        """In a story, a state change (move, acquire, drop) holds from the sentence's story time
        (ordered first by its time word: "yesterday" before "this morning")."""
        t = scope.ctx.story_time
        if t is None or not p.kind or frame.valid_from is not None:
            return frame
        return replace(frame, valid_from=frame.time_rank * STORY_RANK + t)  # kinds: move, acquire, give, drop
