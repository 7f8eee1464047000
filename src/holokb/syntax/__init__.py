"""The rule language: grammar loading, parser and syntax diagnostics → :class:`Module`.

>>> from holokb.syntax import parse_rules
>>> parse_rules("rule r: <http://x/p>(?a) :- <http://x/q>(?a).").rules[0].name
'r'
"""
from .diagnostics import SYNTAX_ERRORS, TOKEN_WORDS, describe_expected
from .module import Module
from .parser import MAX_SYNTAX_ERRORS, parse_file, parse_rules
from .transform import STANDARD_PREFIXES

__all__ = [
    "MAX_SYNTAX_ERRORS", "Module", "STANDARD_PREFIXES", "SYNTAX_ERRORS", "TOKEN_WORDS",
    "describe_expected", "parse_file", "parse_rules",
]
