"""Variables and references inside one sentence (the pronouns' antecedents, a rule's variables)."""
from __future__ import annotations

from ...analysis.program import Var
from ...core import IRI
from .structures import Context, Prop, Ref, Unresolved


class Scope:
    """Variables and references inside one sentence."""

    def __init__(self, ctx: Context, sentence_start: int, *, checking: bool = False):
        self.ctx = ctx
        self.sentence_start = sentence_start
        self.vars: list[Var] = []
        self.last: list[Ref] = []
        self.in_rule = False
        self.version: str | None = None
        self.extra: list[Prop] = []
        self.events: list[Prop] = []
        self.objects: list[Ref] = []  # direct objects read in this sentence (antecedents of a later "it")
        self.gap: Var | None = None  # the missing object of an object relative ("that the cat chases")
        self.kind_objects: list[Prop] = []  # the class conditions of bare plural objects ("chases dogs")
        self.asking = False  # reading a question: a clause means what it asks, not what it would state
        self.checking = checking  # reading a question or a claim to check (not a statement to store)
        self.genders: dict = {}  # genders this sentence's resolved pronouns give their antecedents
        self.typed: dict = {}  # a rule's indefinite subjects ("a dog"): their term -> the variable standing for them
        self.said: tuple = ()  # what the latest clause said of its last subject (Context.last_said)

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
            if len(self.vars) > 1:
                # "If something is white and something is rough then it …", "If a cat chases a dog then
                # it …": which one?  Refused, never the last one named.
                raise Unresolved(f"'{word}' could be any of the rule's {len(self.vars)} unnamed things")
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
