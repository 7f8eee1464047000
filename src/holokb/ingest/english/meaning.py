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
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from lark import Token, Tree

from ...analysis.program import Atom, Const, Rule, Var
from ...core import IRI, RDF_TYPE, Duration, Literal, Term
from ...core.terms import XSD_DATE
from .lexicon import Lexicon, is_plural, lemma, pos_flags, third_person

DAY_MS = 86_400_000
STORY_RANK = 1_000_000  # story time = rank of its time word × this + the sentence's line number
_UNIT_MS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": DAY_MS, "w": 7 * DAY_MS}


class Unsupported(Exception):
    """The sentence parsed but this reading gives it no meaning (the message says what)."""


class Unresolved(Exception):
    """A pronoun with nothing to refer to."""


@dataclass(frozen=True, slots=True)
class Ref:
    """What a noun phrase denotes: a term (IRI or literal) or a rule variable.

    ``kind`` marks a generic reading (a bare plural or an indefinite: the class ``cls``);
    ``types`` are classes the phrase itself asserts ("the libsandbox library" is a Library);
    ``agree`` is what a pronoun referring back to it must be: "m" (he), "f" (she), "n" (it),
    "p" (they: a bare plural), "h" (he or she: a person), "" when the phrase does not say (a name:
    the text may tell).
    """

    term: Term | Var
    kind: bool = False
    cls: IRI | None = None
    types: tuple[IRI, ...] = ()
    agree: str = ""


@dataclass(frozen=True, slots=True)
class Prop:
    """One atomic statement about a subject: ``predicate(subject, object)``, maybe negated."""

    subject: Term | Var
    predicate: str
    object: Term | Var
    negated: bool = False
    kind: str = ""       # the verb kind from the lexicon (move, acquire, ...), for time handling


@dataclass
class Frame:
    """Sentence-level modifiers: time, version, validity end."""

    valid_from: int | None = None
    valid_to: int | None = None
    version: str | None = None
    time_rank: int = 0          # story time words ("yesterday" < "this morning"), 0 when none


@dataclass
class Context:
    """What one sentence may use from the sentences before it (per document)."""

    date: int | None = None                       # ms of the day a dated heading names
    story_time: int | None = None                 # the sentence's story time (bAbI line number), if any
    last_subjects: tuple[Ref, ...] = ()           # for pronouns outside rules
    last_objects: tuple[Ref, ...] = ()            # the direct objects of the latest sentence that had some
    prev_objects: tuple[Ref, ...] = ()            # the direct objects of the sentence just before (maybe none)
    rule_count: int = 0
    genders: dict = field(default_factory=dict)   # term → "m"/"f"/"n" the text has given it (pronoun agreement)

    def copy(self) -> "Context":
        """A copy one parse of a sentence may change without touching the others'."""
        return replace(self, genders=dict(self.genders))

    def restore(self, other: "Context") -> None:
        """Take ``other``'s state (the context a chosen parse left behind)."""
        self.__dict__.update(other.copy().__dict__)

    def key(self) -> tuple:
        """What later sentences can see of this context (two parses must leave the same)."""
        return (self.date, self.story_time, self.last_subjects, self.last_objects, self.prev_objects, self.rule_count,
                tuple(sorted((str(k), v) for k, v in self.genders.items())))


@dataclass
class Meaning:
    """The facts (props with their frame) and rules of one sentence."""

    props: list[tuple[Prop, Frame]] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    heading: bool = False
    judgement: str | None = None   # a judgement question's key ("session valid"); props = its condition
    version: str | None = None
    ask: tuple = ()                # a wh-question: ("where", subject) / ("where_before", subject, anchor) /
                                   # ("event", asked role, ((role, term), ...)) /
                                   # ("what", subject, predicate)


def _tokens(t: Tree | Token) -> list[Token]:
    if isinstance(t, Token):
        return [t]
    out: list[Token] = []
    for c in t.children:
        out.extend(_tokens(c))
    return out


def _kids(t: Tree, name: str) -> list[Tree]:
    return [c for c in t.children if isinstance(c, Tree) and c.data == name]


def _has(t: Tree, ttype: str) -> bool:
    return any(isinstance(c, Token) and c.type == ttype for c in t.children)


def _camel(words: list[str], upper_first: bool) -> str:
    parts = [w[:1].upper() + w[1:] for w in words if w]
    s = "".join(parts)
    return (s[:1].upper() if upper_first else s[:1].lower()) + s[1:]


