"""The typer application every command module registers on."""
from __future__ import annotations

import typer

app = typer.Typer(
    help="holokb: a bitemporal knowledge base with provenance, rules, SHACL, SMT and SPARQL.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
)

