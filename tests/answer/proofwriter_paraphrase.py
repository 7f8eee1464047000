"""A seeded paraphraser of ProofWriter records (test support, not product code).

It rewrites each record's theory and question into other phrasings of the same meaning, the ones
issue 11 says other data in the same JSON format will use: determiners (every, each, all, any),
plural subjects and verbs ("Bob and Dave are red.", "The cat and the dog chase the mouse.",
"Things that chase the dog are big."), "X things are Y" <-> "If something is X then it is Y" <->
"Anything that is X is Y", contractions ("isn't", "doesn't", "don't"), someone / something /
a person.  Only meaning-preserving rewrites: the paraphrased record has the original's answer.

ProofWriter's sentence forms are few (facts about a name or "the X", generic adjective rules, "If …
then …" over one variable or constants); a sentence of another form is kept as it is.  Choices are
drawn from ``random.Random(f"{seed}:{record id}")``, so the output is deterministic.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

#: The verbs of ProofWriter's relations, lemma → third person.
VERBS = {"chase": "chases", "eat": "eats", "like": "likes", "need": "needs", "see": "sees", "visit": "visits"}
_THIRD = {v: k for k, v in VERBS.items()}
_VERB = "|".join(sorted(set(VERBS) | set(_THIRD), key=len, reverse=True))
_ENT = r"(?:[Tt]he (?:bald )?[a-z]+|[A-Z][a-z]+)"

VAR = "VAR"


@dataclass(frozen=True)
class Pred:
    """``is (not) ADJ`` (verb None) or ``(does not) VERB OBJ`` of some subject."""

    neg: bool
    adj: str | None = None
    verb: str | None = None   # lemma
    obj: str | None = None


@dataclass(frozen=True)
class Atom:
    subj: str                 # VAR, a name, or "the cat"
    pred: Pred


_PRED = re.compile(rf"^(?:(?:is|are)(?P<bneg> not)? (?P<adj>[a-z]+)|(?P<dneg>(?:does|do) not )?(?P<verb>{_VERB}) (?P<obj>{_ENT}))$")
_SUBJ = re.compile(rf"^(?P<s>something|someone|it|they|{_ENT}) (?P<p>.+)$")


def _pred(text: str) -> Pred | None:
    m = _PRED.match(text)
    if m is None:
        return None
    if m["adj"]:
        return Pred(bool(m["bneg"]), adj=m["adj"])
    verb = m["verb"]
    return Pred(bool(m["dneg"]), verb=_THIRD.get(verb, verb), obj=m["obj"])


def _atom(text: str, var_ok: bool) -> Atom | None:
    m = _SUBJ.match(text)
    if m is None:
        return None
    s = re.sub(r"^The ", "the ", m["s"])
    if s in ("something", "someone", "it", "they"):
        if not var_ok:
            return None
        s = VAR
    p = _pred(m["p"])
    return None if p is None else Atom(s, p)


def parse_sentence(s: str):
    """("fact", Atom) | ("rule", conditions, conclusion) | None for a sentence of another form."""
    body = s.rstrip(".")
    m = re.match(r"^(All )?([A-Za-z][a-z]*(?:, [a-z]+)*) (things|people) are( not)? ([a-z]+)$", body)
    if m:
        conds = [Atom(VAR, Pred(False, adj=a)) for a in m[2].lower().split(", ")]
        return "rule", conds, Atom(VAR, Pred(bool(m[4]), adj=m[5]))
    m = re.match(r"^If (.+) then (.+)$", body)
    if m:
        conds = []
        for part in m[1].split(" and "):
            a = _atom(part, True)
            if a is None and conds:  # "something is round and smart": an elided subject
                p = _pred(f"is {part}") if re.fullmatch(r"(?:not )?[a-z]+", part) else None
                a = None if p is None else Atom(conds[-1].subj, p)
            if a is None:
                return None
            conds.append(a)
        concl = _atom(m[2], True)
        if concl is None or (concl.subj == VAR and all(c.subj != VAR for c in conds)):
            return None
        return "rule", conds, concl
    a = _atom(body, False)
    return None if a is None else ("fact", a)


# ---- rendering --------------------------------------------------------------------------------------

def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _not(rng: random.Random, aux: str) -> str:
    """"is not" / "isn't", "does not" / "doesn't", "are not" / "aren't", "do not" / "don't"."""
    return f"{aux}n't" if rng.random() < 0.5 else f"{aux} not"


def _vp(rng: random.Random, p: Pred, plural: bool) -> str:
    """The predicate with a subject of that number."""
    if p.adj is not None:
        be = "are" if plural else "is"
        return f"{_not(rng, be)} {p.adj}" if p.neg else f"{be} {p.adj}"
    if p.neg:
        return f"{_not(rng, 'do' if plural else 'does')} {p.verb} {p.obj}"
    return f"{p.verb if plural else VERBS[p.verb]} {p.obj}"


def _fact(rng: random.Random, a: Atom) -> str:
    return f"{_cap(a.subj)} {_vp(rng, a.pred, False)}."


def _var_np(rng: random.Random) -> tuple[str, str, bool]:
    """(first mention, pronoun, plural pronoun?) of the rule's variable in an "If" sentence."""
    return rng.choice([("something", "it", False), ("someone", "they", True), ("something", "they", True),
                       ("someone", "it", False), ("a person", "they", True), ("a thing", "it", False)])