class Interpreter:
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
        return self.iri(_camel(ws, True))

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
        return Ref(self.iri(_camel(ws, False)), kind=plural, cls=self.class_iri(words) if plural else None)

    def _noun_agreement(self, toks: list[Token]) -> str:
        """The pronoun a common noun phrase takes: a plural is "p", a noun of the lexicon's
        ``[genders]`` its gender ("" for person), any other noun "n" ("the bear … it")."""
        head = toks[-1].value.lower()
        if is_plural(head) and lemma(head, "NOUN") != head:
            return "p"
        return self.genders.get(head, self.genders.get(lemma(head, "NOUN"), "n"))

    # -- noun phrases ---------------------------------------------------------------------------
    def np(self, t: Tree, scope: "Scope") -> Ref:
        first = _tokens(t)[0]
        start = first.start_pos == scope.sentence_start
        match t.data:
            case "named":
                toks = _tokens(t)
                if len(toks) == 1 and toks[0].type == "ID":
                    return Ref(self.iri(toks[0].value))
                ref = self.entity_of_words(toks, start)  # "Cats" at the start of a sentence: a bare plural
                return replace(ref, agree="p") if ref.kind else ref
            case "definite":
                nominal = _kids(t, "nominal")[0]
                toks = _tokens(nominal)
                of = [c for c in t.children if isinstance(c, Tree) and c.data != "nominal"]
                if of:
                    inner = self.np(of[0], scope)
                    if not isinstance(inner.term, IRI):
                        raise Unsupported("'of' with a non-entity")
                    local = inner.term.value[len(self.ns):]
                    words = [w.lower() for w in (t.value for t in toks)]
                    return Ref(self.iri(_camel([local] + words, local[:1].isupper())))
                ref = self.entity_of_words(toks, False)
                ref = replace(ref, agree=self._noun_agreement(toks))
                if ref.term in scope.typed:  # "If a dog is big then the dog …": the rule's variable
                    return Ref(scope.typed[ref.term], agree=ref.agree)
                return replace(ref, kind=False, cls=None) if ref.kind else ref
            case "indefinite":
                toks = _tokens(_kids(t, "nominal")[0])
                ref = self.entity_of_words(toks, False)
                return Ref(ref.term, kind=True, cls=self.class_iri([x.value for x in toks]), types=ref.types,
                           agree=self._noun_agreement(toks))
            case "versioned":
                toks = _tokens(t)
                scope.version = toks[-1].value.lstrip("vV")
                return self.entity_of_words(toks[:-1], start)
            case "bare":
                ref = self.entity_of_words(_tokens(t), start)
                return replace(ref, agree="p") if ref.kind else ref
            case "someone":
                return Ref(scope.variable())
            case "pronoun":
                return scope.pronoun(first.value)
            case "reflexive":  # "The bear likes itself.": the clause's one subject
                if len(scope.last) != 1 or scope.last[0].kind:
                    raise Unresolved(f"'{first.value}' without one subject to refer to")
                return scope.last[0]
        raise Unsupported(f"noun phrase form {t.data}")

    def subjects(self, t: Tree, scope: "Scope") -> list[Ref]:
        refs: list[Ref] = []
        for c in t.children:
            if not isinstance(c, Tree):
                continue
            if c.data == "pronoun" and not scope.vars and not scope.in_rule and not scope.last \
                    and _tokens(c)[0].value.lower() in ("they", "them") and len(scope.ctx.last_subjects) > 1:
                refs.extend(scope.ctx.last_subjects)
            else:
                refs.append(self.np(c, scope))
        scope.last = refs
        return refs

    # -- values -------------------------------------------------------------------------------
    def value(self, t: Tree, scope: "Scope") -> Literal:
        toks = _tokens(t)
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
                if c.data in ("measure", "date", "number", "time"):
                    out.append(Ref(self.value(c, scope)))
                else:
                    out.append(self.np(c, scope))
        return out

    # -- predicates -----------------------------------------------------------------------------
    def predicate(self, t: Tree, subject: Ref, scope: "Scope", frame: Frame) -> list[Prop]:
        """The props a predicate states of one subject (several for "is round and smart")."""
        neg = _has(t, "NOT")
        s = subject.term
        if _has(t, "WILL") and not scope.in_rule:
            raise Unsupported("'will': a statement about the future (read only in a rule's conclusion)")
        match t.data:
            case "be_adj":
                out = []
                for item in _kids(_kids(t, "adjectives")[0], "adj_item"):
                    word = _tokens(item)[-1].value
                    out.append(Prop(s, RDF_TYPE, self.class_iri([word]), neg != _has(item, "NOT")))
                return out
            case "be_a_adj" | "be_type":
                # "Bob is a bald eagle.": the noun phrase's class (BaldEagle, as "Bald eagles are …"
                # reads).  "The bear is a big, red animal.": coordinated adjectives each name a class of
                # their own, and so does each word of the last one ("red animal": Red, Animal and
                # RedAnimal); "a big, red person/thing" names no class beyond its adjectives.
                items = [i for a in _kids(t, "adjectives") for i in _kids(a, "adj_item")]
                if any(_has(i, "NOT") for i in items):
                    raise Unsupported("a negated adjective before a noun")
                words = [x.value for n in _kids(t, "nominal") for x in _tokens(n)]
                classes = [self.class_iri([_tokens(i)[-1].value]) for i in items]
                if words:
                    classes.append(self.class_iri(words))
                if items and len(words) > 1:
                    classes += [self.class_iri([w]) for w in words]
                elif len(words) > 1 and not neg:
                    # "a big animal" is big and an animal (and a BigAnimal, what "Big animals are …" reads):
                    # each adjective before the head noun, and the head; a noun before it is not a class of
                    # its own ("a fire truck" is a truck, not a fire)
                    classes += [self.class_iri([w]) for w in words[:-1] if "A" in pos_flags(w.lower())]
                    classes.append(self.class_iri(words[-1:]))
                if neg and len(classes) > 1:  # "not a big cat" is not "not big and not a cat"
                    raise Unsupported("a negated type with several classes")
                return [Prop(s, RDF_TYPE, c, neg) for c in classes]
            case "be_neither":
                adjs = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))]
                return [Prop(s, RDF_TYPE, self.class_iri([a.value]), True) for a in adjs]
            case "be_adj_rel":
                adj = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0]
                rel = _kids(t, "relation_object")[0]
                prep = [c for c in rel.children if isinstance(c, Token)][0].value.lower()
                obj = [c for c in rel.children if isinstance(c, Tree)][0]
                o = self.value(obj, scope) if obj.data in ("measure", "date", "number", "time") else self._adj_object(obj, scope)
                passive = self._passive(adj.value.lower(), prep, obj)
                if passive is not None:  # "The dog is chased by the cat." = the cat chases the dog
                    return [Prop(o, passive, s, neg)]
                if adj.type == "W_V":
                    raise Unsupported(f"'{adj.value} {prep}' after a copula (a verb form, not an adjective)")
                pred = self.lex.expand(self._verb_entry(f"{adj.value.lower()} {prep}").get(
                    "predicate", "ex:" + _camel([adj.value.lower(), prep], False)))
                return [Prop(s, pred, o, neg)]
            case "be_noun_rel":
                toks = _tokens(_kids(t, "nominal")[0])
                obj = [c for c in t.children if isinstance(c, Tree) and c.data != "nominal"][0]
                words = [x.value.lower() for x in toks] + ["of"]
                pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + _camel(words, False)))
                return [Prop(s, pred, self.np(obj, scope).term, neg)]
            case "be_prep":
                prep = [c for c in t.children if isinstance(c, Token) and c.type not in ("BE", "NOT", "HAVE", "BEEN")][0]
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                entry = self._verb_entry(f"be {prep.value.lower()}")
                pred = self.lex.expand(entry.get("predicate", "ex:" + _camel(["is", prep.value.lower()], False)))
                o = self.np(obj, scope).term
                return [Prop(s, self._stated(entry, pred, s, o, neg, scope), o, neg, entry.get("kind", ""))]
            case "be_side":
                side = [c for c in t.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0].value.lower()
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                entry = self._verb_entry(f"be to the {side} of")
                pred = self.lex.expand(entry.get("predicate", "ex:" + _camel(["to", side, "of"], False)))
                o = self.np(obj, scope).term
                return [Prop(s, self._stated(entry, pred, s, o, neg, scope), o, neg)]
            case "be_prep_no_longer":
                obj = [c for c in t.children if isinstance(c, Tree)][0]
                prep = [c for c in t.children if isinstance(c, Token) and c.type in ("PREP", "AT", "ON", "TO", "UNDER", "FOR")][0]
                entry = self._verb_entry(f"be {prep.value.lower()}")
                pred = self.lex.expand(entry.get("predicate", "ex:" + _camel(["is", prep.value.lower()], False)))
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
            case "progressive":  # "The cat is chasing the dog." = the cat chases the dog
                verb = [c for c in t.children if isinstance(c, Token) and c.type == "W_V"][0]
                if not verb.value.lower().endswith("ing"):
                    raise Unsupported(f"'{verb.value}' after a copula (not an -ing form)")
                return self.verb_phrase(t, s, scope, frame, neg)
            case "be_type_rel":  # "is a cat that chases the dog": a cat, and chases the dog
                head = [c for c in t.children if isinstance(c, Tree) and c.data in ("type_head", "be_a_adj")][0]
                if head.data == "type_head":  # "a cat", "cats", "someone": its class (someone: none)
                    head = Tree("be_type", head.children) if _kids(head, "nominal") else None
                out = self.predicate(head, subject, scope, frame) if head is not None else []
                for p in _kids(t, "relative")[0].children:
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
        particle = [_tokens(c)[0].value.lower() for c in _kids(t, "particle")]
        objs_t = _kids(t, "objects")
        pps = _kids(t, "pps")[0].children if _kids(t, "pps") else []
        head = " ".join([lem] + particle)
        obj_words = []
        if objs_t and len(objs_t[0].children) == 1 and isinstance(objs_t[0].children[0], Tree) \
                and objs_t[0].children[0].data in ("bare", "definite"):
            obj_words = [x.value.lower() for x in _tokens(objs_t[0].children[0]) if x.type != "THE"]
        first_prep = None
        pp_obj = None
        extra: list[Tree] = []
        for pp in pps:
            if pp.data == "pp" and first_prep is None:
                first_prep = _tokens(pp)[0].value.lower()
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
                frame.valid_to = self.clock(_tokens(pp)[-1].value, scope)
        if kind == "stay":
            return []
        if kind == "set":
            attr = " ".join(obj_words)
            spec = self.attributes.get(attr)
            if spec is None:
                raise Unsupported(f"'{head}' of an unknown attribute '{attr}'")
            tv = [c for pp in pps if pp.data == "pp" and _tokens(pp)[0].value.lower() == "to"
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
            to = [c for pp in pps if pp.data == "pp" and _tokens(pp)[0].value.lower() == "to"
                  for c in pp.children if isinstance(c, Tree) and c.data not in ("measure", "number", "date", "time")]
            if not to or not objs_t:
                raise Unsupported(f"'{head}' without an object and a recipient")
            s = self.np(to[0], scope).term
        if "predicate" in entry:
            pred = self.lex.expand(entry["predicate"])
        else:
            words = [third_person(lem)] + particle + ([first_prep] if used_prep and first_prep else [])
            pred = self.lex.expand("ex:" + _camel(words, False))
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
        if tree.data == "indefinite":
            raise Unsupported("an indefinite object ('a …'): which one is not said")
        if scope.asking:
            raise Unsupported("a question about a kind (a bare plural object), not a named thing")
        v = Var(f"y{len(scope.kind_objects)}" if scope.kind_objects else "y")  # not a pronoun's antecedent
        scope.kind_objects.append(Prop(v, RDF_TYPE, ref.cls))
        return v

    def _event_roles(self, roles: dict, agent, objects: list, pps: list, scope: "Scope", frame: Frame) -> None:
        """One event entity at the sentence's story instant with a fact per role the clause fills."""
        t = frame.time_rank * STORY_RANK + scope.ctx.story_time
        fillers: list[tuple[str, Term]] = [("subject", agent)] + [("object", o) for o in objects]
        for pp in pps:
            if pp.data == "pp":
                obj = [c for c in pp.children if isinstance(c, Tree)][0]
                if obj.data not in ("measure", "date", "number", "time"):
                    fillers.append((_tokens(pp)[0].value.lower(), self.np(obj, scope).term))
        # The event's name: its instant and a digest of what fills its roles, so two stories in one KB
        # never share an event unless they tell the same one (two givings at one instant stay apart).
        digest = hashlib.sha256(repr(sorted((k, str(v)) for k, v in fillers)).encode()).hexdigest()[:12]
        e = self.iri(f"event/{t}/{digest}")
        for slot, term in fillers:
            if slot in roles and not isinstance(term, Var):
                scope.events.append(Prop(e, self.lex.expand(roles[slot]), term, False, "event:" + str(t)))

    def event_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"Who gave the apple to Fred?" / "Who did Jeff give the apple to?" / "What did Bill give to
        Fred?": the asked role of an event of the verb, the other named slots as conditions."""
        verb = [c for c in q.children if isinstance(c, Token) and c.type.startswith("W_")][0]
        particle = [_tokens(c)[0].value.lower() for c in _kids(q, "particle")]
        head = " ".join([lemma(verb.value, "VERB")] + particle)
        roles = self._verb_entry(head).get("roles")
        if not roles:
            raise Unsupported(f"'{head}' names no event roles in the lexicon")
        known: list[tuple[str, Ref]] = []
        if _kids(q, "subjects"):
            subs = self.subjects(_kids(q, "subjects")[0], scope)
            known += [("subject", r) for r in subs]
        for o in _kids(q, "objects"):
            known += [("object", r) for r in self.object_refs(o, scope)]
        for pl in _kids(q, "pps"):
            for pp in pl.children:
                obj = [c for c in pp.children if isinstance(c, Tree)] if pp.data == "pp" else []
                if not obj or obj[0].data in ("measure", "date", "number", "time"):
                    raise Unsupported("a question's phrase that names no event role")
                known.append((_tokens(pp)[0].value.lower(), self.np(obj[0], scope)))
        if q.data == "q_who_verb":
            asked = "subject"
        elif q.data == "q_what_did":
            asked = "object"
        else:  # the stranded preposition: "Who did Jeff give the apple to?"
            asked = [c for c in q.children if isinstance(c, Token)][-1].value.lower()
        slots = [asked] + [k for k, _ in known]
        if asked in (k for k, _ in known) or any(k not in roles for k in slots) or len(set(slots)) != len(slots):
            raise Unsupported(f"'{head}' has no event role for every phrase of the question")
        if any(isinstance(r.term, Var) or r.kind for _, r in known):
            raise Unsupported("an event question about someone unnamed")
        out = Meaning()
        out.ask = ("event", self.lex.expand(roles[asked]),
                   tuple((self.lex.expand(roles[k]), r.term) for k, r in known))
        return out

    # -- time -----------------------------------------------------------------------------------
    def clock(self, hhmm: str, scope: "Scope") -> int:
        h, m = hhmm.split(":")
        return (scope.ctx.date or 0) + (int(h) * 60 + int(m)) * 60_000

    def frames(self, stmt: Tree, scope: "Scope") -> Frame:
        frame = Frame()
        for c in stmt.children:
            if not isinstance(c, Tree):
                continue
            toks = _tokens(c)
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
        scope = Scope(ctx, sentence_start)
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
                for k, c in enumerate(_kids(body, "clause")):
                    if k:
                        self._clause_boundary(scope, out)
                    self.clause(c, scope, frame, out)
            case "conditional":
                self.conditional(body, scope, out)
            case "conditional_post":
                self.conditional(body, scope, out, conclusion_first=True)
            case "not_the_case":
                self.not_the_case(body, scope, frame, out)
            case "so_clause":
                self.so_clause(body, scope, frame, out)
            case "neither_clause":
                self.neither_clause(body, scope, frame, out)
            case ("generic_adj" | "generic_every" | "generic_all" | "generic_rel" | "generic_adj_rel" | "generic_no_adj"
                  | "generic_no_every" | "generic_no_rel" | "generic_no_adj_rel" | "generic_noun_rel"):
                self.generic(body, scope, out)
            case "generic_only":
                self.generic_only(body, scope, out)
            case "dated_heading":
                ctx.date = _date_ms([x for x in _tokens(body) if x.type == "DATE"][0].value)
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
        return out

    def _stated_genders(self, out: Meaning):
        """(subject, gender) for each type fact of ``out`` whose class has a gender ("Bob is a man.")."""
        for p, _ in out.props:
            g = self.gender_classes.get(p.object) if p.predicate == RDF_TYPE and not p.negated else None
            if g and not isinstance(p.subject, Var):
                yield p.subject, g

    def yes_no_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"Is Bob big?" / "Does the cat chase the dog?" mean the statement they ask about."""
        out = Meaning()
        scope.asking = True
        if q.data == "q_if_judgement":
            return self.judgement_question(q, scope)
        if q.data == "q_what_attribute":
            subs = self.subjects(_kids(q, "subjects")[0], scope)
            noun = [c for c in q.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0].value.lower()
            pred = self.lex.table("attribute_questions").get(noun)
            if pred is None or len(subs) != 1 or isinstance(subs[0].term, Var):
                raise Unsupported(f"'what {noun}' questions")
            out = Meaning()
            out.ask = ("what", subs[0].term, self.lex.expand(pred))
            return out
        if q.data in ("q_where_will", "q_why"):
            subs = self.subjects(_kids(q, "subjects")[0], scope)
            if len(subs) != 1 or isinstance(subs[0].term, Var):
                raise Unsupported("a question about one named thing")
            pred = self.lex.table("intentions").get("will" if q.data == "q_where_will" else "why")
            if pred is None:
                raise Unsupported("no [intentions] in the lexicon")
            out = Meaning()
            out.ask = ("what", subs[0].term, self.lex.expand(pred))
            return out
        if q.data in ("q_who_verb", "q_who_did", "q_what_did"):
            return self.event_question(q, scope)
        if q.data == "q_path":
            ends = [self.np(c, scope).term for c in q.children if isinstance(c, Tree)]
            out = Meaning()
            out.ask = ("path", ends[0], ends[1])
            return out
        if q.data == "q_true_that":  # "Is it true that the bear is red?" asks what the clause states
            word = [c for c in q.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0].value
            if word.lower() != "true":
                raise Unsupported(f"'is it {word} that …' questions")
            clause = _kids(q, "clause")[0]
            subs = self.subjects(_kids(clause, "subjects")[0], scope)
            preds = [c for c in _kids(clause, "predicates")[0].children if isinstance(c, Tree)]
            if any(r.kind for r in subs):
                raise Unsupported("a question about a kind (a bare plural or 'a …'), not a named thing")
            frame = Frame()
            out.props = [(p, frame) for s in subs for pr in preds for p in self.predicate(pr, s, scope, frame)]
            return out
        if q.data in ("q_where", "q_where_before", "q_what_adj_rel", "q_count", "q_what_verb", "q_what_rel_subject",
                      "q_what_rel_object"):
            return self.wh_question(q, scope)
        subs = self.subjects(_kids(q, "subjects")[0], scope)
        # The question's predicate is its own children minus the subjects: re-read it as a predicate.
        rest = [c for c in q.children if not (isinstance(c, Tree) and c.data == "subjects")]
        label = {"q_be_adj": "be_adj", "q_be_prep": "be_prep", "q_be_adj_rel": "be_adj_rel", "q_be_side": "be_side",
                 "q_do_verb": "do_verb" if _has(q, "NOT") else "verb"}.get(q.data)
        if label is None:
            raise Unsupported(f"question form {q.data}")
        if any(r.kind for r in subs):  # "Do cats chase the dog?" asks about a rule, not a fact
            raise Unsupported("a question about a kind (a bare plural or 'a …'), not a named thing")
        frame = Frame()
        for s in subs:
            for p in self.predicate(Tree(label, rest), s, scope, frame):
                out.props.append((p, frame))
        return out

    def wh_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"Where is Mary?", "Where was the football before the kitchen?", "What is Gertrude afraid of?"."""
        out = Meaning()
        if q.data == "q_what_rel_subject":  # "What is north of the kitchen?"
            words = [t.value.lower() for t in _tokens(_kids(q, "nominal")[0])] + ["of"]
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + _camel(words, False)))
            obj = self.np([c for c in q.children if isinstance(c, Tree) and c.data != "nominal"][0], scope)
            out.ask = ("what_subject", obj.term, pred)
            return out
        subs = self.subjects(_kids(q, "subjects")[0], scope)
        if len(subs) != 1 or isinstance(subs[0].term, Var) or subs[0].kind:
            raise Unsupported("a question about one named thing")
        s = subs[0].term
        if q.data in ("q_count", "q_what_verb"):
            verb = [c for c in q.children if isinstance(c, Token) and c.type.startswith("W_")][-1]
            pred = self.lex.expand(self._verb_entry(lemma(verb.value, "VERB")).get(
                "predicate", "ex:" + third_person(lemma(verb.value, "VERB"))))
            out.ask = ("count" if q.data == "q_count" else "list", s, pred)
            return out
        if q.data == "q_what_rel_object":  # "What is the garden east of?"
            words = [t.value.lower() for t in _tokens(_kids(q, "nominal")[0])] + ["of"]
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + _camel(words, False)))
            out.ask = ("what", s, pred)
            return out
        if q.data == "q_where":
            out.ask = ("where", s)
        elif q.data == "q_where_before":
            prep = [c for c in q.children if isinstance(c, Token) and c.type == "PREP"][0].value.lower()
            if prep not in ("before", "after"):
                raise Unsupported(f"'where ... {prep}'")
            anchor = self.np([c for c in q.children if isinstance(c, Tree) and c.data != "subjects"][0], scope)
            out.ask = ("where_" + prep, s, anchor.term)
        else:
            words = [c.value.lower() for c in q.children if isinstance(c, Token) and c.type not in ("WHAT", "BE", "HAVE", "BEEN")]
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + _camel(words, False)))
            out.ask = ("what", s, pred)
        return out

    def judgement_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"If a user is inactive for 20 minutes in v2.0, is their session valid?"."""
        out = Meaning()
        subs = self.subjects(_kids(q, "subjects")[0], scope)
        pred = [c for c in q.children if isinstance(c, Tree) and c.data not in ("subjects", "nominal", "adjectives")][0]
        frame = Frame()
        for s in subs:
            out.props.extend((p, frame) for p in self.predicate(pred, s, scope, frame))
        version = [c for c in q.children if isinstance(c, Token) and c.type == "VERSION"]
        out.version = version[0].value.lstrip("vV") if version else None
        noun = " ".join(t.value.lower() for t in _tokens(_kids(q, "nominal")[0]))
        adjs = [_tokens(i)[-1].value.lower() for i in _kids(_kids(q, "adjectives")[0], "adj_item")]
        if len(adjs) != 1:
            raise Unsupported("a judgement question asks about one adjective")
        out.judgement = f"{noun} {adjs[0]}"
        if _has(q, "NOT"):
            raise Unsupported("a negated judgement question")
        return out

    def clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        subs = self.subjects(_kids(body, "subjects")[0], scope)
        preds = [c for c in _kids(body, "predicates")[0].children if isinstance(c, Tree)]
        subs = self._plural_agreement(body, subs, preds)
        scope.last = subs
        generic = [r for r in subs if r.kind]
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
            self._rules(out, scope, [Prop(x, RDF_TYPE, subs[0].cls)], props, scope.kind_objects)
            return
        for s in subs:
            if isinstance(s.term, Var):
                raise Unsupported("a statement about someone unnamed")
            for ty in s.types:
                out.props.append((Prop(s.term, RDF_TYPE, ty), Frame(version=frame.version)))
            for p in preds:
                for q in self.predicate(p, s, scope, frame):
                    if isinstance(q.object, Var):  # "The cat chases dogs.": a rule over the dogs
                        if scope.ctx.story_time is not None or q.kind:
                            raise Unsupported("a story event about a kind (a bare plural object)")
                        self._rules(out, scope, [], [q], scope.kind_objects)
                    else:
                        out.props.append((q, self._story_frame(q, frame, scope)))

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
        if t.data == "indefinite":
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
        np = [c for c in _kids(body, "subjects")[0].children if isinstance(c, Tree)]
        if len(subs) != 1 or subs[0].kind or len(np) != 1 or np[0].data not in ("bare", "named"):
            return subs
        words = _tokens(np[0])
        bes = [t for p in preds for t in p.children if isinstance(t, Token) and t.type == "BE"]
        if len(words) != 1 or not bes or any(b.value.lower() not in ("are", "were") for b in bes) \
                or "N" not in pos_flags(words[0].value.lower()):
            return subs
        w = words[0].value.lower()
        return [Ref(self.iri(w), kind=True, cls=self.class_iri([w]), agree="p")]

    def _story_frame(self, p: Prop, frame: Frame, scope: "Scope") -> Frame:
        """In a story, a state change (move, acquire, drop) holds from the sentence's story time
        (ordered first by its time word: "yesterday" before "this morning")."""
        t = scope.ctx.story_time
        if t is None or not p.kind or frame.valid_from is not None:
            return frame
        return replace(frame, valid_from=frame.time_rank * STORY_RANK + t)  # kinds: move, acquire, give, drop

    def _clause_boundary(self, scope: "Scope", out: Meaning) -> None:
        """Between two clauses joined by "and" / "but", a pronoun refers back as after a sentence: "The
        bear is big and it is red." (it: the bear, the clause before's one subject, when that clause had
        no object it could also be); the genders the clauses before gave ("Bob is a man and …") count."""
        scope.hand_over()
        scope.last, scope.objects = [], []
        for who, g in self._stated_genders(out):
            scope.genders.setdefault(who, g)

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
        items = _either(_kids(t, "adjectives_or")[0])
        return [self.predicate(Tree("be_adj", [Tree("adjectives", [i])]), subject, scope, frame) for i in items]

    def conditional(self, body: Tree, scope: "Scope", out: Meaning, *, conclusion_first: bool = False) -> None:
        """"If something is red then it is big." (also without "then": "If something is red it is big.",
        "When something is red, it is big."); ``conclusion_first``: "Something is big if it is red." (the
        clauses read in the order written, so "it" refers back to "something" either way).  Conditions
        joined by "or" ("If something is red or big …", "If the cat is red or the dog is big …") give
        one rule for each way they can hold."""
        frame = Frame()
        scope.in_rule = True
        cond_tree = [c for c in body.children if isinstance(c, Tree) and c.data in ("conditions", "conditions_or")][0]
        conds = [c for c in cond_tree.children if isinstance(c, Tree)]
        any_of = cond_tree.data == "conditions_or"
        conss = [c for c in _kids(body, "consequents")[0].children if isinstance(c, Tree)]
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
        if any_of and types:
            # "If a cat is red or a dog is big then …": each rule would need only its own class
            raise Unsupported("an indefinite subject in conditions joined by 'or'")
        for alt in _bounded(cond):
            self._rules(out, scope, types + alt, cons[0], scope.kind_objects)

    def _typed_variable(self, ref: Ref, scope: "Scope", types: list[Prop]) -> Ref:
        """A fresh rule variable for the generic subject ``ref`` ("a cat"), its class condition added to ``types``."""
        x = scope.variable()
        types.append(Prop(x, RDF_TYPE, ref.cls))
        scope.typed[ref.term] = x  # "… a dog is big then the dog …": the same dog
        return Ref(x, agree=ref.agree)

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
            items = _either(adjs) if adjs.data == "adjectives_or" else _kids(adjs, "adj_item")
            props = [Prop(x, RDF_TYPE, self.class_iri([_tokens(item)[-1].value]), _has(item, "NOT")) for item in items]
            cond = [[p] for p in props] if adjs.data == "adjectives_or" else [props]  # "Red or big things …"
        elif form != "generic_rel":
            words = [t.value for t in _tokens(_kids(body, "nominal")[0])]
            if denied and [w.lower() for w in words] == ["one"]:
                raise Unsupported("'no one …' (nobody at all): a rule needs a class to range over")
            cond = [[Prop(x, RDF_TYPE, self.class_iri([w])) for w in words[:-1]]]
            cond[0].append(Prop(x, RDF_TYPE, self.class_iri(words[-1:])))
        if form in ("generic_rel", "generic_adj_rel", "generic_noun_rel"):  # "Anything that is red and sees the dog …"
            for p in _kids(body, "relative")[0].children:
                if isinstance(p, Tree):
                    cond = _product(cond, self.alternatives(p, Ref(x), scope, frame))
        _no_kind_in_condition(scope)
        scope.last = [Ref(x)]
        cons = [q for p in _kids(body, "predicates")[0].children if isinstance(p, Tree) for q in self.predicate(p, Ref(x), scope, frame)]
        if denied:
            if len(cons) != 1 or scope.kind_objects:
                # "No cat is big and red.": not both, or neither?  Refused rather than guessed.
                raise Unsupported("'no …' with more than one conclusion (not both, or none of them?)")
            cons = [replace(cons[0], negated=not cons[0].negated)]
        for alt in _bounded(cond):
            self._rules(out, scope, alt, cons, scope.kind_objects)

    def not_the_case(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"It is not the case that the bear is red." (or "It is false / not true that …") denies one
        statement, "It is true that …" states it; a clause stating several
        ("… that the bear is big and red": not both, or neither?) or a rule is refused."""
        words = [t.value.lower() for t in body.children if isinstance(t, Token) and t.type not in ("BE", "NOT", "THE", "THAT")]
        if words not in (["it", "case"], ["it", "true"], ["it", "false"], ["it", "untrue"]):
            raise Unsupported(f"'{' '.join(words)}' before 'that'")
        deny = _has(body, "NOT") != (words[1] in ("false", "untrue"))
        inner = Meaning()
        self.clause(_kids(body, "clause")[0], scope, frame, inner)
        if len(inner.props) != 1 or inner.rules or scope.extra or scope.events or inner.props[0][0].kind:
            raise Unsupported("'it is not the case that' a clause stating more (or other) than one fact")
        p, f = inner.props[0]
        out.props.append((replace(p, negated=p.negated != deny), f))

    def so_clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"The cat is big and so is the dog." (and "…, as is the dog."): the clause, then its predicates
        again of the new subject; "… is not big and neither is the dog." the same for a denial.  The
        auxiliary must fit ("so is" after "is", "so does" after a verb) and "so" / "neither" the
        clause's polarity, else the sentence is refused."""
        clause = _kids(body, "clause")[0]
        props, rules = len(out.props), len(out.rules)
        self.clause(clause, scope, frame, out)
        preds = _kids(clause, "predicates")[0]
        verbal = [p.data in ("verb", "do_verb", "verbs") for p in preds.children if isinstance(p, Tree)]
        aux = [c for c in body.children if isinstance(c, Token) and c.type in ("BE", "DO")][0]
        if any(verbal) if aux.type == "BE" else not all(verbal):
            raise Unsupported(f"'{aux.value}' does not repeat the clause's predicate")
        said = [p.negated for p, _ in out.props[props:]] + [r.head.negated for r in out.rules[rules:]]
        if not said or any(said) != _has(body, "NEITHER") or len(set(said)) > 1:
            raise Unsupported("'so' after a denial, or 'neither' after a statement")
        self._clause_boundary(scope, out)
        np = [c for c in body.children if isinstance(c, Tree) and c.data != "clause"][0]
        self.clause(Tree("clause", [Tree("subjects", [np]), preds]), scope, frame, out)

    def neither_clause(self, body: Tree, scope: "Scope", frame: Frame, out: Meaning) -> None:
        """"Neither the cat nor the dog is red.": each subject's one statement, denied (a predicate
        stating more than one thing, or a generic subject, is refused: not both, or neither?)."""
        nps = [c for c in body.children if isinstance(c, Tree)][:-1]
        pred = [c for c in body.children if isinstance(c, Tree)][-1]
        for np in nps:
            inner = Meaning()
            extra, events = len(scope.extra), len(scope.events)
            self.clause(Tree("clause", [Tree("subjects", [np]), Tree("predicates", [pred])]), scope, frame, inner)
            if len(inner.props) != 1 or inner.rules or len(scope.extra) > extra or len(scope.events) > events \
                    or inner.props[0][0].negated or inner.props[0][0].kind:
                raise Unsupported("'neither … nor' with a predicate that states more (or other) than one fact")
            p, f = inner.props[0]
            out.props.append((replace(p, negated=True), f))

    def generic_only(self, body: Tree, scope: "Scope", out: Meaning) -> None:
        """"Only big, kind things are red." = whatever is red is big and kind."""
        scope.in_rule = True
        x = scope.variable()
        lists = [[_tokens(i) for i in _kids(a, "adj_item")] for a in _kids(body, "adjectives")]
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


