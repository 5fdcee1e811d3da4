"""vLLM 0.33's ``ParseContext`` of a chat render: what the engine's parsers read back.

Why a module of its own: its fields are vLLM's ``_build_parse_context`` (its order), its tools
are the request's as vLLM serializes ``ChatCompletionToolsParam``, and vLLM validates it as a
pydantic model, whose rules tito follows here: a template kwarg nested past 254 containers
fails ``JsonValue`` validation (a 400; measured, ``conformance/goldens/render_json_values``).
The Responses render and ``/tokenize`` build none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tito.errors import BadRequest

if TYPE_CHECKING:
    from tito.protocol import ChatCompletionRequest

__all__ = ["parse_context", "parse_context_tool"]


def parse_context(
    request: ChatCompletionRequest, tool_choice: Any, kwargs: Mapping[str, Any], *, harmony: bool,
) -> dict[str, Any]:
    """vLLM 0.33's ``ParseContext`` of a chat render (``_build_parse_context``; its field order).

    ``tools`` are the request's as vLLM serializes ``ChatCompletionToolsParam``: every declared
    field (``description`` / ``parameters`` null when absent), ``strict`` and ``defer_loading``
    only when set, nothing else. Harmony output is parsed without template kwargs (``{}``).
    Its ``chat_template_kwargs`` are pydantic ``JsonValue`` s in vLLM, whose validation stops at
    254 nested containers: a deeper value is vLLM's 400 (:func:`_check_kwargs_depth`)."""
    if not harmony:
        _check_kwargs_depth(kwargs)
    history = sum(len(_get(m, "tool_calls") or []) for m in request.messages
                  if _get(m, "role") == "assistant")
    tools = None if request.tools is None else [parse_context_tool(t) for t in request.tools]
    return {
        "tools": tools,
        # as the request has it: an explicit null stays null (vLLM defaults only an absent
        # one to "auto", with tools; its Messages conversion sets "auto" itself)
        "tool_choice": tool_choice,
        "parallel_tool_calls": request.parallel_tool_calls,  # null stays null, as vLLM sends it
        "include_reasoning": request.include_reasoning,
        "chat_template_kwargs": {} if harmony else dict(kwargs),
        "history_tool_call_cnt": history,
    }


#: The containers a ``chat_template_kwargs`` value may nest in vLLM's ``ParseContext``
#: (pydantic-core's recursion guard on its recursive ``JsonValue`` validator, measured).
_KWARGS_MAX_DEPTH = 254


def _check_kwargs_depth(kwargs: Mapping[str, Any]) -> None:
    """A 400 for a template kwarg nested past :data:`_KWARGS_MAX_DEPTH` (an explicit stack: the
    walk itself must not recurse as deep as the value)."""
    for key, value in kwargs.items():
        todo: list[tuple[Any, int]] = [(value, 1)]
        while todo:
            item, depth = todo.pop()
            if isinstance(item, dict | list):
                if depth > _KWARGS_MAX_DEPTH:
                    raise BadRequest(f"1 validation error for ParseContext: chat_template_kwargs."
                                     f"{key} nests deeper than {_KWARGS_MAX_DEPTH} levels "
                                     "(maximum validation depth exceeded)")
                todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                     else item))


def parse_context_tool(tool: Any) -> dict[str, Any]:
    """One tool as vLLM dumps it into ``parse_context`` (and hands its chat template): the
    declared fields only, ``defer_loading`` copied into the function."""
    fn = tool.function
    defer = (tool.model_extra or {}).get("defer_loading")  # vLLM: copied into the function
    out: dict[str, Any] = {"name": fn.name, "description": fn.description,
                           "parameters": fn.parameters}
    if fn.strict is not None:
        out["strict"] = fn.strict
    if (fn.defer_loading if fn.defer_loading is not None else defer) is not None:
        out["defer_loading"] = fn.defer_loading if fn.defer_loading is not None else defer
    return {"type": tool.type, "function": out} | ({} if defer is None else
                                                   {"defer_loading": defer})


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
