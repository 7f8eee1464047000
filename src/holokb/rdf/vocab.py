"""The hk: annotation vocabulary (design.md §5) and how node IRIs are minted.

Node IRIs are content-derived so that exports are deterministic:

* fact nodes      ``hk:fact/<sha256 fact id>``
* qualifier nodes ``hk:fact/<sha256>/q/<percent-encoded key>``
* span nodes      ``hk:span/<percent-encoded span id>`` (the ledger's id, or the one it would assign)
* evidence nodes  ``hk:evidence/<sha256 of the evidence's canonical encoding>``

The vocabulary's labels, comments and SHACL shapes live in ``shapes/holokb.ttl``.
"""
from __future__ import annotations

import hashlib
import struct
from urllib.parse import quote, unquote

from ..core import HK, RDF_TYPE, XSD, Evidence, SpanRecord
from ..core.terms import IRI, SKOLEM_PREFIX

FACT_NS = HK + "fact/"
SPAN_NS = HK + "span/"
EVIDENCE_NS = HK + "evidence/"
CLOSURE_NS = HK + "closure/"

#: The named graph holding the plain triples visible at ``AsOf.latest()``.
CURRENT = IRI(HK + "current")

TYPE = IRI(RDF_TYPE)
FACT_CLASS = IRI(HK + "Fact")
SPAN_CLASS = IRI(HK + "Span")
EVIDENCE_CLASS = IRI(HK + "Evidence")
QUALIFIER_CLASS = IRI(HK + "Qualifier")

SUBJECT = IRI(HK + "subject")
PREDICATE = IRI(HK + "predicate")
OBJECT = IRI(HK + "object")
POLARITY = IRI(HK + "polarity")
QUALIFIER = IRI(HK + "qualifier")
KEY = IRI(HK + "key")
VALUE = IRI(HK + "value")
AFFIRM = IRI(HK + "affirm")
NEGATE = IRI(HK + "negate")

FACT = IRI(HK + "fact")
VALID_FROM = IRI(HK + "validFrom")
VALID_TO = IRI(HK + "validTo")
SYSTEM_FROM = IRI(HK + "systemFrom")
SYSTEM_TO = IRI(HK + "systemTo")
EVIDENCE = IRI(HK + "evidence")

DOCUMENT = IRI(HK + "document")
CHUNK = IRI(HK + "chunk")
CHAR_START = IRI(HK + "charStart")
CHAR_END = IRI(HK + "charEnd")
EXTRACTOR = IRI(HK + "extractor")
EXTRACTOR_VERSION = IRI(HK + "extractorVersion")
CONFIDENCE = IRI(HK + "confidence")
ASSERTED_AT = IRI(HK + "assertedAt")
RETRACTED_AT = IRI(HK + "retractedAt")
SUPERSEDES = IRI(HK + "supersedes")

# Stored closures (derived facts with their proofs), written by a full export.
CLOSURE_CLASS = IRI(HK + "Closure")
DERIVED_CLASS = IRI(HK + "Derived")
BINDING_CLASS = IRI(HK + "Binding")
RULE_SET = IRI(HK + "ruleSet")
RULE_TEXT = IRI(HK + "ruleText")
AS_OF_SYSTEM = IRI(HK + "asOfSystem")
AS_OF_VALID = IRI(HK + "asOfValid")
COMPUTED_AT = IRI(HK + "computedAt")
TRUNCATED = IRI(HK + "truncated")
LIMIT_HIT = IRI(HK + "limitHit")
STALE = IRI(HK + "stale")
CLOSURE = IRI(HK + "closure")
RULE = IRI(HK + "rule")
DEPTH = IRI(HK + "depth")
SCORE = IRI(HK + "score")
NEGATED = IRI(HK + "negated")
#: Positional properties ``hk:arg0``, ``hk:premise0``, ``hk:binding0``, … (order is meaning).
POSITIONAL = ("arg", "premise", "binding")


def positional(name: str, i: int) -> IRI:
    """``hk:<name><i>``, e.g. ``hk:arg0``."""
    return IRI(f"{HK}{name}{i}")

#: Properties that turn a named graph into a provenance block (see holokb.rdf.mapping).
BLOCK_PROPERTIES = frozenset(
    {DOCUMENT, CHUNK, CHAR_START, CHAR_END, EXTRACTOR, EXTRACTOR_VERSION, CONFIDENCE, ASSERTED_AT,
     VALID_FROM, VALID_TO, RETRACTED_AT, SUPERSEDES}
)

