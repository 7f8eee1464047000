"""Analysis: safety, stratification, vocabulary/arity/type checks → :class:`Program`."""
from .program import (
    Aggregate, Assignment, Atom, BinOp, BodyItem, Comparison, Const, Expr, Negation, PredicateDecl,
    Program, Query, Rule, RuleTerm, Var,
)

__all__ = [
    "Aggregate", "Assignment", "Atom", "BinOp", "BodyItem", "Comparison", "Const", "Expr",
    "Negation", "PredicateDecl", "Program", "Query", "Rule", "RuleTerm", "Var",
]
