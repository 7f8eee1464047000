"""holokb.rdf: the RDF face — import (Turtle, TriG, N-Triples, N-Quads, RDF/XML, gzip), the
reified ledger mapping (design.md §5) and deterministic TriG export.

>>> from holokb.rdf import parse_records, ledger_trig
>>> recs = parse_records('<http://ex.org/a> <http://ex.org/p> "x" .', "TURTLE", at=0)
>>> recs[0].fact.object.lexical, recs[0].system.start
('x', 0)
"""
# The names load on first use (PEP 562): ``holokb load`` reads files without the exporter.
from typing import TYPE_CHECKING

from .._lazy import lazy_names

_WHERE = {
    **dict.fromkeys(["export_ledger", "export_snapshot", "ledger_trig", "serialize_trig", "snapshot_trig"], "export"),
    **dict.fromkeys(["apply_changes", "import_file", "parse_records", "read_changes", "read_records",
                     "store_records"], "load"),
    **dict.fromkeys(["GRAPH_QUALIFIER", "Changes", "Retraction", "changes_from_quads", "records_from_quads",
                     "reified_quads", "time_literal"], "mapping"),
    **dict.fromkeys(["FORMATS", "Source", "detect_format", "parse_quads", "parse_text", "read_source"], "parse"),
    **dict.fromkeys(["CURRENT"], "vocab"),
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

if TYPE_CHECKING:
    from .export import export_ledger, export_snapshot, ledger_trig, serialize_trig, snapshot_trig
    from .load import apply_changes, import_file, parse_records, read_changes, read_records, store_records
    from .mapping import GRAPH_QUALIFIER, Changes, Retraction, changes_from_quads, records_from_quads, reified_quads, time_literal
    from .parse import FORMATS, Source, detect_format, parse_quads, parse_text, read_source
    from .vocab import CURRENT

__all__ = [
    "CURRENT", "Changes", "FORMATS", "GRAPH_QUALIFIER", "Retraction", "Source", "apply_changes",
    "changes_from_quads", "detect_format", "export_ledger", "read_changes",
    "export_snapshot", "import_file", "ledger_trig", "parse_quads", "parse_records", "parse_text",
    "read_records", "read_source", "records_from_quads", "reified_quads", "serialize_trig",
    "snapshot_trig", "store_records", "time_literal",
]
