"""Retrieval profiles: which lanes run, their RRF weights, per-lane depth, and the cut-offs.

A profile file is JSON ``{"profiles": {name: profile, ...}}``.  A profile names its lanes either
explicitly, ``"lanes": {"bm25": {"weight": 1.0, "maxItems": 50}, ...}``, or as ThinkingDB does,
``"primaryStrategies": ["bm25-lexical"], "secondaryStrategies": ["thinkingdb-symbolic"]`` (primary
lanes weigh 1.0, secondary 0.5).  Cut-offs: ``maxResults``; ``minScore`` (on the normalised fused
score, in [0, 1]); ``confidenceGapThreshold`` (stop at the first hit more than this far below the
best hit's score).  The shipped file (``profiles.json`` beside this module) has ``default`` (all
three lanes) and ``thinkingdb`` (DS025: BM25 primary, symbolic secondary, 8 results, minScore 0.12,
gap 0.25).  Unknown lanes or keys, negative or non-finite weights are errors, listed all at once.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import Diagnostic, DiagnosticError, Location
from ..core.inputs import os_error
from .types import Lane

SHIPPED = Path(__file__).with_name("profiles.json")

#: Strategy names of the DS023/DS025 configuration and the lane each means.
STRATEGY_LANES = {
    "bm25-lexical": Lane.BM25, "bm25": Lane.BM25,
    "thinkingdb-symbolic": Lane.STRUCTURED, "structured": Lane.STRUCTURED, "structured-memory": Lane.STRUCTURED,
    "vsa": Lane.VSA, "vsa-hdc": Lane.VSA, "vsa-hrr": Lane.VSA, "hdc": Lane.VSA, "hrr": Lane.VSA,
}
PRIMARY_WEIGHT = 1.0
SECONDARY_WEIGHT = 0.5

_PROFILE_KEYS = {"lanes", "primaryStrategies", "secondaryStrategies", "maxResults", "minScore",
                 "confidenceGapThreshold", "rrfK", "targetLatencyMs", "structured", "vsa", "description"}
_LANE_KEYS = {"weight", "maxItems"}
_STRUCTURED_KEYS = {"maxEntityCandidates", "maxFacts", "maxEvidenceFrames", "requireEvidenceSpan"}
_VSA_KEYS = {"representation", "dim", "seed"}


class ProfileError(DiagnosticError):
    """A retrieval profile file that cannot be used (every problem in it, as diagnostics)."""


@dataclass(frozen=True, slots=True)
class LaneSettings:
    lane: Lane
    weight: float
    max_items: int = 50


@dataclass(frozen=True, slots=True)
class StructuredOptions:
    """Seed 003 §7.1's ``StructuredMemorySearchOptions``."""

    max_entity_candidates: int = 8
    max_facts: int = 64
    max_evidence_frames: int = 16
    require_evidence_span: bool = False


@dataclass(frozen=True, slots=True)
class VSALaneOptions:
    representation: str = "hdc"
    dim: int | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class RetrievalProfile:
    """One profile: lanes with weights, cut-offs and lane options."""

    name: str
    lanes: tuple[LaneSettings, ...]
    max_results: int = 10
    min_score: float = 0.0
    confidence_gap: float | None = None
    rrf_k: int = 60
    target_latency_ms: int | None = None
    structured: StructuredOptions = field(default_factory=StructuredOptions)
    vsa: VSALaneOptions = field(default_factory=VSALaneOptions)

    def weight(self, lane: Lane) -> float:
        for s in self.lanes:
            if s.lane is lane:
                return s.weight
        return 0.0

    def settings(self, lane: Lane) -> LaneSettings | None:
        return next((s for s in self.lanes if s.lane is lane), None)


def load_profiles(path: str | Path | None = None) -> dict[str, RetrievalProfile]:
    """Every profile in a profile file (default: the shipped one)."""
    p = Path(path) if path is not None else SHIPPED
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ProfileError(f"cannot read profile file {p}", os_error(e, p, what="profile file").diagnostics) from None
    except (UnicodeDecodeError, ValueError) as e:
        line, col = (getattr(e, "lineno", 1), getattr(e, "colno", 1))
        raise ProfileError(f"{p} is not JSON", (Diagnostic("HK701", f"not JSON: {e}", Location(str(p), line, col)),)) \
            from None
    return parse_profiles(data, file=str(p))


def load_profile(name: str = "default", path: str | Path | None = None) -> RetrievalProfile:
    """The profile ``name`` from a profile file (default: the shipped one)."""
    profiles = load_profiles(path)
    if name not in profiles:
        raise ProfileError(f"no profile {name!r} in {path or SHIPPED}",
                           (Diagnostic("HK702", f"no profile named {name!r}", None,
                                       hint=f"profiles in the file: {', '.join(sorted(profiles)) or 'none'}"),))
    return profiles[name]


def parse_profiles(data: Any, *, file: str = "<profiles>") -> dict[str, RetrievalProfile]:
    """Profiles from parsed JSON; all problems are collected and raised once."""
    problems: list[Diagnostic] = []

    def bad(code: str, msg: str, hint: str | None = None) -> None:
        problems.append(Diagnostic(code, msg, Location(file, 1, 1), hint=hint))

    out: dict[str, RetrievalProfile] = {}
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), dict):
        bad("HK703", 'a profile file is an object {"profiles": {name: {...}}}')
    else:
        for name in sorted(data["profiles"]):
            prof = _profile(str(name), data["profiles"][name], bad)
            if prof is not None:
                out[str(name)] = prof
    if problems:
        raise ProfileError(f"{len(problems)} problem(s) in retrieval profile file {file}", tuple(problems))
    return out