def _if_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    first, pron, plural = _var_np(rng)
    parts, seen = [], False
    for i, c in enumerate(conds):
        if c.subj != VAR:
            parts.append(f"{c.subj} {_vp(rng, c.pred, False)}")
            continue
        prev = conds[i - 1] if i else None
        if seen and c.pred.adj is not None and prev is not None and prev.subj == VAR and prev.pred.adj is not None \
                and rng.random() < 0.5:  # "something is round and not smart": the subject elided
            parts.append(f"not {c.pred.adj}" if c.pred.neg else c.pred.adj)
            continue
        subj, pl = (pron, plural) if seen else (first, False)
        parts.append(f"{subj} {_vp(rng, c.pred, pl)}")
        seen = True
    subj, pl = (pron, plural) if concl.subj == VAR else (concl.subj, False)
    return f"If {' and '.join(parts)} then {subj} {_vp(rng, concl.pred, pl)}."


def _adj_list(rng: random.Random, adjs: list[str], before_noun: bool = False) -> str:
    """"red, cold" (before a noun only), "red and cold", "big, red and cold"."""
    if len(adjs) == 1:
        return adjs[0]
    forms = [" and ".join(adjs), ", ".join(adjs[:-1]) + " and " + adjs[-1]]
    return rng.choice(forms + [", ".join(adjs)] if before_noun else forms)


def _relative(rng: random.Random, conds: list[Atom], plural: bool) -> str:
    """"that is round and sees the dog" (every condition about the variable)."""
    parts = []
    for c in conds:
        parts.append(_vp(rng, c.pred, plural))
    if all(c.pred.adj is not None and not c.pred.neg for c in conds) and rng.random() < 0.5:
        return f"{'are' if plural else 'is'} {_adj_list(rng, [c.pred.adj for c in conds])}"
    return " and ".join(parts)


def _generic_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str | None:
    """A rule whose conditions are all about the variable, in a generic form, or None."""
    if any(c.subj != VAR for c in conds) or concl.subj != VAR:
        return None
    adjs_only = all(c.pred.adj is not None and not c.pred.neg for c in conds)
    forms = []
    if adjs_only:
        adjs = _adj_list(rng, [c.pred.adj for c in conds], before_noun=True)
        kind = rng.choice(["things", "people"])
        single = {"things": "thing", "people": "person"}[kind]
        forms += [f"{_cap(adjs)} {kind} {_vp(rng, concl.pred, True)}.",
                  f"All {adjs} {kind} {_vp(rng, concl.pred, True)}.",
                  f"{rng.choice(['Every', 'Each', 'Any'])} {adjs} {single} {_vp(rng, concl.pred, False)}."]
    head = rng.choice(["Anything that", "Everything that", "Anyone who", "Everyone that", "Anybody who"])
    forms.append(f"{head} {_relative(rng, conds, False)} {_vp(rng, concl.pred, False)}.")
    head = rng.choice(["Things that", "People who", "All things that", "All people that"])
    forms.append(f"{head} {_relative(rng, conds, True)} {_vp(rng, concl.pred, True)}.")
    return rng.choice(forms)


def paraphrase_sentence(rng: random.Random, s: str) -> str:
    parsed = parse_sentence(s)
    if parsed is None:
        return s
    if parsed[0] == "fact":
        return _fact(rng, parsed[1])
    _, conds, concl = parsed
    generic = _generic_rule(rng, conds, concl) if rng.random() < 0.7 else None
    return generic or _if_rule(rng, conds, concl)


def _merge_facts(rng: random.Random, sentences: list[str]) -> list[str]:
    """Facts merged the way people write them: one subject with several predicates ("Bob is big,
    red and kind.", "The cat eats the dog and is red."), several subjects of one predicate ("Bob and
    Dave are red.", "The cat and the cow chase the mouse.").  For the second the facts are first
    grouped by predicate (a theory's order means nothing: open world, no time)."""
    parsed = [parse_sentence(s) for s in sentences]
    facts = [p[1] for p in parsed if p is not None and p[0] == "fact"]
    rest = [s for s, p in zip(sentences, parsed) if p is None or p[0] != "fact"]
    by_pred = rng.random() < 0.5
    if by_pred:
        order = {}
        for a in facts:
            order.setdefault(a.pred, len(order))
        facts = sorted(facts, key=lambda a: order[a.pred])
    out: list[str] = []
    i = 0
    while i < len(facts):
        j = i + 1
        key = (lambda x: x.pred) if by_pred else (lambda x: x.subj)
        while j < len(facts) and key(facts[j]) == key(facts[i]) and j - i < 4:
            j += 1
        group = facts[i:j]
        if len(group) == 1 or rng.random() < 0.3:
            out.extend(_fact(rng, a) for a in group)
        elif by_pred:
            subs = [_cap(a.subj) if k == 0 else a.subj for k, a in enumerate(group)]
            joined = " and ".join(subs) if len(subs) == 2 else ", ".join(subs[:-1]) + " and " + subs[-1]
            out.append(f"{joined} {_vp(rng, group[0].pred, True)}.")
        elif all(a.pred.adj is not None and not a.pred.neg for a in group):
            out.append(f"{_cap(group[0].subj)} is {_adj_list(rng, [a.pred.adj for a in group])}.")
        else:
            out.append(f"{_cap(group[0].subj)} {' and '.join(_vp(rng, a.pred, False) for a in group)}.")
        i = j
    return out + [paraphrase_sentence(rng, s) for s in rest]


def split_sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if s]


# ---- style "crowd": the way people rewrite such theories (ProofWriter's ParaRules is of this kind;
# these sentences are our own) ------------------------------------------------------------------------

def _also(rng: random.Random, p: Pred, plural: bool, adv: str = "also") -> str:
    """The predicate with an adverb that adds nothing: "is also red", "always chase the dog" (never
    with a negation: "is not red")."""
    if p.neg or rng.random() < 0.3:
        return _vp(rng, p, plural)
    if p.adj is not None:
        return f"{'are' if plural else 'is'} {adv} {p.adj}"
    return f"{adv} {p.verb if plural else VERBS[p.verb]} {p.obj}"


