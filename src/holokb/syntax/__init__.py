"""The rule language: grammar loading, AST, parser and syntax diagnostics → :class:`Module`.

>>> from holokb.syntax import parse_rules
>>> parse_rules("rule r: <http://x/p>(?a) :- <http://x/q>(?a).").rules[0].name
'r'

The parser (and lark) load on first use of a parsing name, so that the AST nodes in
:mod:`holokb.syntax.ast`, which the analysis IR shares, import without the parser.
"""
from __future__ import annotations

import importlib
from typing import Any

from .module import Module

_LAZY = {
    "SYNTAX_ERRORS": ".diagnostics", "TOKEN_WORDS": ".diagnostics", "describe_expected": ".diagnostics",
    "MAX_SYNTAX_ERRORS": ".parser", "parse_file": ".parser", "parse_rules": ".parser",
    "STANDARD_PREFIXES": ".transform",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "MAX_SYNTAX_ERRORS", "Module", "STANDARD_PREFIXES", "SYNTAX_ERRORS", "TOKEN_WORDS",
    "describe_expected", "parse_file", "parse_rules",
]
