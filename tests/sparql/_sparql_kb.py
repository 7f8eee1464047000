"""The small KB the SPARQL tests share: data with history (an assertion, a retraction, a named
graph, a blank node, a provenance block) and one rule.  (Not named conftest: names must be unique
across the test tree.)"""
from __future__ import annotations

from holokb.core import IRI

EX = "http://example.org/"
T1 = 1_700_000_000_000  # load time
T2 = T1 + 86_400_000  # retraction time
DATA = f"""@prefix ex: <{EX}> .
@prefix hk: <https://w3id.org/holokb/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:alice ex:uses ex:editor ; rdfs:label "Alice" ; ex:age 41 .
ex:bob ex:uses ex:shell ; rdfs:label "Bob"@en .
ex:editor ex:provides ex:search .
ex:shell ex:provides ex:scripting .
ex:alice ex:knows [ rdfs:label "someone" ] .
ex:hr {{ ex:alice ex:worksFor ex:acme . }}
ex:doc7 {{ ex:carol ex:uses ex:shell . }}
ex:doc7 hk:document "doc-7.txt" ; hk:confidence 0.8 .
"""
RULES = f"""@prefix ex: <{EX}> .
rule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).
"""


def ex(local: str) -> IRI:
    return IRI(EX + local)
