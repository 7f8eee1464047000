"""The vocabulary's namespace strings (XSD, RDF, RDFS, OWL, holokb's own) and the IRIs built from them.

Plain strings in a module that imports nothing, so code that only needs a namespace (the SPARQL
result reader, the CLI's default prefixes) does not load :mod:`holokb.core.terms` and its term
classes; :mod:`.terms` re-exports every name.
"""
from __future__ import annotations

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
HK = "https://w3id.org/holokb/"

XSD_STRING = XSD + "string"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_BOOLEAN = XSD + "boolean"
XSD_DATETIME = XSD + "dateTime"
XSD_DATE = XSD + "date"
XSD_DURATION = XSD + "duration"
RDF_LANGSTRING = RDF + "langString"
RDF_TYPE = RDF + "type"

#: Skolem IRIs that stand for blank nodes (RDF 1.1 §3.5).
SKOLEM_PREFIX = HK + ".well-known/genid/"
