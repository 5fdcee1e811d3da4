"""Every ``TITO_*`` environment setting, validated once when the process starts.

Why: a setting read lazily and parsed leniently fails silently (a non-numeric
``TITO_STATE_TTL_SECONDS`` used to turn expiry off). :func:`check_environment` runs when an app is
built (``tito serve``, each Lambda function's init) and refuses to start, naming every bad
variable, so a misconfigured deployment fails at deploy time rather than serving wrongly.

Rules: an unset or empty variable means its default. Counts and sizes are positive integers,
durations positive numbers of seconds, flags one of ``1/0 true/false yes/no on/off``. A
``TITO_*`` name not listed here is logged as a warning (a typo is likely) but does not stop the
process. The modules that use a setting still read it themselves; this module only decides
whether the value is acceptable. A new setting is one entry of :data:`SETTINGS`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["SETTINGS", "SettingsError", "check_environment", "env_reader", "flag"]

logger = logging.getLogger("tito")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class SettingsError(ValueError):
    """One or more ``TITO_*`` variables have values tito cannot use."""


#: The mapping ``os.environ`` keeps its (encoded) variables in, and its key/value codecs
_ENV_DATA: Mapping[bytes, bytes] | None = getattr(os.environ, "_data", None)
_ENCODE: Callable[[str], bytes] | None = getattr(os.environ, "encodekey", None)
_DECODE: Callable[[bytes], str] | None = getattr(os.environ, "decodevalue", None)


def env_reader(name: str) -> Callable[[], str | None]:
    """A function reading ``os.environ.get(name)`` now (each call sees the current value).

    Why: ``os.environ.get`` raises and catches a KeyError for an unset variable, 1.5-3 us each;
    a streamed derender call read half a dozen per invocation (state secret and expiry, body
    limit, Powertools' switches), more than its core step. This reads the mapping ``os.environ``
    keeps its variables in (which ``os.environ[...] = ...`` and ``del`` update), ~20x cheaper;
    on a Python without it, ``os.environ.get`` itself. The value last read is kept with the
    encoded object it was decoded from: while the variable is not set again (which stores a new
    object) it is that object, and its text is not decoded again (the state secret is read
    twice per signed call).
    """
    if _ENV_DATA is None or _ENCODE is None or _DECODE is None:
        return lambda: os.environ.get(name)
    key, get, decode = _ENCODE(name), _ENV_DATA.get, _DECODE
    pair: tuple[Any, str | None] = (None, None)  # (the encoded value, its text), replaced whole

    def read() -> str | None:
        nonlocal pair
        value = get(key)
        if value is None:
            return None
        seen = pair  # (one read: another thread may replace it)
        if seen[0] is value:
            return seen[1]
        text = decode(value)
        pair = (value, text)
        return text

    return read


def flag(value: str | None) -> bool:
    """A boolean setting's value (unset or empty: false)."""
    return (value or "").strip().lower() in _TRUE


def _flag(value: str) -> str | None:
    return None if value.strip().lower() in _TRUE | _FALSE else "must be one of 1/0, true/false, yes/no, on/off"


def _positive_int(value: str) -> str | None:
    try:
        ok = int(value) > 0
    except ValueError:
        ok = False
    return None if ok else "must be a positive integer"


def _positive_number(value: str) -> str | None:
    try:
        number = float(value)
        ok = 0 < number < float("inf")
    except ValueError:
        ok = False
    return None if ok else "must be a positive number"


def _s3_uri(value: str) -> str | None:
    bucket = value[5:].split("/", 1)[0] if value.startswith("s3://") else ""
    return None if bucket else "must look like s3://bucket/prefix"


def _base_path(value: str) -> str | None:
    return None if value.startswith("/") else "must start with '/' (for example /dev)"


def _any(value: str) -> str | None:
    return None


def _date(value: str) -> str | None:
    import datetime

    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return "must be a date like 2026-12-01"
    return None


#: name -> check returning None (acceptable) or what is wrong with the value.
SETTINGS: dict[str, Callable[[str], str | None]] = {
    "TITO_MODELS_DIR": _any,
    "TITO_DEFAULT_MODEL": _any,
    "TITO_MODELS_S3_URI": _s3_uri,
    "TITO_MODELS_CACHE_DIR": _any,
    "TITO_MODELS_S3_MAX_BYTES": _positive_int,
    "TITO_MODELS_STRICT": _flag,
    "TITO_STATE_SECRET": _any,
    "TITO_STATE_TTL_SECONDS": _positive_int,
    "TITO_TRUST_REQUEST_CHAT_TEMPLATE": _flag,
    "TITO_MAX_BODY_BYTES": _positive_int,
    "TITO_MAX_COMPLETION_PROMPTS": _positive_int,
    "TITO_TEMPLATE_MAX_CHARS": _positive_int,
    "TITO_TEMPLATE_MAX_STEPS": _positive_int,
    "TITO_TEMPLATE_MAX_SECONDS": _positive_number,
    "TITO_TEMPLATE_MAX_SOURCE_CHARS": _positive_int,
    "TITO_API_BASE_PATH": _base_path,
    "TITO_HARMONY_START_DATE": _date,  # gpt-oss's "Current date:" (service.render)
}


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Raise :class:`SettingsError` listing every ``TITO_*`` variable with a bad value."""
    env = os.environ if environ is None else environ
    problems = []
    for name, value in env.items():
        if not name.startswith("TITO_"):
            continue
        check = SETTINGS.get(name)
        if check is None:
            logger.warning("unknown setting %s is ignored (known: %s)", name, ", ".join(SETTINGS))
            continue
        if value.strip() == "":
            continue
        problem = check(value.strip())
        if problem:
            shown = value if len(value) <= 64 else value[:64] + "..."
            problems.append(f"{name}={shown!r} {problem}")
    if problems:
        raise SettingsError("tito cannot start: " + "; ".join(sorted(problems)))
