"""Engine logprob entries as plain data: the two wire shapes read and checked.

Why a module of its own: :mod:`tito.core.logprobs` resolves entries into OpenAI's shape on the
per-token and per-candidate path; reading the engine's entries (either shape, any value a request
may send) into :class:`EngineLogprob` and checking their numbers is this, shared by both of its
paths. The integer shape's usual entries (plain dicts of ints and floats) are read inline there,
with these checks for anything else.

**Input** is normalized to :class:`EngineLogprob` (:func:`from_engine_dict` for the integer shape,
:func:`from_legacy_dict` for the legacy shape, :func:`from_wire` for either); :func:`tito.core.logprobs.resolve`
accepts those or the raw dicts. A legacy ``"token_id:N"`` becomes ``token_id=N``; any other legacy
string is kept as ``token`` and passes through unchanged (its bytes are its UTF-8).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tito.errors import BadRequest

__all__ = [
    "LOGPROB_FLOOR",
    "EngineLogprob",
    "check_float",
    "check_int",
    "clamp",
    "entry_id",
    "from_engine_dict",
    "from_legacy_dict",
    "from_wire",
    "parse_token_placeholder",
]

#: What a non-finite logprob is reported as (vLLM's clamp).
LOGPROB_FLOOR = -9999.0

_PLACEHOLDER = re.compile(r"token_id:(\d+)")


@dataclass(frozen=True, slots=True)
class EngineLogprob:
    """One engine logprob entry in either wire shape, as plain data.

    Exactly one of ``token_id`` (integer shape, or a parsed legacy ``"token_id:N"``) and
    ``token`` (a legacy string that is not a placeholder) is normally set. ``top`` holds the
    candidates in engine order (their own ``top`` is empty).
    """

    token_id: int | None
    token: str | None
    logprob: float
    top: tuple[EngineLogprob, ...] = field(default_factory=tuple)
    rank: int | None = None


def parse_token_placeholder(token: str) -> int | None:
    """The id in a legacy ``"token_id:N"`` placeholder, or None for any other string."""
    match = _PLACEHOLDER.fullmatch(token)
    return int(match.group(1)) if match else None


def from_engine_dict(entry: Mapping[str, Any]) -> EngineLogprob:
    """An entry of the integer shape: ``{token_id, logprob, rank?, top_logprobs?}``."""
    return EngineLogprob(
        token_id=check_int(entry.get("token_id"), "token_id"),
        token=None,
        logprob=check_float(entry.get("logprob"), "logprob"),
        top=tuple(from_engine_dict(t) for t in entry.get("top_logprobs") or ()),
        rank=entry.get("rank"),
    )


def from_legacy_dict(entry: Mapping[str, Any]) -> EngineLogprob:
    """An entry of the legacy shape: ``{token, logprob, bytes?, top_logprobs?}``.

    ``"token_id:N"`` is parsed into an id; any other string is kept as text.
    """
    token = entry.get("token")
    if not isinstance(token, str):
        raise BadRequest("logprobs entry has no token string", param="logprobs.content.token")
    token_id = parse_token_placeholder(token)
    return EngineLogprob(
        token_id=token_id,
        token=None if token_id is not None else token,
        logprob=check_float(entry.get("logprob"), "logprob"),
        top=tuple(from_legacy_dict(t) for t in entry.get("top_logprobs") or ()),
    )


def from_wire(entry: EngineLogprob | Mapping[str, Any]) -> EngineLogprob:
    """Either dict shape (told apart by ``token_id`` vs ``token``), or an entry unchanged."""
    if isinstance(entry, EngineLogprob):
        return entry
    if not isinstance(entry, Mapping):
        raise BadRequest("logprobs entry must be an object", param="logprobs.content")
    if "token_id" in entry:
        return from_engine_dict(entry)
    if "token" in entry:
        return from_legacy_dict(entry)
    raise BadRequest("logprobs entry has neither token_id nor token", param="logprobs.content")


def entry_id(entry: EngineLogprob) -> int | None:
    """The id an entry names (a parsed ``"token_id:N"`` too), None for a plain token string."""
    if entry.token_id is not None:
        return entry.token_id
    if entry.token is not None:
        return parse_token_placeholder(entry.token)
    return None


def clamp(value: float) -> float:
    """A non-finite logprob as vLLM reports it (``LOGPROB_FLOOR``)."""
    return value if math.isfinite(value) else LOGPROB_FLOOR


def check_int(value: Any, name: str) -> int:
    """``value`` when it is an integer (not a bool), else a 400 naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"logprobs entry {name} must be an integer", param=f"logprobs.{name}")
    return value


def check_float(value: Any, name: str) -> float:
    """``value`` as a float when it is a number, ``LOGPROB_FLOOR`` for null, else a 400."""
    if value is None:
        return LOGPROB_FLOOR  # vLLM: no engine entry for the sampled token
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRequest(f"logprobs entry {name} must be a number", param=f"logprobs.{name}")
    return float(value)
