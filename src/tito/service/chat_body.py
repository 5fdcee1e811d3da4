"""The common chat render body, checked by hand instead of by ``ChatCompletionRequest``'s validator.

Why: validating a chat request (about seventy fields, their defaults, the validators) costs a
short chat render as much as tokenizing its prompt, and most bodies carry a handful of plain
fields (``model``, ``messages``, ``temperature``, ``max_tokens``...).

Rule: :func:`read` returns a request built without validation (``model_construct``) only when
validating the body would give exactly those values: every key a field of the model that
:func:`tito.service.render_wire.field_checks` can decide (a plain JSON type, optionally null,
plain bounds; an ``int`` for a ``float`` field becomes the float pydantic makes of it), with a
value of that exact type within its bounds; ``messages`` through the model's own field
validator (and copied as pydantic copies them); the model's own model validator runs (vLLM's raw-body rules,
:mod:`tito.protocol.raw_rules`). Anything else returns None and the caller validates the body with
pydantic as before: an unknown key, a field of another kind (``tools``, ``tool_choice``,
``stop``, ``stream_options``, ``response_format``, ``reasoning_effort``, ``cache_salt``...), a
value pydantic would coerce or refuse, a validator's refusal. Errors are therefore always
pydantic's own. ``tests/test_chat_body.py`` compares both on generated bodies.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from pydantic_core import PydanticUndefined

from tito.protocol.chat import ChatCompletionRequest
from tito.service.render_wire import field_checks

__all__ = ["read"]

#: fields whose field validators act on the value (``messages`` is handled here)
_CHECKS = field_checks(ChatCompletionRequest, frozenset(
    name for validator in ChatCompletionRequest.__pydantic_decorators__.field_validators.values()
    for name in validator.info.fields))
_before = ChatCompletionRequest._raw_rules
_messages = ChatCompletionRequest._messages


_setattr = object.__setattr__


def _defaults() -> list[tuple[str, Any, Any]]:
    """(name, default, factory) of every field, in the model's order."""
    out = []
    for name, info in ChatCompletionRequest.model_fields.items():
        if info.default_factory is not None:
            out.append((name, None, info.default_factory))
        elif info.is_required():
            out.append((name, PydanticUndefined, None))
        else:
            default = info.default
            copy = type(default) in (list, dict, set)  # pydantic copies mutable defaults
            out.append((name, default, (lambda d=default: deepcopy(d)) if copy else None))
    return out


_DEFAULTS = _defaults()
#: every field with its plain default (a placeholder for the others), in the model's order
_PLAIN = {name: default for name, default, _ in _DEFAULTS}
_FACTORIES = tuple((name, factory) for name, _, factory in _DEFAULTS if factory is not None)
_REQUIRED = tuple(name for name, default, factory in _DEFAULTS
                  if factory is None and default is PydanticUndefined)
#: what :func:`_construct` assumes of the model (else every body goes to pydantic)
_USABLE = (not ChatCompletionRequest.__pydantic_post_init__
           and not ChatCompletionRequest.__private_attributes__
           and ChatCompletionRequest.model_config.get("extra") == "allow")


def _construct(values: dict[str, Any]) -> ChatCompletionRequest:
    """``ChatCompletionRequest.model_construct(**values)`` (valid values, no aliases, no
    extras), without its per-field default resolution (pydantic 2.13 inspects each default
    factory's signature on every call: milliseconds per request): the plain defaults copied
    at once (:data:`_PLAIN`, every field in the model's order), then the factories' values and
    the request's own; a required field the request lacks is left out, as pydantic leaves it."""
    fields = _PLAIN.copy()
    for name, factory in _FACTORIES:
        if name not in values:
            fields[name] = factory()
    fields.update(values)
    for name in _REQUIRED:
        if name not in values:
            del fields[name]
    request = ChatCompletionRequest.__new__(ChatCompletionRequest)
    _setattr(request, "__dict__", fields)
    _setattr(request, "__pydantic_fields_set__", set(values))
    _setattr(request, "__pydantic_extra__", {})
    _setattr(request, "__pydantic_private__", None)
    return request


def read(data: Any) -> ChatCompletionRequest | None:
    """The validated request of ``data`` (a parsed JSON body) when it is certainly valid as it
    is, else None (see the module docstring)."""
    if type(data) is not dict or not _USABLE:
        return None
    messages = data.get("messages")
    if type(messages) is not list:
        return None
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "messages":
            continue
        check = _CHECKS.get(key)
        if check is None:
            return None
        ok, value = check.check(value)
        if not ok:
            return None
        values[key] = value
    try:
        if _before(data) is not data:  # it would change the body (a default it adds)
            return None
        checked = _messages(messages)
        if type(checked) is not list or not all(type(m) is dict for m in checked):
            return None
        values["messages"] = [dict(m) for m in checked]
        request = _construct(values)
    except Exception:  # the model's own refusal: pydantic reports it
        return None
    return request
