"""Where the shipped data folders (grammar/, rules/, shapes/, kb/) live.

In a wheel they are package data under ``holokb/_data``; in a source checkout (editable
install) they are the repository's top-level folders.  Nothing else should guess paths.
"""
from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent
_NAMES = ("grammar", "rules", "shapes", "kb")


def data_dir(name: str) -> Path:
    """The folder ``name`` (one of grammar, rules, shapes, kb).

    >>> data_dir("grammar").name
    'grammar'
    """
    if name not in _NAMES:
        raise ValueError(f"unknown data folder {name!r}; expected one of {_NAMES}")
    packaged = _PKG / "_data" / name
    if packaged.is_dir():
        return packaged
    checkout = _PKG.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"holokb data folder {name!r} not found (looked in {packaged} and {checkout})")
