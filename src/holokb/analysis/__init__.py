"""Analysis: safety, stratification, vocabulary/arity/type checks → :class:`Program`.

>>> from holokb.syntax import parse_rules
>>> p = analyze(parse_rules("rule r: <http://x/p>(?a) :- <http://x/q>(?a)."))
>>> p.strata
((0,),)
"""
from .check import analyze, check_program
from .program import (
    Aggregate, Assignment, Atom, BinOp, BodyItem, Call, Comparison, Const, Expr, Negation, PredicateDecl,
    Program, Query, Rule, RuleTerm, Var,
)
from .render import render
from .sparql import to_sparql_update, to_sparql_update_strata

__all__ = [
    "Aggregate", "Assignment", "Atom", "BinOp", "BodyItem", "Call", "Comparison", "Const", "Expr",
    "Negation", "PredicateDecl", "Program", "Query", "Rule", "RuleTerm", "Var", "analyze", "check_program", "render",
    "to_sparql_update", "to_sparql_update_strata",
]