#: Every term of the hk: vocabulary a file may write (shapes/holokb.ttl describes them).
VOCABULARY = frozenset(
    {FACT_CLASS, SPAN_CLASS, EVIDENCE_CLASS, QUALIFIER_CLASS, SUBJECT, PREDICATE, OBJECT, POLARITY, QUALIFIER,
     KEY, VALUE, AFFIRM, NEGATE, FACT, VALID_FROM, VALID_TO, SYSTEM_FROM, SYSTEM_TO, EVIDENCE, CURRENT,
     CLOSURE_CLASS, DERIVED_CLASS, BINDING_CLASS, RULE_SET, RULE_TEXT, AS_OF_SYSTEM, AS_OF_VALID, COMPUTED_AT,
     TRUNCATED, LIMIT_HIT, STALE, CLOSURE, RULE, DEPTH, SCORE, NEGATED}
    | BLOCK_PROPERTIES
)
_VOCABULARY_IRIS = frozenset(t.value for t in VOCABULARY)

XSD_LONG = XSD + "long"
XSD_INTEGER = XSD + "integer"
XSD_DOUBLE = XSD + "double"

#: Prefixes the serializer uses (fixed, so output never depends on the input's prefixes).
PREFIXES: tuple[tuple[str, str], ...] = (
    ("hk", HK),
    ("hkf", FACT_NS),
    ("hks", SPAN_NS),
    ("hke", EVIDENCE_NS),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("xsd", XSD),
)


def fact_iri(fact_id: str) -> IRI:
    """The fact node for a fact id."""
    return IRI(FACT_NS + fact_id)


def qualifier_iri(fact_id: str, key: str) -> IRI:
    """The qualifier node of one qualifier key of a fact."""
    return IRI(f"{FACT_NS}{fact_id}/q/{quote(key, safe='')}")


def span_iri(span_id: str) -> IRI:
    """The span node for a ledger span id."""
    return IRI(SPAN_NS + quote(span_id, safe=""))


def span_id_of(iri: IRI) -> str:
    """Inverse of :func:`span_iri`."""
    return unquote(iri.value[len(SPAN_NS):])


def derived_span_id(rec: SpanRecord) -> str:
    """The id the ledger would give this span (SHA-256 of fact id, valid interval, system_from)."""
    from ..ledger.views import span_hash  # the ledger owns span identity

    return span_hash(bytes.fromhex(rec.fact.id), rec.valid, rec.system.start).hex()


def evidence_id(ev: Evidence) -> str:
    """SHA-256 hex of a tagged encoding of every evidence field."""
    h = hashlib.sha256(b"HKE1")
    for v in (ev.document, ev.chunk, ev.char_start, ev.char_end, ev.extractor, ev.extractor_version,
              float(ev.confidence), ev.asserted_at):
        s = "" if v is None else repr(v)
        h.update(b"\x00" if v is None else b"\x01")
        h.update(struct.pack("<I", len(s.encode())) + s.encode())
    return h.hexdigest()


def evidence_iri(ev: Evidence) -> IRI:
    """The evidence node for a piece of evidence (equal evidence ⇒ one node)."""
    return IRI(EVIDENCE_NS + evidence_id(ev))


def unknown_hk_term(value: str) -> bool:
    """True for an IRI in the hk: namespace that is neither a vocabulary term nor a node the ledger
    mints (fact, span, evidence nodes and skolemised blank nodes)."""
    if not value.startswith(HK) or value in _VOCABULARY_IRIS:
        return False
    if value.startswith((FACT_NS, SPAN_NS, EVIDENCE_NS, CLOSURE_NS, SKOLEM_PREFIX)):
        return False
    local = value[len(HK):]
    return not any(local.startswith(n) and local[len(n):].isdigit() and local[len(n):].isascii()
                   for n in POSITIONAL)


def closest_hk_term(value: str) -> str | None:
    """The vocabulary term nearest to an unknown hk: IRI (for "did you mean"), as ``hk:name``."""
    import difflib

    names = sorted(v[len(HK):] for v in _VOCABULARY_IRIS)
    hit = difflib.get_close_matches(value[len(HK):], names, n=1, cutoff=0.6)
    return f"hk:{hit[0]}" if hit else None


def is_holokb_node(iri: IRI) -> bool:
    """True for fact, qualifier, span and evidence nodes (the reified history)."""
    v = iri.value
    return v.startswith((FACT_NS, SPAN_NS, EVIDENCE_NS, CLOSURE_NS))


def skolem_label(iri: IRI) -> str:
    """The blank node label a skolem IRI de-skolemises to on plain export."""
    return "b" + iri.value[len(SKOLEM_PREFIX):]
