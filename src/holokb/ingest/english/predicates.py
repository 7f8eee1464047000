"""What a copula predicate states of one subject: "is big", "is a big cat", "is neither big nor red",
"is afraid of wolves", "is red in color", "is chased by the cat", "is in the kitchen", "is to the left
of the box", "is either in the park or …", "is a cat that chases the dog"; a verb's own forms are
read by :class:`~.verbs.VerbReading`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from lark import Token, Tree

from ...analysis.program import Var
from ...core import IRI, RDF_TYPE, Literal, Term
from .lexicon import lemma, third_person
from .structures import Frame, Prop, Ref, Unsupported, camel, has, kids, tokens_of

if TYPE_CHECKING:
    from .scope import Scope


class PredicateReading:
    """Mixin of :class:`~.meaning.Interpreter` (which gives ``lex``, ``ns``, ``aspects``, ``np`` and the names)."""

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
                aspect = tokens_of(obj) if prep == "in" and obj.data == "bare" and adj.type != "W_V" else []
                if len(aspect) == 1 and aspect[0].value.lower() in self.aspects:
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
