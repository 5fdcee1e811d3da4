"""Render's process settings: :class:`RenderSettings` from the environment, parsed once per value set.

Why a module of its own: every render request reads them (:func:`current_settings`), the
function inits and ``tito serve`` build them; :mod:`tito.service.render` re-exports both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tito.core.template_budget import TemplateLimits


@dataclass(frozen=True)
class RenderSettings:
    """Process settings for render (from the environment, see :meth:`from_env`)."""

    trust_request_chat_template: bool = False
    template_limits: TemplateLimits = TemplateLimits()
    max_completion_prompts: int = 1024
    #: harmony's ``Current date:`` (vLLM: ``VLLM_SYSTEM_START_DATE``); None: today
    harmony_start_date: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RenderSettings:
        """``TITO_TRUST_REQUEST_CHAT_TEMPLATE=1`` allows per-request templates;
        ``TITO_TEMPLATE_MAX_CHARS``, ``TITO_TEMPLATE_MAX_STEPS``, ``TITO_TEMPLATE_MAX_SECONDS``
        bound every template render; ``TITO_MAX_COMPLETION_PROMPTS`` bounds a completions list;
        ``TITO_HARMONY_START_DATE`` (``YYYY-MM-DD``) pins gpt-oss's ``Current date:`` line."""
        env = os.environ if environ is None else environ
        base = TemplateLimits()

        def number(name: str, default: float, kind: type) -> Any:
            raw = env.get(name)
            if not raw:
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a number") from None
            if value <= 0:
                raise ValueError(f"{name} must be positive (got {raw!r})")
            return value

        return cls(
            trust_request_chat_template=env.get("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "").lower()
            in ("1", "true", "yes", "on"),
            template_limits=TemplateLimits(
                max_output_chars=number("TITO_TEMPLATE_MAX_CHARS", base.max_output_chars, int),
                max_steps=number("TITO_TEMPLATE_MAX_STEPS", base.max_steps, int),
                max_seconds=number("TITO_TEMPLATE_MAX_SECONDS", base.max_seconds, float),
                max_source_chars=number("TITO_TEMPLATE_MAX_SOURCE_CHARS", base.max_source_chars, int),
            ),
            max_completion_prompts=number("TITO_MAX_COMPLETION_PROMPTS", 1024, int),
            harmony_start_date=env.get("TITO_HARMONY_START_DATE") or None,
        )


#: The variables :meth:`RenderSettings.from_env` reads.
_SETTINGS_ENV = (
    "TITO_TRUST_REQUEST_CHAT_TEMPLATE", "TITO_TEMPLATE_MAX_CHARS", "TITO_TEMPLATE_MAX_STEPS",
    "TITO_TEMPLATE_MAX_SECONDS", "TITO_TEMPLATE_MAX_SOURCE_CHARS", "TITO_MAX_COMPLETION_PROMPTS",
    "TITO_HARMONY_START_DATE",
)


#: The mapping ``os.environ`` keeps its (encoded) variables in, and those names encoded as its keys.
#: Why not ``os.environ.get``: it raises and catches a KeyError per unset variable, ~3 us each,
#: which made reading these seven cost more than a short chat's whole engine request.
_ENV_DATA: Mapping[Any, Any] | None = getattr(os.environ, "_data", None)


_ENV_KEYS = tuple(map(getattr(os.environ, "encodekey", str), _SETTINGS_ENV))


def current_settings() -> RenderSettings:
    """:meth:`RenderSettings.from_env` of the current environment, parsed once per distinct
    value set (a request re-reads the variables, not the whole parse)."""
    if _ENV_DATA is None:  # not CPython's os.environ
        return _settings_for(tuple(os.environ.get(name) for name in _SETTINGS_ENV))
    return _settings_for(tuple(map(_ENV_DATA.get, _ENV_KEYS)))


@lru_cache(maxsize=8)
def _settings_for(values: tuple[Any, ...]) -> RenderSettings:
    decode = getattr(os.environ, "decodevalue", None) if _ENV_DATA is not None else None
    return RenderSettings.from_env({k: decode(v) if decode else v
                                    for k, v in zip(_SETTINGS_ENV, values) if v is not None})
