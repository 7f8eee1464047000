"""The kinship vocabulary (rules/kinship.toml): kinship words → base relation and gender, the words
that mark a couple or a birth, possessive pronouns, and the answer words."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...resources import data_dir
from ..english.lexicon import lemma


@dataclass(frozen=True, slots=True)
class KinWord:
    """A kinship word: its base relation (``ex:parent``…, read "<holder> is <possessor>'s <word>"), the
    holder's gender it states ("" when it states none), and whether the word was plural."""

    relation: str
    gender: str
    plural: bool = False


class KinshipLexicon:
    """rules/kinship.toml, loaded once per path."""

    def __init__(self, path: str | Path | None = None):
        data = _load(str(path or data_dir("rules") / "kinship.toml"))
        self.data = data
        self.ns: str = data.get("namespace", "http://example.org/")
        self.words: dict[str, tuple[str, str]] = {k: (v[0], v[1]) for k, v in data["words"].items()}
        self.pronouns: dict[str, str] = data.get("pronouns", {})
        self.subject_pronouns: dict[str, str] = data.get("subject_pronouns", {})
        self.object_pronouns: dict[str, str] = data.get("object_pronouns", {})
        self.control_object: frozenset[str] = frozenset(data.get("control", {}).get("object", ()))
        self.control_bare: frozenset[str] = frozenset(data.get("control", {}).get("bare", ()))
        self.control_mandative: frozenset[str] = frozenset(data.get("control", {}).get("mandative", ()))
        self.title_before: frozenset[str] = frozenset(data.get("titles", {}).get("before", ()))
        self.plural_pronouns: frozenset[str] = frozenset(data.get("plural", {}).get("possessive", ()))
        self.answers: dict[str, dict[str, str]] = data["answers"]
        ev = data.get("events", {})
        self.couple_words: frozenset[str] = frozenset(ev.get("couple", ()))
        self.marry_words: frozenset[str] = frozenset(ev.get("marry", ()))
        self.birth_words: frozenset[str] = frozenset(ev.get("birth", ()))
        self.group_words: frozenset[str] = frozenset(ev.get("group", ()))
        self.union_words: frozenset[str] = frozenset(ev.get("union", ()))
        self.person_nouns: dict[str, str] = dict(data.get("person_nouns", {}))
        self.other_kin: frozenset[str] = frozenset(data.get("other_kin", {}).get("modifiers", ()))
        self.negators: frozenset[str] = frozenset(data.get("negation", {}).get("words", ()))

    def iri(self, relation: str) -> str:
        return relation.replace("ex:", self.ns, 1) if relation.startswith("ex:") else relation

    def kin(self, word: str) -> KinWord | None:
        """The kinship word ``word`` names (plurals by morphology: "daughters", "children")."""
        return _kin(self, word.lower())


@lru_cache(maxsize=4)
def _load(path: str) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


@lru_cache(maxsize=8192)
def _kin(lex: KinshipLexicon, low: str) -> KinWord | None:
    hit = lex.words.get(low)
    if hit is not None:
        return KinWord(hit[0], hit[1])
    if "-" in low and low.endswith("s"):  # "sons-in-law"
        head, _, rest = low.partition("-")
        hit = lex.words.get(lemma(head, "NOUN") + "-" + rest)
    elif low.endswith(("s", "ren")):
        hit = lex.words.get(lemma(low, "NOUN"))
    return KinWord(hit[0], hit[1], True) if hit is not None else None


@lru_cache(maxsize=4)
def kinship_lexicon(path: str | None = None) -> KinshipLexicon:
    return KinshipLexicon(path)