def _animal(subj: str) -> str:
    """The noun a "type + attributes" fact names its subject by ("The bear is a big, red animal.")."""
    return "animal" if subj.startswith("the ") else "person"


def _crowd_facts(rng: random.Random, facts: list[Atom]) -> list[str]:
    """Facts of one subject: "The bear is a big, red animal.", "The bear is big. It is also red.",
    "The squirrel is neither big nor red.", "The mouse likes the cat and chases the dog."."""
    subj = facts[0].subj
    pos = [a.pred.adj for a in facts if a.pred.adj is not None and not a.pred.neg]
    neg = [a.pred.adj for a in facts if a.pred.adj is not None and a.pred.neg]
    rels = [a.pred for a in facts if a.pred.verb is not None]
    out: list[str] = []
    if len(pos) >= 2 and rng.random() < 0.5:
        out.append(f"{_cap(subj)} is a {_adj_list(rng, pos, before_noun=True)} {_animal(subj)}.")
    elif len(pos) >= 2:
        pron = "It" if subj.startswith("the ") else rng.choice(["He", "She"])
        out.append(f"{_cap(subj)} is {pos[0]}. {pron} is also {_adj_list(rng, pos[1:])}.")
    elif pos:
        out.append(f"{_cap(subj)} is {pos[0]}.")
    while len(neg) >= 2:
        out.append(f"{_cap(subj)} is neither {neg.pop(0)} nor {neg.pop(0)}.")
    out.extend(f"{_cap(subj)} {_vp(rng, Pred(True, adj=a), False)}." for a in neg)
    if rels:
        out.append(f"{_cap(subj)} {' and '.join(_vp(rng, p, False) for p in rels)}.")
    return out


def _crowd_shared(rng: random.Random, pred: Pred, subjects: list[str]) -> str:
    """One predicate of several subjects: "The cat and the dog are both red.", "… both chase the mouse."."""
    subs = [_cap(x) if k == 0 else x for k, x in enumerate(subjects)]
    joined = " and ".join(subs) if len(subs) == 2 else ", ".join(subs[:-1]) + " and " + subs[-1]
    adv = "both" if len(subs) == 2 else "all"
    if pred.neg or adv == "all":
        return f"{joined} {_vp(rng, pred, True)}."
    return f"{joined} {_also(rng, pred, True, adv)}."