def _either(adjectives_or: Tree) -> list[Tree]:
    """The items of "red or big"; "not red or big" is refused (neither of them, or not red or big?)."""
    items = _kids(adjectives_or, "adj_item")
    if _has(items[0], "NOT"):
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


def _date_ms(iso: str) -> int:
    d = datetime.strptime(iso, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return int(d.timestamp() * 1000)


class Scope:
    """Variables and references inside one sentence."""

    def __init__(self, ctx: Context, sentence_start: int):
        self.ctx = ctx
        self.sentence_start = sentence_start
        self.vars: list[Var] = []
        self.last: list[Ref] = []
        self.in_rule = False
        self.version: str | None = None
        self.extra: list[Prop] = []
        self.events: list[Prop] = []
        self.objects: list[Ref] = []  # direct objects read in this sentence (antecedents of a later "it")
        self.kind_objects: list[Prop] = []  # the class conditions of bare plural objects ("chases dogs")
        self.asking = False  # reading a question: a clause means what it asks, not what it would state
        self.genders: dict = {}  # genders this sentence's resolved pronouns give their antecedents
        self.typed: dict = {}  # a rule's indefinite subjects ("a dog"): their term -> the variable standing for them

    def hand_over(self) -> None:
        """Leave this sentence's (or clause's) subjects and objects to the context, as the antecedents
        of the pronouns after it."""
        ctx = self.ctx
        if self.last:
            ctx.last_subjects = tuple(self.last)
        if self.objects:
            ctx.last_objects = tuple(self.objects)
        ctx.prev_objects = tuple(self.objects)

    def variable(self) -> Var:
        v = Var("x" if not self.vars else f"x{len(self.vars)}")
        self.vars.append(v)
        return v

    def pronoun(self, word: str) -> Ref:
        if self.in_rule or self.vars:
            if self.vars:
                return Ref(self.vars[-1])
            if self.last:
                return self.last[0]
            raise Unresolved(f"'{word}' refers to nothing in the rule")
        if self.last:
            # After the clause's subject a plain pronoun is never that subject ("Piet gave it to Quinn":
            # "it" is not Piet; that would be "itself"): "it" is the previous sentence's one object,
            # another pronoun the previous sentence's one other subject; otherwise unresolved.
            own = {r.term for r in self.last}
            before = self.ctx.last_objects if word.lower() == "it" else self.ctx.last_subjects
            cands = [r for r in before if r.term not in own]
            if len(cands) == 1:
                return cands[0]
            raise Unresolved(f"'{word}' has no single antecedent other than its clause's subject")
        if self.ctx.last_subjects:
            # A sentence's first pronoun is the subject before it, when that is the only candidate:
            # "The bear is big. It is red." — not after "The cat and the dog …" (which one?), and "it"
            # not after "The bear sees the cat." (the bear or the cat?).
            subjects = {r.term for r in self.ctx.last_subjects}
            w = word.lower()
            if w in ("it", "he", "she") and len(subjects) > 1:
                raise Unresolved(f"'{word}' could be any of the subjects before it")
            if w == "it" and any(r.term not in subjects for r in self.ctx.prev_objects):
                raise Unresolved("'it' could be the subject or the object of the sentence before")
            ref = self.ctx.last_subjects[0]
            self._agree(word, ref)
            return ref
        raise Unresolved(f"'{word}' refers to nothing before it")

    def _agree(self, word: str, ref: Ref) -> None:
        """A sentence-initial pronoun refers back to ``ref`` only when their gender and number agree
        (lexicon ``[genders]``, what the text said of ``ref``); otherwise it is refused, never guessed.
        "They" after several subjects never gets here (Interpreter.subjects takes them all)."""
        w = word.lower()
        want = {"he": "m", "she": "f", "it": "n", "they": "p"}.get(w)
        if want is None:
            raise Unresolved(f"'{word}' as a sentence's subject")
        have = self.genders.get(ref.term, self.ctx.genders.get(ref.term, ref.agree)) if isinstance(ref.term, IRI) \
            else ref.agree  # this sentence's own first (an earlier clause: "Bob is a man and he …")
        if want == "p" or have == "p":
            if want != have:
                raise Unresolved(f"'{word}' does not agree in number with what it would refer to")
            return
        if have not in ("", "h") and have != want:
            raise Unresolved(f"'{word}' does not agree in gender with what it would refer to")
        if have == "h" and want == "n":  # "the person … it"
            raise Unresolved(f"'{word}' does not agree with a person")
        if isinstance(ref.term, IRI) and not ref.kind:
            self.genders[ref.term] = want  # "Bob … He …": Bob is "he" from now on
