"""Syntax diagnostics: lark's ``UnexpectedInput`` → :class:`Diagnostic` with a code and a hint.

``SYNTAX_ERRORS`` is a table of (code, message, hint, bad examples) in the manner of lark's
``load_grammar.GRAMMAR_ERRORS``: an error is classified by finding the example that fails in the
same parser state (``UnexpectedInput.match_examples``), and the table doubles as the test.
"""
from __future__ import annotations

import functools
import re
from typing import Callable

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..core.errors import Diagnostic, Location

#: (code, message, hint, examples that must be classified as this code)
SYNTAX_ERRORS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("HK120", "missing '.' at the end of the statement", "every statement ends with '.'", (
        "ex:p(ex:a)\nex:q(ex:b).",
        "rule r: ex:p(?x) :- ex:q(?x)\nrule s: ex:p(?x) :- ex:r(?x).",
        "@prefix ex: <http://example.org/>\nex:p(ex:a).",
        "?- ex:p(?x)\n?- ex:q(?x).",
    )),
    ("HK121", "expected ':-' between the head and the body of the rule",
     "write head :- body, e.g. rule r: ex:p(?x) :- ex:q(?x).", (
        "rule r: ex:p(?x) ex:q(?x).",
        "rule r: ex:p(?x), ex:q(?x).",
        "constraint c: false ex:q(?x).",
        "rule r: ex:p(?x) <- ex:q(?x).",
    )),
    ("HK122", "a rule needs a name", "write: rule my_rule: head :- body.", (
        "rule: ex:p(?x) :- ex:q(?x).",
        "rule [weight 0.5]: ex:p(?x) :- ex:q(?x).",
        "constraint: false :- ex:q(?x).",
    )),
    ("HK123", "expected ':' after the rule name", "write: rule name [weight 0.9]: head :- body.", (
        "rule r ex:p(?x) :- ex:q(?x).",
        "rule r [weight 0.5] ex:p(?x) :- ex:q(?x).",
    )),
    ("HK125", "unclosed '(' in an atom", "close the argument list with ')'", (
        "rule r: ex:p(?x :- ex:q(?x).",
        "ex:p(ex:a.",
        "rule r: ex:p(?x) :- ex:q(?x, ?y.",
    )),
    ("HK127", "a rule without the 'rule' keyword", "rules need a name: rule my_rule: head :- body.", (
        "ex:p(?x) :- ex:q(?x).",
        "not ex:p(?x) :- ex:q(?x).",
    )),
    ("HK128", "the comparison is missing its right-hand side", "e.g. ?x > 3 or ?a != ?b", (
        "rule r: ex:p(?x) :- ex:q(?x), ?x > .",
        "rule r: ex:p(?x) :- ex:q(?x), ?x != , ex:r(?x).",
    )),
    ("HK129", "a vocabulary entry needs an arity", "write ex:name/2 (predicate/arity)", (
        "vocabulary: ex:p, ex:q/2.",
        "vocabulary: ex:p.",
        "vocabulary: ex:p functional.",
    )),
    ("HK130", "malformed @prefix declaration", "write: @prefix ex: <http://example.org/> .", (
        "@prefix ex <http://example.org/> .",
        "@prefix ex: http .",
        "@prefix <http://example.org/> .",
    )),
    ("HK131", "the body is empty", "a body lists at least one atom or comparison after ':-'", (
        "rule r: ex:p(ex:a) :- .",
        "?- .",
    )),
    ("HK132", "an annotation needs a name and a number", "e.g. [weight 0.95, depth 3]", (
        "rule r [weight]: ex:p(?x) :- ex:q(?x).",
        "rule r [0.5]: ex:p(?x) :- ex:q(?x).",
        "rule r [weight 0.5,]: ex:p(?x) :- ex:q(?x).",
    )),
)

#: Terminal names → words people use.
TOKEN_WORDS: dict[str, str] = {
    "_DOT": "'.'", "_COMMA": "','", "_COLON": "':'", "_LPAR": "'('", "_RPAR": "')'", "_LBRACK": "'['",
    "_RBRACK": "']'", "_IMPLIES": "':-'", "_QUERY": "'?-'", "_DTYPE": "'^^'", "SLASH": "'/'",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "CMP_OP": "a comparison (= != < <= > >=)",
    "_PREFIX": "'@prefix'", "_INCLUDE": "'@include'", "_VOCABULARY": "'vocabulary'", "_RULE": "'rule'",
    "_CONSTRAINT": "'constraint'", "_NOT": "'not'", "FUNCTIONAL": "'functional'",
    "TYPE_WORD": "a type (iri, literal, any or xsd:...)", "BOOLEAN": "true or false",
    "AGG_FUNC": "an aggregate (count, sum, mean, min, max)", "PNAME_NS": "a prefix name such as ex:",
    "PNAME": "a prefixed name such as ex:name", "IRIREF": "an IRI such as <http://example.org/x>",
    "VAR": "a variable such as ?x", "NAME": "a name", "STRING": 'a string "..."',
    "LANGTAG": "a language tag such as @en", "DURATION": "a duration such as 15 min",
    "DOUBLE": "a number", "DECIMAL": "a number", "INT": "a number", "$END": "the end of the file",
}
_TERM_TOKENS = frozenset({"VAR", "PNAME", "IRIREF", "STRING", "INT", "DECIMAL", "DOUBLE", "DURATION", "BOOLEAN"})
_BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def describe_expected(names) -> str:
    """``{'_RPAR', '_COMMA'}`` → ``"')' or ','"`` (deterministic order, constants folded)."""
    names = set(names)
    words: list[str] = []
    if len(names & _TERM_TOKENS) >= 4:
        names -= _TERM_TOKENS | {"MINUS", "_LPAR", "AGG_FUNC"}
        words.append("a term (variable, IRI or literal)")
    for w in sorted({TOKEN_WORDS.get(n, n) for n in names}):
        if w not in words:
            words.append(w)
    if not words:
        return "nothing more"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(tok) -> str:
    if tok.type == "$END":
        return "end of file"
    word = TOKEN_WORDS.get(tok.type, tok.type).split(" such as")[0].split(" ", 1)[-1]
    return f"{word} '{tok}'" if tok.type in (
        "PNAME", "VAR", "IRIREF", "NAME", "STRING") else f"'{tok}'"


