"""What a verb phrase states of one subject: the predicate a verb (with its particle, preposition and
object words) names in the lexicon's ``[verbs]`` table or by its third-person form, its objects (a
bare plural object is every member of its class), and a story event's roles."""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from lark import Token, Tree

from ...analysis.program import Var
from ...core import RDF_TYPE, Literal, Term
from ...core.terms import XSD_DATE
from ...core.time import parse_date_ms
from .lexicon import lemma, third_person
from .structures import STORY_RANK, Frame, Prop, Ref, Unsupported, camel, kids, tokens_of

if TYPE_CHECKING:
    from .scope import Scope


class VerbReading:
    """Mixin of :class:`~.meaning.Interpreter` (which gives ``lex``, ``verbs``, ``np`` and the names)."""

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
            frame.valid_from = parse_date_ms(objects[0].lexical)
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
