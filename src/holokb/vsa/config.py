"""What a vector index is made of: representation, dimension, seed, and the search kernel's knobs."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from ..core.errors import InvalidValueError


class Representation(enum.Enum):
    """HRR: real vectors, circular-convolution binding, cosine.  HDC: bits, XOR binding, Hamming."""

    HRR = "hrr"
    HDC = "hdc"

    @staticmethod
    def parse(text: str) -> "Representation":
        try:
            return Representation(text.strip().lower())
        except ValueError:
            raise InvalidValueError(f"unknown vector representation {text!r}; expected hrr or hdc") from None


@dataclass(frozen=True, slots=True)
class VSAConfig:
    """Configuration of a vector index.

    ``dim`` is the vector length (bits for HDC, a multiple of 64); ``seed`` salts every codebook
    vector, so the same terms and seed give the same vectors on any machine.  Search is exact below
    ``exact_below`` items; above it a ``sketch_bits``-bit sketch (the first bits of an HDC vector,
    the signs of the first coordinates of an HRR vector) picks ``candidates`` items by Hamming
    distance and those are ranked exactly (recall measured in ``bench/vsa.py``).  Queries that carry their
    components are answered exactly from the facts sharing them (structure.py) when that needs at
    most ``structural_budget`` facts scored; otherwise by the sketch kernel.

    >>> VSAConfig.default(Representation.HDC).dim
    10048
    """

    representation: Representation = Representation.HDC
    dim: int = 10048
    seed: int = 0
    sketch_bits: int = 1024
    candidates: int = 16384
    exact_below: int = 50_000
    structural_budget: int = 65536

    def __post_init__(self) -> None:
        if not isinstance(self.representation, Representation):
            raise InvalidValueError(f"representation must be a Representation, got {self.representation!r}")
        if self.dim < 64 or self.dim % 64 or self.dim > 1 << 20:
            raise InvalidValueError(f"vector dimension must be a multiple of 64 in [64, 2^20], got {self.dim}")
        if not -(2**63) <= self.seed < 2**63:
            raise InvalidValueError(f"seed must fit in 64 bits, got {self.seed}")
        if self.sketch_bits < 64 or self.sketch_bits % 64 or self.sketch_bits > min(self.dim, 4096):
            raise InvalidValueError(f"sketch_bits must be a multiple of 64 in [64, min(dim, 4096)], "
                                    f"got {self.sketch_bits}")
        if self.candidates < 1 or self.exact_below < 0 or self.structural_budget < 0:
            raise InvalidValueError("candidates must be >= 1, exact_below and structural_budget >= 0")

    @staticmethod
    def default(representation: Representation | str, *, dim: int | None = None, seed: int = 0) -> "VSAConfig":
        """The defaults per representation: 10,048-bit HDC (157 words), 1,024-d HRR, and the sketch settings
        chosen in ``bench/vsa.py`` at 1M facts (recall@10 >= 0.95 on both query kinds): 1,024 sketch bits with
        16,384 candidates for HDC, 4,096 for HRR (its sign sketch separates better)."""
        rep = Representation.parse(representation) if isinstance(representation, str) else representation
        if dim is None:
            dim = 10048 if rep is Representation.HDC else 1024
        return VSAConfig(rep, dim, seed, sketch_bits=min(1024, dim),
                         candidates=16384 if rep is Representation.HDC else 4096,
                         structural_budget=65536 if rep is Representation.HDC else 32768)

    def tag(self) -> str:
        """A short name for files: ``hdc-10048-s0``."""
        return f"{self.representation.value}-{self.dim}-s{self.seed}"