def _if_comma(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    """"If a person is cold, they are also kind." (no "then")."""
    pron, plural = rng.choice([("they", True), ("it", False)])
    return (f"If {rng.choice(['a person', 'someone', 'something'])} {_relative(rng, conds, False)}, "
            f"{pron} {_also(rng, concl.pred, plural)}.")


def _crowd_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    """"Someone who is young and rough is also green.", "Round, big people are always blue.",
    "If a person is cold, they are also kind.", "Nice people who are also big are red.",
    "Things that are blue are not cold.", "If the cat is big and the dog chases the cat, the cat is also red."."""
    if any(c.subj != VAR for c in conds) or concl.subj != VAR:
        first, pron, plural = _var_np(rng)
        parts, seen = [], False
        for c in conds:
            subj, pl = (c.subj, False) if c.subj != VAR else ((pron, plural) if seen else (first, False))
            seen = seen or c.subj == VAR
            parts.append(f"{subj} {_vp(rng, c.pred, pl)}")
        subj, pl = (concl.subj, False) if concl.subj != VAR else (pron, plural)
        return f"If {' and '.join(parts)}, {subj} {_also(rng, concl.pred, pl)}."
    adjs = [c.pred.adj for c in conds if c.pred.adj is not None and not c.pred.neg]
    forms = [
        lambda: f"{rng.choice(['Someone who', 'Something that', 'A person who', 'Anyone who'])} "
                f"{_relative(rng, conds, False)} {_also(rng, concl.pred, False)}.",
        lambda: _if_comma(rng, conds, concl),
        lambda: f"{rng.choice(['Things that', 'People who', 'People that'])} {_relative(rng, conds, True)} "
                f"{_also(rng, concl.pred, True, rng.choice(['also', 'always']))}.",
    ]
    if len(adjs) == len(conds):
        forms.append(lambda: f"{_cap(_adj_list(rng, adjs, before_noun=True))} {rng.choice(['people', 'things'])} "
                             f"{_also(rng, concl.pred, True, 'always')}.")
        if len(adjs) >= 2:
            forms.append(lambda: f"{_cap(adjs[0])} {rng.choice(['people', 'things'])} "
                                 f"{rng.choice(['who', 'that'])} are also {_adj_list(rng, adjs[1:])} "
                                 f"{_vp(rng, concl.pred, True)}.")
    return rng.choice(forms)()


def _crowd_question(rng: random.Random, claim: str) -> str:
    """"Is it true that the bear is red?", "Is the bear not red?", "Does the bear like the cat?"."""
    parsed = parse_sentence(claim)
    if parsed is None or parsed[0] != "fact":
        return claim
    a = parsed[1]
    if rng.random() < 0.5:
        return f"Is it true that {a.subj} {_vp(rng, a.pred, False)}?"
    p = a.pred
    if p.adj is not None:
        return f"Is {a.subj} {'not ' if p.neg else ''}{p.adj}?"
    return f"Does {a.subj} {'not ' if p.neg else ''}{p.verb} {p.obj}?"


def _crowd_context(rng: random.Random, sentences: list[str]) -> list[str]:
    parsed = [parse_sentence(s) for s in sentences]
    facts = [p[1] for p in parsed if p is not None and p[0] == "fact"]
    out: list[str] = []
    if rng.random() < 0.5:  # several subjects of one predicate
        by_pred: dict = {}
        for a in facts:
            by_pred.setdefault(a.pred, []).append(a.subj)
        for pred, subs in by_pred.items():
            out.append(_crowd_shared(rng, pred, subs) if len(subs) > 1 else _fact(rng, Atom(subs[0], pred)))
    else:  # one subject, several predicates
        by_subj: dict = {}
        for a in facts:
            by_subj.setdefault(a.subj, []).append(a)
        for group in by_subj.values():
            out.extend(_crowd_facts(rng, group))
    for s, p in zip(sentences, parsed):
        if p is None:
            out.append(s)
        elif p[0] == "rule":
            out.append(_crowd_rule(rng, p[1], p[2]))
    return out


# ---- style "formal": passives ("The dog is chased by the cat."), "It is not the case that …" for
# negated attributes, "Only big things are red." for one-adjective rules, and a comparative the
# theory's rules never use ("The bear is bigger than the cat.").  Meaning kept; the reader reads
# each exactly or refuses it (then the answer may be Unknown, never another).

_PARTICIPLE = {"chase": "chased", "eat": "eaten", "like": "liked", "need": "needed", "see": "seen", "visit": "visited"}


def _formal_fact(rng: random.Random, a: Atom) -> str:
    p = a.pred
    if p.verb is not None and rng.random() < 0.6:
        be = "is not" if p.neg else "is"
        return f"{_cap(p.obj)} {be} {_PARTICIPLE[p.verb]} by {a.subj}."
    if p.adj is not None and p.neg and rng.random() < 0.6:
        return f"It is not the case that {a.subj} is {p.adj}."
    if p.adj is not None and not p.neg and rng.random() < 0.2:
        return f"It is not the case that {a.subj} is not {p.adj}."
    return _fact(rng, a)


def _formal_context(rng: random.Random, sentences: list[str]) -> list[str]:
    out: list[str] = []
    ents: list[str] = []
    for s in sentences:
        p = parse_sentence(s)
        if p is None:
            out.append(s)
        elif p[0] == "fact":
            ents.append(p[1].subj)
            out.append(_formal_fact(rng, p[1]))
        else:
            _, conds, concl = p
            if (len(conds) == 1 and conds[0].subj == VAR and concl.subj == VAR and conds[0].pred.adj
                    and concl.pred.adj and not conds[0].pred.neg and not concl.pred.neg and rng.random() < 0.6):
                out.append(f"Only {concl.pred.adj} things are {conds[0].pred.adj}.")
            else:
                out.append(paraphrase_sentence(rng, s))
    ents = sorted(set(ents))
    if len(ents) >= 2:
        x, y = rng.sample(ents, 2)
        out.insert(rng.randrange(len(out) + 1), f"{_cap(x)} is {rng.choice(['bigger', 'older', 'smaller'])} than {y}.")
    return out


def _formal_claim(rng: random.Random, claim: str) -> str:
    parsed = parse_sentence(claim)
    if parsed is None or parsed[0] != "fact" or parsed[1].pred.verb is None:
        return claim
    a = parsed[1]
    be = "is not" if a.pred.neg else "is"
    return f"{_cap(a.pred.obj)} {be} {_PARTICIPLE[a.pred.verb]} by {a.subj}."


# ---- style "loose": the conclusion first ("Something is big if it is red."), "if" without "then",
# "when", "whoever", "anything red", adjectives side by side ("Big red things …"), "those who", "which",
# "never", "It is false that …", "but", sentence connectives ("Furthermore, …").  Meaning kept.

_COLOURS = {"blue", "green", "red", "white"}


def _loose_pred(rng: random.Random, p: Pred, plural: bool) -> str:
    """The predicate, a denial sometimes with "never" ("is never red", "never chases the dog"), an
    adjective sometimes with an intensifier ("is rather big") or its aspect ("is red in color")."""
    if p.neg and rng.random() < 0.4:
        if p.adj is not None:
            return f"{'are' if plural else 'is'} never {p.adj}"
        return f"never {p.verb if plural else VERBS[p.verb]} {p.obj}"
    if p.adj is not None and not p.neg and rng.random() < 0.2:
        if p.adj in _COLOURS and rng.random() < 0.5:
            return f"{'are' if plural else 'is'} {p.adj} in {rng.choice(['color', 'colour'])}"
        return f"{'are' if plural else 'is'} {rng.choice(['rather', 'fairly', 'quite', 'very', 'also quite'])} {p.adj}"
    return _vp(rng, p, plural)


def _loose_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    var_only = all(c.subj == VAR for c in conds) and concl.subj == VAR
    adjs = [c.pred.adj for c in conds if c.pred.adj is not None and not c.pred.neg]
    first, pron, plural = rng.choice([("something", "it", False), ("someone", "they", True)])

    def clauses(named: bool) -> str:
        """The conditions; ``named``: the variable was already named (by the conclusion, first), so
        every mention is the pronoun."""
        parts, seen = [], named
        for c in conds:
            if c.subj != VAR:
                parts.append(f"{c.subj} {_vp(rng, c.pred, False)}")
            else:
                parts.append(f"{pron} {_vp(rng, c.pred, plural)}" if seen else f"{first} {_vp(rng, c.pred, False)}")
                seen = True
        return rng.choice([" and ", ", and "]).join(parts) if len(parts) > 1 else parts[0]

    def conclusion(subj_first: bool) -> str:
        if concl.subj != VAR:
            return f"{concl.subj} {_loose_pred(rng, concl.pred, False)}"
        return f"{first if subj_first else pron} {_loose_pred(rng, concl.pred, plural and not subj_first)}"

    forms = [lambda: f"{_cap(conclusion(True))} if {clauses(concl.subj == VAR)}.",
             lambda: f"{rng.choice(['When', 'Whenever'])} {clauses(False)}, {conclusion(False)}.",
             lambda: f"{rng.choice(['Provided that', 'Assuming', 'As long as'])} {clauses(False)}, {conclusion(False)}.",
             lambda: f"{_cap(clauses(False))} only if {conclusion(False)}."]  # "A only if B": if A then B
    if len(conds) == 1 and conds[0].pred.neg:  # "… unless it is green": one denied condition, affirmed
        c = conds[0]
        affirmed = Pred(False, c.pred.adj, c.pred.verb, c.pred.obj)

        def unless() -> str:
            if c.subj == VAR and concl.subj != VAR:  # the variable is named first: "Unless something …, the cow …"
                return f"Unless {first} {_vp(rng, affirmed, False)}, {conclusion(False)}."
            subj, pl = (pron, plural) if c.subj == VAR else (c.subj, False)
            head = _cap(conclusion(True))
            return f"{head} unless {subj} {_vp(rng, affirmed, pl)}."
        forms.append(unless)
    if concl.subj == VAR:  # "If something is red it is big.": only a pronoun may open the conclusion
        forms.append(lambda: f"If {clauses(False)} {conclusion(False)}.")

        def kinds_first() -> str:  # "Things are big if they are red.": every mention after is "they"
            parts = [f"{c.subj} {_vp(rng, c.pred, False)}" if c.subj != VAR else f"they {_vp(rng, c.pred, True)}"
                     for c in conds]
            return (f"{rng.choice(['Things', 'People'])} {_loose_pred(rng, concl.pred, True)} if "
                    f"{' and '.join(parts)}.")
        forms.append(kinds_first)
    if var_only and len(conds) >= 2 and conds[0].pred.adj and not conds[0].pred.neg:
        def typed_first() -> str:  # "If a big thing is young then it is red.": the first condition in the noun phrase
            noun, pr, pl = rng.choice([("thing", "it", False), ("person", "they", True)])
            rest = [_vp(rng, conds[1].pred, False)] + [f"{pr} {_vp(rng, c.pred, pl)}" for c in conds[2:]]
            subj = rng.choice([pr, "the " + noun])
            return (f"If a {conds[0].pred.adj} {noun} {' and '.join(rest)} then "
                    f"{subj} {_loose_pred(rng, concl.pred, subj == 'they')}.")
        forms.append(typed_first)
    if var_only:
        forms.append(lambda: f"{rng.choice(['Whoever', 'Whatever'])} {_relative(rng, conds, False)} "
                             f"{_loose_pred(rng, concl.pred, False)}.")
        forms.append(lambda: f"{rng.choice(['Those who', 'Things which', 'People which'])} "
                             f"{_relative(rng, conds, True)} {_loose_pred(rng, concl.pred, True)}.")
        if len(adjs) == len(conds):
            forms.append(lambda: f"{rng.choice(['Anything', 'Anyone', 'Everything'])} {_adj_list(rng, adjs)} "
                                 f"{_loose_pred(rng, concl.pred, False)}.")
            forms.append(lambda: f"A {' '.join(adjs)} {rng.choice(['person', 'thing'])} "
                                 f"{_loose_pred(rng, concl.pred, False)}.")
            if len(adjs) >= 2:
                forms.append(lambda: f"{rng.choice(['', 'All the '])}{' '.join(adjs)} things "
                                     f"{_loose_pred(rng, concl.pred, True)}.".capitalize())
    return rng.choice(forms)()


def _loose_fact(rng: random.Random, a: Atom) -> str:
    lead = rng.choice(["Furthermore, ", "Also, ", "Moreover, "]) if rng.random() < 0.15 else ""
    subj = a.subj if lead else _cap(a.subj)
    if a.pred.neg and rng.random() < 0.3:
        return f"{lead}It is {rng.choice(['false', 'not true'])} that {a.subj} {_vp(rng, Pred(False, a.pred.adj, a.pred.verb, a.pred.obj), False)}."
    return f"{lead}{subj} {_loose_pred(rng, a.pred, False)}."


def _loose_context(rng: random.Random, sentences: list[str]) -> list[str]:
    out: list[str] = []
    parsed = [parse_sentence(s) for s in sentences]
    k = 0
    while k < len(sentences):
        p = parsed[k]
        nxt = parsed[k + 1] if k + 1 < len(parsed) else None
        if p is None:
            out.append(sentences[k])
        elif p[0] == "rule":
            out.append(_loose_rule(rng, p[1], p[2]))
        elif (nxt is not None and nxt[0] == "fact" and nxt[1].subj == p[1].subj and p[1].pred.adj and nxt[1].pred.adj
              and not p[1].pred.neg and nxt[1].pred.neg and rng.random() < 0.7):
            out.append(f"{_cap(p[1].subj)} is {p[1].pred.adj} but not {nxt[1].pred.adj}.")  # "… kind but not nice."
            k += 1
        elif (nxt is not None and nxt[0] == "fact" and p[1].pred.verb and not p[1].pred.neg and p[1].pred.obj == nxt[1].subj
              and nxt[1].pred.adj and not nxt[1].pred.neg and rng.random() < 0.7):
            # "The bear visits the cat. The cat is red." -> "The bear visits the cat, which is red."
            out.append(f"{_loose_fact(rng, p[1])[:-1]}, {rng.choice(['which', 'who'])} is {nxt[1].pred.adj}.")
            k += 1
        else:
            out.append(_loose_fact(rng, p[1]))
        k += 1
    return out


def _loose_claim(rng: random.Random, claim: str) -> str:
    parsed = parse_sentence(claim)
    if parsed is None or parsed[0] != "fact":
        return claim
    return _cap(_loose_fact(rng, parsed[1]).removeprefix("Furthermore, ").removeprefix("Also, ").removeprefix("Moreover, "))


# ---- style "joined": rules with one conclusion joined by "or" ("If something is red or big then it is
# kind.", "Red or big things are kind."), facts of one predicate joined ("The cat is big and so is the
# dog.", "…, as is …", "Neither the cat nor the dog is red.", "… and neither is …"), verbs sharing their
# object ("The cat likes and chases the dog."), the progressive ("is chasing"), "someone who is",
# "If people are …", "Nothing red is …", semicolons.  Meaning kept.

def _single(p) -> Atom | None:
    """The one condition of a rule over the variable with one condition about it, or None."""
    if p is None or p[0] != "rule" or len(p[1]) != 1 or p[1][0].subj != VAR or p[2].subj != VAR:
        return None
    return p[1][0]


def _or_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    """Single-condition rules with one conclusion, as one sentence with "or"."""
    adjs = [c.pred.adj for c in conds if c.pred.adj is not None and not c.pred.neg]
    joined = lambda parts: (" or ".join(parts) if len(parts) == 2 or rng.random() < 0.5
                            else ", ".join(parts[:-1]) + " or " + parts[-1])
    forms = [lambda: f"If something {joined([_vp(rng, c.pred, False) for c in conds])} then it {_vp(rng, concl.pred, False)}."]
    if all(c.pred.adj is not None for c in conds) and not conds[0].pred.neg:
        forms.append(lambda: f"If something is {joined([('not ' if c.pred.neg else '') + c.pred.adj for c in conds])} "
                             f"then it {_vp(rng, concl.pred, False)}.")
        forms.append(lambda: f"Things that are {joined([('not ' if c.pred.neg else '') + c.pred.adj for c in conds])} "
                             f"{_vp(rng, concl.pred, True)}.")
    if len(adjs) == len(conds):
        forms.append(lambda: f"{_cap(joined(adjs))} things {_vp(rng, concl.pred, True)}.")
        forms.append(lambda: f"Anything {joined(adjs)} {_vp(rng, concl.pred, False)}.")
    return rng.choice(forms)()


def _joined_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    if len(conds) == 1 and conds[0].pred == concl.pred and conds[0].subj != concl.subj and concl.subj != VAR:
        # "If the cat is big, so is the dog.", "… then the dog is too", "If … is not big, neither is …"
        c, p = conds[0], concl.pred
        aux = "is" if p.adj is not None else "does"
        first = "something" if c.subj == VAR else c.subj
        if p.neg:
            return rng.choice([f"If {first} {_vp(rng, p, False)}, neither {aux} {concl.subj}.",
                               f"If {first} {_vp(rng, p, False)}, then {concl.subj} {aux} not either."])
        return rng.choice([f"If {first} {_vp(rng, p, False)}, so {aux} {concl.subj}.",
                           f"If {first} {_vp(rng, p, False)} then {concl.subj} {aux} too."])
    if all(c.subj == VAR for c in conds) and concl.subj == VAR and rng.random() < 0.5:
        adjs = [c.pred.adj for c in conds if c.pred.adj is not None and not c.pred.neg]
        if len(conds) == 1 and len(adjs) == 1 and concl.pred.adj is not None and concl.pred.neg and rng.random() < 0.5:
            return f"Nothing {adjs[0]} is {concl.pred.adj}."
        if len(adjs) == len(conds) and concl.pred.adj is not None and rng.random() < 0.5:
            return f"{_cap(' and '.join(adjs))} things {_vp(rng, concl.pred, True)}."
        return f"If people {' and '.join(_vp(rng, c.pred, True) for c in conds)} then they {_vp(rng, concl.pred, True)}."
    parts, seen = [], False
    for c in conds:  # "something" first, "it" after: two "something"s would be two things
        parts.append(f"{c.subj if c.subj != VAR else 'it' if seen else 'something'} {_vp(rng, c.pred, False)}")
        seen = seen or c.subj == VAR
    return paraphrase_sentence(rng, " ".join(["If", " and ".join(parts), "then",
                                              f"{'it' if concl.subj == VAR else concl.subj} {_vp(rng, concl.pred, False)}."]))


_ING = {"chase": "chasing", "eat": "eating", "like": "liking", "need": "needing", "see": "seeing", "visit": "visiting"}


def _progressive(p: Pred) -> str:
    return f"is {'not ' if p.neg else ''}{_ING[p.verb]} {p.obj}"


def _joined_fact(rng: random.Random, a: Atom) -> str:
    r = rng.random()
    if a.pred.verb is not None and r < 0.3:
        return f"{_cap(a.subj)} {_progressive(a.pred)}."
    if a.pred.adj is not None and not a.pred.neg and r < 0.3:
        return f"{_cap(a.subj)} is {rng.choice(['someone who', 'something that'])} is {a.pred.adj}."
    return _fact(rng, a)


def _joined_pair(rng: random.Random, a: Atom, b: Atom) -> str | None:
    """Two facts as one sentence, or None."""
    if a.pred == b.pred and a.subj != b.subj:
        p = a.pred
        aux = "is" if p.adj is not None else "does"
        first = _fact(rng, a)[:-1]
        if p.neg:
            r = rng.random()
            if r < 0.4:
                what = f"is {p.adj}" if p.adj is not None else f"{VERBS[p.verb]} {p.obj}"
                return f"Neither {a.subj} nor {b.subj} {what}."
            if r < 0.7:  # the second sentence repeats the first: "Nor is the dog.", "The dog isn't either."
                return rng.choice([f"{first}. {rng.choice(['Neither', 'Nor'])} {aux} {b.subj}.",
                                   f"{first}. {_cap(b.subj)} {aux}n't either."])
            return f"{first} and neither {aux} {b.subj}."
        return rng.choice([f"{first} and so {aux} {b.subj}.", f"{first}, and so {aux} {b.subj}.",
                           f"{first}, as {aux} {b.subj}.", f"{first}. So {aux} {b.subj}.",
                           f"{first}. {_cap(b.subj)} {aux} {rng.choice(['too', 'as well'])}.",
                           f"{first}, and {b.subj} {aux} too."])
    if a.subj == b.subj and a.pred.adj and b.pred.adj and not a.pred.neg and rng.random() < 0.5:
        return f"{_cap(a.subj)}, {'which' if a.subj.startswith('the ') else 'who'} is {a.pred.adj}, {_vp(rng, b.pred, False)}."
    if (a.subj == b.subj and a.pred.verb and b.pred.verb and a.pred.obj == b.pred.obj and a.pred.verb != b.pred.verb
            and not a.pred.neg and not b.pred.neg):
        return f"{_cap(a.subj)} {VERBS[a.pred.verb]} and {VERBS[b.pred.verb]} {a.pred.obj}."
    if a.subj == b.subj and a.pred.verb and b.pred.verb and a.pred.neg and b.pred.neg:
        if a.pred.obj == b.pred.obj and a.pred.verb != b.pred.verb:  # "… neither likes nor chases the dog."
            return f"{_cap(a.subj)} neither {VERBS[a.pred.verb]} nor {VERBS[b.pred.verb]} {a.pred.obj}."
        if a.pred.verb == b.pred.verb and a.pred.obj != b.pred.obj:
            return rng.choice([f"{_cap(a.subj)} {VERBS[a.pred.verb]} neither {a.pred.obj} nor {b.pred.obj}.",
                               f"{_cap(a.subj)} {_not(rng, 'does')} {a.pred.verb} {a.pred.obj} or {b.pred.obj}."])
    return None


def _joined_context(rng: random.Random, sentences: list[str]) -> list[str]:
    parsed = [parse_sentence(s) for s in sentences]
    facts = [p[1] for p in parsed if p is not None and p[0] == "fact"]
    singles: dict = {}
    for k, p in enumerate(parsed):
        c = _single(p)
        if c is not None:
            singles.setdefault(p[2], []).append(k)
    key = (lambda a: (a.pred.neg, a.pred.adj or "", a.pred.verb or "", a.pred.obj or "")) if rng.random() < 0.5 \
        else (lambda a: a.subj)
    facts.sort(key=key)  # neighbours: one predicate, or one subject
    out: list[str] = []
    done: set = set()
    for concl, ks in singles.items():  # rules with one conclusion and one condition each: "or"
        if len(ks) > 1 and rng.random() < 0.8:
            out.append(_or_rule(rng, [parsed[k][1][0] for k in ks], concl))
            done.update(ks)
    k = 0
    while k < len(facts):  # neighbours in a theory ordered by predicate or by subject
        pair = _joined_pair(rng, facts[k], facts[k + 1]) if k + 1 < len(facts) and rng.random() < 0.7 else None
        if pair is not None:
            out.append(pair)
            k += 2
        else:
            out.append(_joined_fact(rng, facts[k]))
            k += 1
    generic = re.compile(r"^(All )?[A-Z][a-z]*( (or|and) [a-z]+)* things are (not )?[a-z]+\.$")
    for k, (s, p) in enumerate(zip(sentences, parsed)):
        if k in done or (p is not None and p[0] == "fact"):
            continue
        x = s if p is None else _joined_rule(rng, p[1], p[2])
        if out and generic.match(out[-1]) and generic.match(x) and rng.random() < 0.7:
            # two generic statements as one; "all" opens the second ("Big things are cold, and smart and
            # furry things are big." could also be "cold, and smart" and "furry things": refused as ambiguous)
            out[-1] = f"{out[-1][:-1]}, and all {x.removeprefix('All ')[0].lower()}{x.removeprefix('All ')[1:]}"
        else:
            out.append(x)
    rng.shuffle(out)  # open world, no time: a theory's order means nothing
    joined: list[str] = []
    for x in out:  # a semicolon between two sentences, sometimes
        if joined and rng.random() < 0.15 and not joined[-1].endswith(";") and "; " not in joined[-1]:
            joined[-1] = joined[-1][:-1] + "; " + x[0].lower() + x[1:] if x.startswith("The ") else joined[-1]
            if joined[-1].endswith(x[1:]):
                continue
        joined.append(x)
    return joined


def _joined_claim(rng: random.Random, claim: str) -> str:
    parsed = parse_sentence(claim)
    if parsed is None or parsed[0] != "fact" or parsed[1].pred.verb is None or rng.random() < 0.5:
        return claim
    return f"{_cap(parsed[1].subj)} {_progressive(parsed[1].pred)}."


# ---- the "reduced" style ------------------------------------------------------------------------
# Relatives without "that … is" ("Anyone chasing the mouse is big.", "Things not seeing the cat …"),
# "non-" for a denied adjective ("Non-red things are big.", "The bear is non-red."), "ones", "every
# single", anaphors in a conclusion ("that person", "the thing", "he or she"), "must" and adverbs that
# only insist ("is definitely big").  Meaning kept.

def _reduced_cond(p: Pred) -> str:
    """A condition on the rule's variable as a reduced relative: "chasing the mouse", "not red"."""
    if p.adj is not None:
        return f"{'not ' if p.neg else ''}{p.adj}"
    return f"{'not ' if p.neg else ''}{_ING[p.verb]} {p.obj}"


def _reduced_concl(rng: random.Random, p: Pred, plural: bool) -> str:
    """The conclusion, with "must", "definitely" or "certainly" sometimes."""
    r = rng.random()
    if r < 0.25:
        return f"must {'not ' if p.neg else ''}{'be ' + p.adj if p.adj is not None else p.verb + ' ' + p.obj}"
    if r < 0.45 and p.adj is not None:
        be = "are" if plural else "is"
        return f"{be} {rng.choice(['definitely', 'certainly'])} {'not ' if p.neg else ''}{p.adj}"
    return _vp(rng, p, plural)


def _reduced_rule(rng: random.Random, conds: list[Atom], concl: Atom) -> str:
    if all(c.subj == VAR for c in conds) and concl.subj == VAR:
        adjs = all(c.pred.adj is not None for c in conds)
        if adjs and rng.random() < 0.5:  # "Non-red, cold ones are …", "Every single non-red thing is …"
            words = [("non-" if c.pred.neg else "") + c.pred.adj for c in conds]
            kind = rng.choice(["things", "ones", "people"])
            if rng.random() < 0.5:
                return f"{_cap(_adj_list(rng, words, before_noun=True))} {kind} {_reduced_concl(rng, concl.pred, True)}."
            single = {"things": "thing", "ones": "one", "people": "person"}[kind]
            return f"Every single {_adj_list(rng, words, before_noun=True)} {single} {_reduced_concl(rng, concl.pred, False)}."
        if any(c.pred.verb is not None for c in conds) and not any(c.pred.adj is not None for c in conds):
            head, plural = rng.choice([("Anyone", False), ("Anything", False), ("Things", True), ("People", True)])
            rel = " and ".join(_reduced_cond(c.pred) for c in conds)
            return f"{head} {rel} {_reduced_concl(rng, concl.pred, plural)}."
    first, pron, plural = rng.choice([("someone", "that person", False), ("something", "that thing", False),
                                      ("something", "the thing", False), ("someone", "he or she", False),
                                      ("a person", "this person", False)])
    parts, seen = [], False
    for c in conds:
        if c.subj != VAR:
            parts.append(f"{c.subj} {_vp(rng, c.pred, False)}")
            continue
        parts.append(f"{'it' if seen and first == 'something' else 'they' if seen else first} "
                     f"{_vp(rng, c.pred, seen and first != 'something')}")
        seen = True
    subj = pron if concl.subj == VAR else concl.subj
    return f"If {' and '.join(parts)}, then {subj} {_reduced_concl(rng, concl.pred, plural)}."


def _reduced_fact(rng: random.Random, a: Atom) -> str:
    if a.pred.adj is not None and a.pred.neg and rng.random() < 0.5:
        return f"{_cap(a.subj)} is non-{a.pred.adj}."
    if a.pred.adj is not None and rng.random() < 0.2:
        return f"{_cap(a.subj)} is {rng.choice(['certainly', 'definitely'])} {'not ' if a.pred.neg else ''}{a.pred.adj}."
    return _fact(rng, a)


def _reduced_context(rng: random.Random, sentences: list[str]) -> list[str]:
    out = []
    for s in sentences:
        p = parse_sentence(s)
        out.append(s if p is None else _reduced_fact(rng, p[1]) if p[0] == "fact" else _reduced_rule(rng, p[1], p[2]))
    return out


STYLES = ("plain", "crowd", "formal", "loose", "joined", "reduced")


def paraphrase_record(rec: dict, seed: int = 0, style: str = "plain") -> dict:
    """The record with its context and question's statement rephrased (same id, options, answer).
    ``plain``: determiners, relative clauses, contractions, merged facts; ``crowd``: the forms above
    (type + attributes, "both", "neither … nor", pronouns across sentences, "is also", "If …, they
    …", "Is it true that …?"); ``formal``: passives, "it is not the case that", "only", comparatives;
    ``loose``: the conclusion first, "if" without "then", "when", "whoever", "never", "it is false that" …;
    ``joined``: clauses and rules joined ("or", "so is", "neither … nor"); ``reduced``: reduced
    relatives, "non-", "ones", "every single", "that person", "must", "definitely"."""
    rng = random.Random(f"{seed}:{rec['id']}" if style == "plain" else f"{style}:{seed}:{rec['id']}")
    head, sep, claim = rec["question"].rpartition("? ")
    if style == "crowd":
        context = " ".join(_crowd_context(rng, split_sentences(rec["context"])))
        return {**rec, "context": context, "question": _crowd_question(rng, claim.strip())}
    if style == "loose":
        context = " ".join(_loose_context(rng, split_sentences(rec["context"])))
        return {**rec, "context": context, "question": f"{head}{sep}{_loose_claim(rng, claim.strip())}"}
    if style == "joined":
        context = " ".join(_joined_context(rng, split_sentences(rec["context"])))
        return {**rec, "context": context, "question": f"{head}{sep}{_joined_claim(rng, claim.strip())}"}
    if style == "reduced":
        context = " ".join(_reduced_context(rng, split_sentences(rec["context"])))
        asked = parse_sentence(claim.strip())
        claim = _reduced_fact(rng, asked[1]) if asked is not None and asked[0] == "fact" else claim.strip()
        return {**rec, "context": context, "question": f"{head}{sep}{claim}"}
    if style == "formal":
        context = " ".join(_formal_context(rng, split_sentences(rec["context"])))
        return {**rec, "context": context, "question": f"{head}{sep}{_formal_claim(rng, claim.strip())}"}
    context = " ".join(_merge_facts(rng, split_sentences(rec["context"])))
    claim = paraphrase_sentence(rng, claim.strip())
    return {**rec, "context": context, "question": f"{head}{sep}{claim}"}


def paraphrase_records(records: list[dict], seed: int = 0, style: str = "plain") -> list[dict]:
    return [paraphrase_record(r, seed, style) for r in records]
