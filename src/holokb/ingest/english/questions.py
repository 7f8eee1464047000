"""Questions a sentence asks: yes/no ("Is the bear red?"), wh- ("Where is John?", "What is the
kitchen east of?"), judgements, and questions about one role of an event ("Who gave the apple to Fred?")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from lark import Token, Tree

from ...analysis.program import Var
from .lexicon import lemma, third_person
from .structures import Frame, Meaning, Ref, Unsupported, camel, has, kids, tokens_of

if TYPE_CHECKING:
    from .scope import Scope


class QuestionReading:
    """The Interpreter's reading of questions (mixed into :class:`~.meaning.Interpreter`)."""

    def event_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"Who gave the apple to Fred?" / "Who did Jeff give the apple to?" / "What did Bill give to
        Fred?": the asked role of an event of the verb, the other named slots as conditions."""
        verb = [c for c in q.children if isinstance(c, Token) and c.type.startswith("W_")][0]
        particle = [tokens_of(c)[0].value.lower() for c in kids(q, "particle")]
        head = " ".join([lemma(verb.value, "VERB")] + particle)
        roles = self._verb_entry(head).get("roles")
        if not roles:
            raise Unsupported(f"'{head}' names no event roles in the lexicon")
        known: list[tuple[str, Ref]] = []
        if kids(q, "subjects"):
            subs = self.subjects(kids(q, "subjects")[0], scope)
            known += [("subject", r) for r in subs]
        for o in kids(q, "objects"):
            known += [("object", r) for r in self.object_refs(o, scope)]
        for pl in kids(q, "pps"):
            for pp in pl.children:
                obj = [c for c in pp.children if isinstance(c, Tree)] if pp.data == "pp" else []
                if not obj or obj[0].data in ("measure", "date", "number", "time"):
                    raise Unsupported("a question's phrase that names no event role")
                known.append((tokens_of(pp)[0].value.lower(), self.np(obj[0], scope)))
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
    def yes_no_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"Is Bob big?" / "Does the cat chase the dog?" mean the statement they ask about."""
        out = Meaning()
        scope.asking = True
        if q.data == "q_if_judgement":
            return self.judgement_question(q, scope)
        if q.data == "q_what_attribute":
            subs = self.subjects(kids(q, "subjects")[0], scope)
            noun = [c for c in q.children if isinstance(c, Token) and c.type.startswith(("W_", "C_"))][0].value.lower()
            pred = self.lex.table("attribute_questions").get(noun)
            if pred is None or len(subs) != 1 or isinstance(subs[0].term, Var):
                raise Unsupported(f"'what {noun}' questions")
            out = Meaning()
            out.ask = ("what", subs[0].term, self.lex.expand(pred))
            return out
        if q.data in ("q_where_will", "q_why"):
            subs = self.subjects(kids(q, "subjects")[0], scope)
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
            clause = kids(q, "clause")[0]
            subs = self.subjects(kids(clause, "subjects")[0], scope)
            preds = [c for c in kids(clause, "predicates")[0].children if isinstance(c, Tree)]
            if any(r.kind for r in subs):
                raise Unsupported("a question about a kind (a bare plural or 'a …'), not a named thing")
            frame = Frame()
            out.props = [(p, frame) for s in subs for pr in preds for p in self.predicate(pr, s, scope, frame)]
            return out
        if q.data in ("q_where", "q_where_before", "q_what_adj_rel", "q_count", "q_what_verb", "q_what_rel_subject",
                      "q_what_rel_object"):
            return self.wh_question(q, scope)
        subs = self.subjects(kids(q, "subjects")[0], scope)
        # The question's predicate is its own children minus the subjects: re-read it as a predicate.
        rest = [c for c in q.children if not (isinstance(c, Tree) and c.data == "subjects")]
        label = {"q_be_adj": "be_adj", "q_be_prep": "be_prep", "q_be_adj_rel": "be_adj_rel", "q_be_side": "be_side",
                 "q_do_verb": "do_verb" if has(q, "NOT") else "verb"}.get(q.data)
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
            words = [t.value.lower() for t in tokens_of(kids(q, "nominal")[0])] + ["of"]
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + camel(words, False)))
            obj = self.np([c for c in q.children if isinstance(c, Tree) and c.data != "nominal"][0], scope)
            out.ask = ("what_subject", obj.term, pred)
            return out
        subs = self.subjects(kids(q, "subjects")[0], scope)
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
            words = [t.value.lower() for t in tokens_of(kids(q, "nominal")[0])] + ["of"]
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + camel(words, False)))
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
            pred = self.lex.expand(self._verb_entry(" ".join(words)).get("predicate", "ex:" + camel(words, False)))
            out.ask = ("what", s, pred)
        return out

    def judgement_question(self, q: Tree, scope: "Scope") -> Meaning:
        """"If a user is inactive for 20 minutes in v2.0, is their session valid?"."""
        out = Meaning()
        subs = self.subjects(kids(q, "subjects")[0], scope)
        pred = [c for c in q.children if isinstance(c, Tree) and c.data not in ("subjects", "nominal", "adjectives")][0]
        frame = Frame()
        for s in subs:
            out.props.extend((p, frame) for p in self.predicate(pred, s, scope, frame))
        version = [c for c in q.children if isinstance(c, Token) and c.type == "VERSION"]
        out.version = version[0].value.lstrip("vV") if version else None
        noun = " ".join(t.value.lower() for t in tokens_of(kids(q, "nominal")[0]))
        adjs = [tokens_of(i)[-1].value.lower() for i in kids(kids(q, "adjectives")[0], "adj_item")]
        if len(adjs) != 1:
            raise Unsupported("a judgement question asks about one adjective")
        out.judgement = f"{noun} {adjs[0]}"
        if has(q, "NOT"):
            raise Unsupported("a negated judgement question")
        return out