def diagnose(e: UnexpectedInput, text: str, file: str | None, parse: Callable[[str], object]) -> Diagnostic:
    """One diagnostic for a lark error: code, message, location with source line, hint."""
    lines = text.splitlines()
    line = getattr(e, "line", None) or (len(lines) or 1)
    col = getattr(e, "column", None) or 1
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        line = len(lines) or 1
        col = (len(lines[-1]) + 1) if lines else 1
    source = lines[line - 1] if 0 < line <= len(lines) else None
    end = None
    expected: set[str] = set()
    if isinstance(e, UnexpectedToken):
        expected = set(e.accepts or e.expected)
        if e.token.type != "$END" and e.token.end_column is not None and e.token.end_line == line:
            end = e.token.end_column
        code, message = "HK101", f"unexpected {_describe_token(e.token)}"
    elif isinstance(e, UnexpectedCharacters):
        expected = set(e.allowed or ())
        code, message = "HK102", f"unexpected character {text[e.pos_in_stream]!r}"
    else:
        expected = set(getattr(e, "expected", ()) or ())
        code, message = "HK103", "unexpected end of file"
    pos = getattr(e, "pos_in_stream", None)
    word = _BARE_WORD.match(text, pos) if pos is not None and (
        isinstance(e, UnexpectedCharacters) or e.token.type == "NAME") else None
    if word and (expected & {"PNAME", "IRIREF", "VAR"}):
        w = word.group()
        loc = Location(file, line, col, line, col + len(w))
        if text[word.end():].lstrip(" \t").startswith("("):
            return Diagnostic("HK124", f"predicate '{w}' needs a prefix", loc,
                              f"write ex:{w}(...) and declare @prefix ex: <...> .", source_line=source)
        if "VAR" in expected:
            return Diagnostic("HK126", f"'{w}' is not a term", loc,
                              f"variables start with '?' (?{w}); IRIs need a prefix (ex:{w}) or <...>; "
                              "strings need quotes", source_line=source)
    hint = f"expected {describe_expected(expected)}" if expected else None
    label = _classify(e, parse)
    if label is not None:
        code, message, table_hint = label
        hint = f"{table_hint} (expected {describe_expected(expected)})" if expected else table_hint
        history = getattr(e, "token_history", None)
        if code == "HK120" and history:  # point where the '.' belongs, not at the next statement
            last = history[-1]
            line, col, end = last.end_line, last.end_column, None
            source = lines[line - 1] if 0 < line <= len(lines) else None
    elif code == "HK101" and e.token.type == "$END":
        code, message = "HK103", "unexpected end of file"
    return Diagnostic(code, message, Location(file, line, col, line if end else None, end), hint, source_line=source)


def _signature(e: UnexpectedInput) -> tuple | None:
    """Parser state (top of the LALR stack) and accepted terminals; stack depth is ignored so an
    example classifies errors at any statement of a file."""
    st = getattr(e, "state", None)
    if st is None:
        return None
    accepts = frozenset(getattr(e, "accepts", None) or getattr(e, "expected", None) or getattr(e, "allowed", None) or ())
    return (st.position, accepts)


@functools.lru_cache(maxsize=4)
def _example_signatures(parse: Callable[[str], object]) -> tuple[tuple[tuple | None, str | None, int], ...]:
    out = []
    for i, (_c, _m, _h, examples) in enumerate(SYNTAX_ERRORS):
        for ex in examples:
            try:
                parse(ex)
            except UnexpectedInput as ut:
                tok = getattr(ut, "token", None)
                out.append((_signature(ut), tok.type if tok is not None else None, i))
    return tuple(out)


def _classify(e: UnexpectedInput, parse: Callable[[str], object]) -> tuple[str, str, str] | None:
    sig = _signature(e)
    if sig is None:
        return None
    tok = getattr(e, "token", None)
    tok_type = tok.type if tok is not None else None
    candidate = None
    for ex_sig, ex_tok, idx in _example_signatures(parse):
        if ex_sig != sig:
            continue
        if ex_tok == tok_type:
            candidate = idx
            break
        if candidate is None:
            candidate = idx
    if candidate is None:
        return None
    code, message, hint, _ = SYNTAX_ERRORS[candidate]
    return code, message, hint