def _profile(name: str, raw: Any, bad) -> RetrievalProfile | None:
    where = f"profile {name!r}"
    if not isinstance(raw, dict):
        bad("HK703", f"{where} must be an object")
        return None
    for k in sorted(set(raw) - _PROFILE_KEYS):
        bad("HK704", f"{where}: unknown key {k!r}", hint=f"known keys: {', '.join(sorted(_PROFILE_KEYS))}")
    lanes: dict[Lane, LaneSettings] = {}
    if "lanes" in raw:
        if not isinstance(raw["lanes"], dict):
            bad("HK703", f"{where}: lanes must be an object of lane name -> settings")
        else:
            for lname, settings in sorted(raw["lanes"].items()):
                lane = _lane(lname, where, bad)
                if lane is None:
                    continue
                s = settings if isinstance(settings, dict) else {}
                for k in sorted(set(s) - _LANE_KEYS):
                    bad("HK704", f"{where}: lane {lname!r}: unknown key {k!r}")
                w = _number(s.get("weight", 1.0), f"{where}: lane {lname!r}: weight", bad, low=0.0)
                m = _integer(s.get("maxItems", 50), f"{where}: lane {lname!r}: maxItems", bad, low=1)
                if w is not None and m is not None:
                    lanes[lane] = LaneSettings(lane, w, m)
    for key, weight in (("primaryStrategies", PRIMARY_WEIGHT), ("secondaryStrategies", SECONDARY_WEIGHT)):
        names = raw.get(key, [])
        if not isinstance(names, list):
            bad("HK703", f"{where}: {key} must be a list of strategy names")
            continue
        for sname in names:
            lane = _lane(sname, where, bad)
            if lane is not None and lane not in lanes:
                lanes[lane] = LaneSettings(lane, weight)
    named = bool(raw.get("lanes")) or bool(raw.get("primaryStrategies")) or bool(raw.get("secondaryStrategies"))
    if not named:  # (named but all invalid: those lanes were reported already)
        bad("HK705", f"{where}: no lanes", hint='give "lanes" or "primaryStrategies"')
    max_results = _integer(raw.get("maxResults", 10), f"{where}: maxResults", bad, low=1)
    min_score = _number(raw.get("minScore", 0.0), f"{where}: minScore", bad, low=0.0, high=1.0)
    gap = raw.get("confidenceGapThreshold")
    gap = None if gap is None else _number(gap, f"{where}: confidenceGapThreshold", bad, low=0.0, high=1.0)
    rrf_k = _integer(raw.get("rrfK", 60), f"{where}: rrfK", bad, low=1)
    latency = raw.get("targetLatencyMs")
    latency = None if latency is None else _integer(latency, f"{where}: targetLatencyMs", bad, low=1)
    st = raw.get("structured", {})
    st = st if isinstance(st, dict) else {}
    for k in sorted(set(st) - _STRUCTURED_KEYS):
        bad("HK704", f"{where}: structured: unknown key {k!r}")
    structured = StructuredOptions(
        _integer(st.get("maxEntityCandidates", 8), f"{where}: maxEntityCandidates", bad, low=1) or 8,
        _integer(st.get("maxFacts", 64), f"{where}: maxFacts", bad, low=1) or 64,
        _integer(st.get("maxEvidenceFrames", 16), f"{where}: maxEvidenceFrames", bad, low=1) or 16,
        bool(st.get("requireEvidenceSpan", False)))
    vs = raw.get("vsa", {})
    vs = vs if isinstance(vs, dict) else {}
    for k in sorted(set(vs) - _VSA_KEYS):
        bad("HK704", f"{where}: vsa: unknown key {k!r}")
    rep = str(vs.get("representation", "hdc")).lower()
    if rep not in ("hdc", "hrr"):
        bad("HK706", f"{where}: vsa: representation must be hdc or hrr, got {rep!r}")
    dim = vs.get("dim")
    dim = None if dim is None else _integer(dim, f"{where}: vsa: dim", bad, low=64)
    seed = _integer(vs.get("seed", 0), f"{where}: vsa: seed", bad, low=-(2**63)) or 0
    if max_results is None or min_score is None or rrf_k is None or not lanes:
        return None
    ordered = tuple(lanes[l] for l in Lane if l in lanes)
    return RetrievalProfile(name, ordered, max_results, min_score, gap, rrf_k, latency, structured,
                            VSALaneOptions(rep, dim, seed))


def _lane(text: Any, where: str, bad) -> Lane | None:
    lane = STRATEGY_LANES.get(str(text).strip().lower()) if isinstance(text, str) else None
    if lane is None:
        bad("HK706", f"{where}: unknown lane {text!r}",
            hint=f"lanes: {', '.join(sorted(STRATEGY_LANES))}")
    return lane


def _number(v: Any, what: str, bad, *, low: float, high: float | None = None) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        bad("HK707", f"{what} must be a finite number, got {v!r}")
        return None
    if v < low or (high is not None and v > high):
        rng = f"[{low}, {high}]" if high is not None else f">= {low}"
        bad("HK707", f"{what} must be {rng}, got {v!r}")
        return None
    return float(v)


def _integer(v: Any, what: str, bad, *, low: int) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int):
        bad("HK707", f"{what} must be an integer, got {v!r}")
        return None
    if v < low:
        bad("HK707", f"{what} must be >= {low}, got {v!r}")
        return None
    return v
