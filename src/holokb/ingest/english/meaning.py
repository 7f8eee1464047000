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

import hashlib
from dataclasses import replace
from datetime import datetime, timezone

from lark import Token, Tree

from ...analysis.program import Var
from ...core import IRI, RDF_TYPE, Duration, Literal, Term
from ...core.terms import XSD_DATE
from .lexicon import Lexicon, is_plural, lemma, pos_flags, third_person
from .clauses import ClauseReading
from .questions import QuestionReading
from .rules import RuleReading
from .scope import Scope
from .structures import (DAY_MS, STORY_RANK, VERBAL, Context, Frame, Meaning, Prop, Ref, Unresolved, Unsupported, camel, has,
                         kids, tokens_of)

_UNIT_MS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": DAY_MS, "w": 7 * DAY_MS}

# What the reader and the planner take from here (the types live in .structures).
__all__ = ["Context", "Frame", "Interpreter", "Meaning", "Prop", "Ref", "Scope", "Unresolved", "Unsupported"]


class Interpreter(ClauseReading, RuleReading, QuestionReading):
    """Turns parse trees into :class:`Meaning` under a lexicon."""

    def __init__(self, lexicon: Lexicon):
        self.lex = lexicon
        self.ns = lexicon.namespace
        self.verbs = {k: v for k, v in lexicon.table("verbs").items()}
        self.attributes = lexicon.table("attributes")
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
                members = tuple(self.class_iri([w]) for w in words)
                return Ref(self.class_iri(words + ["thing"]), kind=True, cls=self.class_iri(words + ["thing"]), members=members,
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

    # -- predicates -----------------------------------------------------------------------------
    def predicate(self, t: Tree, subject: Ref, scope: "Scope", frame: Frame) -> list[Prop]:
        """The props a predicate states of one subject (several for "is round and smart")."""
        neg = has(t, "NOT")
        s = subject.term
        if (has(t, "WILL") or has(t, "MUST")) and not scope.in_rule:
            raise Unsupported("'will' / 'must' outside a rule's conclusion (the future, or a conclusion drawn)")
        match t.data:
            case "be_adj":
                out = []
                for item in kids(kids(t, "adjectives")[0], "adj_item"):
                    word = tokens_of(item)[-1].value
                    out.append(Prop(s, RDF_TYPE, self.class_iri([word]), neg != has(item, "NOT")))
                return out
            case "be_a_adj" | "be_type":
                # "Bob is a bald eagle.": the noun phrase's class (BaldEagle, as "Bald eagles are …"
                # reads).  "The bear is a big, red animal.": coordinated adjectives each name a class of
                # their own, and so does each word of the last one ("red animal": Red, Animal and
                # RedAnimal); "a big, red person/thing" names no class beyond its adjectives.
                items = [i for a in kids(t, "adjectives") for i in kids(a, "adj_item")]
                if any(has(i, "NOT") for i in items):
                    raise Unsupported("a negated adjective before a noun")
                words = [x.value for n in kids(t, "nominal") for x in tokens_of(n)]
                if len(words) > 1 and t.data == "be_type" and not has(t, "A") \
                        and any(c.type == "BE" and c.value.lower() in ("is", "was") for c in t.children if isinstance(c, Token)):
                    # "Bob is big like Anne." read the classes BigLikeAnne, Like and Anne: a singular
                    # subject's class phrase takes an article ("is a big cat")
                    raise Unsupported("a singular noun phrase without an article after 'is'")
                classes = [self.class_iri([tokens_of(i)[-1].value]) for i in items]
                if len(words) > 1 and not neg and (scope.asking or scope.checking or isinstance(s, Var)):
                    # "Is the bear a big animal?", "If something is a big animal …": what being one
                    # means (Big and Animal), which a bear stated big and an animal is, as much as one
                    # stated "a big animal" (a rule's condition asks it; its conclusion then states it)
                    return [Prop(s, RDF_TYPE, c, neg) for c in dict.fromkeys(classes + list(self.member_classes(words)))]
                if words:
                    classes.append(self.class_iri(words))
                if items and len(words) > 1:
                    classes += [self.class_iri([w]) for w in words]
                elif len(words) > 1 and not neg:
                    # "a big fire truck" is big, a fire truck and a truck (and a BigFireTruck): the
                    # classes its kind's members have (member_classes), and the head noun; a noun
                    # before the head is not a class of its own ("a fire truck" is not a fire)
                    classes += [c for c in self.member_classes(words) if c not in classes]
                    if self.class_iri(words[-1:]) not in classes:
                        classes.append(self.class_iri(words[-1:]))
                if neg and len(classes) > 1:  # "not a big cat" is not "not big and not a cat"
                    raise Unsupported("a negated type with several classes")
                return [Prop(s, RDF_TYPE, c, neg) for c in classes]
            case "be_neither":
                adjs = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))]
                return [Prop(s, RDF_TYPE, self.class_iri([a.value]), True) for a in adjs]
            case "be_adj_rel":
                adj = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0]
                rel = kids(t, "relation_object")[0]
                prep = [c for c in rel.children if isinstance(c, Token)][0].value.lower()
                obj = [c for c in rel.children if isinstance(c, Tree)][0]
                if prep == "in" and obj.data == "bare" and adj.type != "W_V" \
                        and [w.value.lower() for w in tokens_of(obj)] in ([a] for a in self.lex.table("aspects").get("words", ())):
                    return [Prop(s, RDF_TYPE, self.class_iri([adj.value]), neg)]  # "red in color": Red
                o = self.value(obj, scope) if obj.data in ("measure", "date", "number", "time") else self._adj_object(obj, scope)
                passive = self._passive(adj.value.lower(), prep, obj)
                if passive is not None:  # "The dog is chased by the cat." = the cat chases the dog
                    return [Prop(o, passive, s, neg)]
                if adj.type == "W_V":
                    raise Unsupported(f"'{adj.value} {prep}' after a copula (a verb form, not an adjective)")
                pred = self.lex.expand(self._verb_entry(f"{adj.value.lower()} {prep}").get(
                    "predicate", "ex:" + camel([adj.value.lower(), prep], False)))
                return [Prop(s, pred, o, neg)]
            case "be_noun_rel":
                toks = tokens_of(kids(t, "nominal")[0])
                obj = [c for c in t.children if isinstance(c, Tree) and c.data != "nominal"][0]
                words = [x.value.lower() for x in toks] + ["of"]
                pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + camel(words, False)))
                return [Prop(s, pred, self.np(obj, scope).term, neg)]
            case "be_prep":
                prep = [c for c in t.children if isinstance(c, Token) and c.type not in ("BE", "NOT", "HAVE", "BEEN")][0]
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                entry = self._verb_entry(f"be {prep.value.lower()}")
                pred = self.lex.expand(entry.get("predicate", "ex:" + camel(["is", prep.value.lower()], False)))
                o = self.np(obj, scope).term
                return [Prop(s, self._stated(entry, pred, s, o, neg, scope), o, neg, entry.get("kind", ""))]
            case "be_side":
                side = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0].value.lower()
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                entry = self._verb_entry(f"be to the {side} of")
                pred = self.lex.expand(entry.get("predicate", "ex:" + camel(["to", side, "of"], False)))
                o = self.np(obj, scope).term
                return [Prop(s, self._stated(entry, pred, s, o, neg, scope), o, neg)]
            case "be_prep_no_longer":
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                prep = [c for c in t.children if isinstance(c, Token) and c.type in ("PREP", "AT", "ON", "TO", "UNDER", "FOR")][0]
                entry = self._verb_entry(f"be {prep.value.lower()}")
                pred = self.lex.expand(entry.get("predicate", "ex:" + camel(["is", prep.value.lower()], False)))
                return [Prop(s, pred, self.np(obj, scope).term, True, entry.get("kind", ""))]
            case "be_prep_either":
                objs = [c for c in t.children if isinstance(c, Tree)]
                prep = [c for c in t.children if isinstance(c, Token) and c.type in ("PREP", "AT", "ON", "TO", "UNDER", "FOR")][0]
                entry = self._verb_entry(f"be either {prep.value.lower()}")
                if "predicate" not in entry:
                    raise Unsupported(f"no predicate for 'either {prep.value.lower()}' in the lexicon")
                pred = self.lex.expand(entry["predicate"])
                return [Prop(s, pred, self.np(o, scope).term, neg, entry.get("kind", "")) for o in objs]
            case "verb" | "do_verb":
                return self.verb_phrase(t, s, scope, frame, neg)
            case "verbs":  # "The cat likes and chases the dog.": each verb of the same objects
                verbs = [c for c in t.children if isinstance(c, Token) and c.type.startswith("W_")]
                rest = [c for c in t.children if isinstance(c, Tree)]
                out = []
                for v in verbs:
                    out += self.verb_phrase(Tree("verb", [v] + rest), s, scope, frame, neg)
                return out
            case "neither_verbs":  # "The cat neither likes nor chases the dog.": each verb denied
                verbs = [c for c in t.children if isinstance(c, Token) and c.type.startswith("W_")]
                rest = [c for c in t.children if isinstance(c, Tree)]
                return [q for v in verbs for q in self.verb_phrase(Tree("verb", [v] + rest), s, scope, frame, True)]
            case "neither_objects":  # "likes neither the cat nor the dog", "does not like the cat or the dog"
                head = [c for c in t.children if (isinstance(c, Token) and c.type.startswith("W_"))
                        or (isinstance(c, Tree) and c.data == "particle")]
                nps = [c for c in t.children if isinstance(c, Tree) and c.data not in ("particle", "pps")]
                return self.verb_phrase(Tree("verb", head + [Tree("objects", nps)] + kids(t, "pps")), s, scope, frame, True)
            case "progressive":  # "The cat is chasing the dog." = the cat chases the dog
                verb = [c for c in t.children if isinstance(c, Token) and c.type == "W_V"][0]
                if not verb.value.lower().endswith("ing"):
                    raise Unsupported(f"'{verb.value}' after a copula (not an -ing form)")
                return self.verb_phrase(t, s, scope, frame, neg)
            case "be_type_rel":  # "is a cat that chases the dog": a cat, and chases the dog
                head = [c for c in t.children if isinstance(c, Tree) and c.data in ("type_head", "be_a_adj")][0]
                if head.data == "type_head":  # "a cat", "cats", "someone": its class (someone: none)
                    head = Tree("be_type", head.children) if kids(head, "nominal") else None
                out = self.predicate(head, subject, scope, frame) if head is not None else []
                for p in kids(t, "relative")[0].children:
                    if isinstance(p, Tree):
                        out += self.predicate(p, subject, scope, frame)
                return out
            case "be_adj_or":  # "The cat is red or big.": which one?  (a rule's condition reads it: alternatives)
                raise Unsupported("'or' between adjectives states no one fact (which of them holds?)")
            case "be_adj_not_over_not":  # parses._fold: "is not [red and not big]", "isn't not big"
                raise Unsupported("a 'not' inside an adjective list that a 'not' already denies")
        raise Unsupported(f"predicate form {t.data}")

    def _stated(self, entry: dict, pred: IRI, s, o, neg: bool, scope: "Scope") -> IRI:
        """The entry's ``stated`` predicate for a plain affirmative statement about two named things
        (not in a question or a rule, where the clause means only ``pred``)."""
        if "stated" not in entry or neg or scope.asking or scope.in_rule or isinstance(s, Var) or isinstance(o, Var):
            return pred
        return self.lex.expand(entry["stated"])

    def _verb_entry(self, phrase: str) -> dict:
        e = self.verbs.get(phrase)
        return e if isinstance(e, dict) else ({"predicate": e} if isinstance(e, str) else {})

    def verb_phrase(self, t: Tree, s, scope: "Scope", frame: Frame, neg: bool) -> list[Prop]:
        verb = [c for c in t.children if isinstance(c, Token) and c.type.startswith("W_")][0]
        lem = lemma(verb.value, "VERB")
        particle = [tokens_of(c)[0].value.lower() for c in kids(t, "particle")]
        objs_t = kids(t, "objects")
        pps = kids(t, "pps")[0].children if kids(t, "pps") else []
        head = " ".join([lem] + particle)
        obj_words = []
        if objs_t and len(objs_t[0].children) == 1 and isinstance(objs_t[0].children[0], Tree) \
                and objs_t[0].children[0].data in ("bare", "definite"):
            obj_words = [x.value.lower() for x in tokens_of(objs_t[0].children[0]) if x.type != "THE"]
        first_prep = None
        pp_obj = None
        extra: list[Tree] = []
        for pp in pps:
            if pp.data == "pp" and first_prep is None:
                first_prep = tokens_of(pp)[0].value.lower()
                pp_obj = [c for c in pp.children if isinstance(c, Tree)][0]
            elif pp.data == "on_date" and first_prep is None:
                first_prep = "on"
                pp_obj = [c for c in pp.children if isinstance(c, Token) and c.type == "DATE"][0]
            else:
                extra.append(pp)
        entry: dict = {}
        used_prep = False
        used_obj_words = False
        for key, up, uo in ((" ".join([head] + obj_words + [first_prep or ""]).strip(), True, True),
                            (f"{head} {first_prep}" if first_prep else "", True, False),
                            (f"{lem} {first_prep}" if first_prep and particle == ["back"] else "", True, False),
                            (head, False, False)):
            if key and self._verb_entry(key):
                entry, used_prep, used_obj_words = self._verb_entry(key), up and first_prep is not None, uo and bool(obj_words)
                break
        kind = entry.get("kind", "")
        for pp in extra:
            if pp.data == "until":
                frame.valid_to = self.clock(tokens_of(pp)[-1].value, scope)
        if kind == "stay":
            return []
        if kind == "set":
            attr = " ".join(obj_words)
            spec = self.attributes.get(attr)
            if spec is None:
                raise Unsupported(f"'{head}' of an unknown attribute '{attr}'")
            tv = [c for pp in pps if pp.data == "pp" and tokens_of(pp)[0].value.lower() == "to"
                  for c in pp.children if isinstance(c, Tree) and c.data in ("measure", "number", "date")]
            if not tv:
                raise Unsupported(f"'{head} {attr}' without 'to' and a value")
            value = self.value(tv[0], scope)
            return [Prop(self.iri(spec["of"]), self.lex.expand(spec["predicate"]), value, neg, kind)]
        objects: list = []
        if objs_t and not used_obj_words:
            refs = self.object_refs(objs_t[0], scope)
            objects = [self._object_term(r, c, scope) for r, c in
                       zip(refs, [c for c in objs_t[0].children if isinstance(c, Tree)])]
            scope.objects.extend(refs)
            for r in refs:
                for ty in r.types:
                    scope.extra.append(Prop(r.term, RDF_TYPE, ty))
        elif pp_obj is not None:
            if isinstance(pp_obj, Token):
                objects = [Literal(pp_obj.value, XSD_DATE)]
            elif pp_obj.data in ("measure", "date", "number", "time"):
                objects = [self.value(pp_obj, scope)]
            else:
                objects = [self.np(pp_obj, scope).term]
            used_prep = True
        if not objects:
            raise Unsupported(f"intransitive verb '{head}'")
        agent = s
        if kind == "give":
            to = [c for pp in pps if pp.data == "pp" and tokens_of(pp)[0].value.lower() == "to"
                  for c in pp.children if isinstance(c, Tree) and c.data not in ("measure", "number", "date", "time")]
            if not to or not objs_t:
                raise Unsupported(f"'{head}' without an object and a recipient")
            s = self.np(to[0], scope).term
        if "predicate" in entry:
            pred = self.lex.expand(entry["predicate"])
        else:
            words = [third_person(lem)] + particle + ([first_prep] if used_prep and first_prep else [])
            pred = self.lex.expand("ex:" + camel(words, False))
        if kind == "effect" and isinstance(objects[0], Literal):
            frame.valid_from = _date_ms(objects[0].lexical)
        stated = not neg  # "dropped" happened; "did not drop" did not
        if kind == "drop":
            neg = not neg
        out = [Prop(s, pred, o, neg, kind) for o in objects]
        if "event" in entry and stated and scope.ctx.story_time is not None:
            t = frame.time_rank * STORY_RANK + scope.ctx.story_time
            scope.events.extend(Prop(s, self.lex.expand(entry["event"]), o, False, "event:" + str(t)) for o in objects)
        if "roles" in entry and stated and scope.ctx.story_time is not None and not scope.asking:
            self._event_roles(entry["roles"], agent, objects if objs_t else [], pps, scope, frame)
        return out

    def _object_term(self, ref: Ref, tree: Tree, scope: "Scope"):
        """A verb's object.  A bare plural ("The cat chases dogs.") is every member of its class: a
        variable typed by a condition the sentence's rule gets (scope.kind_objects), never the
        individual "the dog"; an indefinite one ("chases a dog": which?) is refused."""
        if not ref.kind or isinstance(ref.term, (Literal, Var)) or ref.cls is None:
            return ref.term
        if tree.data in ("indefinite", "indefinite_adj"):
            raise Unsupported("an indefinite object ('a …'): which one is not said")
        if scope.asking:
            raise Unsupported("a question about a kind (a bare plural object), not a named thing")
        v = Var(f"y{len(scope.kind_objects)}" if scope.kind_objects else "y")  # not a pronoun's antecedent
        scope.kind_objects.extend(Prop(v, RDF_TYPE, c) for c in ref.members)
        return v

    def _event_roles(self, roles: dict, agent, objects: list, pps: list, scope: "Scope", frame: Frame) -> None:
        """One event entity at the sentence's story instant with a fact per role the clause fills."""
        t = frame.time_rank * STORY_RANK + scope.ctx.story_time
        fillers: list[tuple[str, Term]] = [("subject", agent)] + [("object", o) for o in objects]
        for pp in pps:
            if pp.data == "pp":
                obj = [c for c in pp.children if isinstance(c, Tree)][0]
                if obj.data not in ("measure", "date", "number", "time"):
                    fillers.append((tokens_of(pp)[0].value.lower(), self.np(obj, scope).term))
        # The event's name: its instant and a digest of what fills its roles, so two stories in one KB
        # never share an event unless they tell the same one (two givings at one instant stay apart).
        digest = hashlib.sha256(repr(sorted((k, str(v)) for k, v in fillers)).encode()).hexdigest()[:12]
        e = self.iri(f"event/{t}/{digest}")
        for slot, term in fillers:
            if slot in roles and not isinstance(term, Var):
                scope.events.append(Prop(e, self.lex.expand(roles[slot]), term, False, "event:" + str(t)))

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
            case "clauses":  # "The dog visits the cat and the cat visits the dog."
                for k, c in enumerate(kids(body, "clause")):
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
                ctx.date = _date_ms([x for x in tokens_of(body) if x.type == "DATE"][0].value)
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
        plain = body.data in ("clause", "clauses", "so_clause", "so_sentence") and not out.rules
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

    def _passive(self, word: str, prep: str, obj: Tree) -> str | None:
        """The active verb's predicate when "is <word> by <agent>" is a passive ("chased by", "seen
        by"), unless the lexicon reads "<word> by" itself; None when it is not one."""
        if prep != "by" or self._verb_entry(f"{word} by"):
            return None
        from lemminflect import getInflection

        lem = lemma(word, "VERB")
        if word not in getInflection(lem, "VBN") or lem == word:
            return None
        if obj.data not in ("named", "definite"):
            raise Unsupported("a passive whose agent is not a named thing ('by cats': all of them or some?)")
        return self.lex.expand(self._verb_entry(lem).get("predicate", "ex:" + third_person(lem)))

    def _adj_object(self, t: Tree, scope: "Scope") -> Term | Var:
        """The object of an adjective ("afraid of wolves"): a bare plural names its class, as the kind
        entity ``ex:kind/wolf`` (whose answer word is "wolf"), never the individual "the wolf"
        (``ex:wolf``); an indefinite one ("afraid of a wolf": which?) is refused."""
        ref = self.np(t, scope)
        if not ref.kind or ref.cls is None or isinstance(ref.term, (Literal, Var)):
            return ref.term
        if t.data in ("indefinite", "indefinite_adj"):
            raise Unsupported("an indefinite object of an adjective ('of a …'): which one is not said")
        return self._kind(ref)

    def _kind(self, ref: Ref) -> IRI:
        """The entity a generic statement about a measured parameter is about: ``ex:kind/sessionToken``
        for "Session tokens" / "a session token", an IRI no noun phrase naming an individual reads to
        ("the session token" is ``ex:sessionToken``)."""
        assert ref.cls is not None
        local = ref.cls.value[len(self.ns):]
        return self.iri("kind/" + local[:1].lower() + local[1:])

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

def _date_ms(iso: str) -> int:
    d = datetime.strptime(iso, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return int(d.timestamp() * 1000)


