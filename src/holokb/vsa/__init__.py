"""holokb.vsa: vector-symbolic intuition — deterministic codebooks, HRR and binary HDC, top-k search.

Intuition only proposes where reasoning should start; nothing here proves anything.  Depends on
``holokb.core`` only.

>>> from holokb.core import IRI
>>> space = VectorSpace(VSAConfig.default("hdc", dim=1024))
>>> ex = "http://example.org/"
>>> _ = space.add([FactRecord("f1", IRI(ex + "a"), IRI(ex + "uses"), IRI(ex + "lib")),
...                FactRecord("f2", IRI(ex + "b"), IRI(ex + "uses"), IRI(ex + "lib")),
...                FactRecord("f3", IRI(ex + "c"), IRI(ex + "likes"), IRI(ex + "tea"))])
>>> space.similar_entities(IRI(ex + "a"), 1)[0].key
'http://example.org/b'
"""
from .codebook import Codebook, Symbol
from .config import Representation, VSAConfig
from .encode import FactEncoder
from .index import Neighbour, VectorIndex
from .space import FactRecord, UnknownEntityError, VectorSpace
from .store import CachedVectors, load, save

__all__ = [
    "CachedVectors", "Codebook", "FactEncoder", "FactRecord", "Neighbour", "Representation", "Symbol",
    "UnknownEntityError", "VSAConfig", "VectorIndex", "VectorSpace", "load", "save",
]
