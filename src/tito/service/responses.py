"""Responses -> chat: the chat request an OpenAI Responses request amounts to, as vLLM 0.33's
Responses preprocessing builds it (the render, :mod:`tito.service.responses_render`, renders it;
the Responses derender reads its settings and the fields the ``Response`` echoes from it).

Why through chat: vLLM renders a Responses request by turning its ``input`` items into chat
messages (``construct_input_messages``) and running the chat preprocessing; tito does the same
with its own chat render, so templates, tools, sampling and bounds are one code path. What
differs is done here, in vLLM's order:

- ``previous_response_id`` is a 400 (``invalid_request_error``): a stateless renderer has no
  stored responses;
- items -> messages: ``instructions`` is a leading system message; a string ``input`` one user
  message; ``function_call`` items join the preceding assistant message's ``tool_calls`` (or start
  one); ``function_call_output`` is a tool message; ``reasoning`` items and assistant
  ``output_text`` messages fill the preceding assistant message's ``reasoning``/``content`` when
  still empty (else start a new assistant message); other role messages pass through (their
  ``input_text`` parts are joined with ``\\n`` by the chat content rules); on gpt-oss (harmony)
  no item joins another, as vLLM's ``response_input_to_harmony`` converts them one by one: an
  assistant message is its own ``final`` message (one text per part), a reasoning item its
  content texts joined with ``\\n`` (none without content);
- tools: function tools as they are, ``custom`` and ``namespace`` tools as the functions
  :func:`shown_tools` makes of them (:mod:`tito.service.responses_custom`; a named choice of a
  namespace's tool was resolved to its flat name by the request's rules); a
  ``function_call`` item's ``namespace`` gives its flat name, a ``custom_tool_call`` item is a
  call of its tool with the shim's arguments;
- ``max_output_tokens`` -> ``max_tokens``; ``text.format`` -> ``structured_outputs``;
  ``reasoning.effort`` -> ``reasoning_effort`` (and ``enable_thinking``); ``include`` with
  ``message.output_text.logprobs`` -> ``top_logprobs`` logprobs;
- the request fields the ``Response`` object echoes: :func:`echo_fields`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tito.errors import BadRequest, tool_not_in_tools, tool_not_passed
from tito.protocol import ChatCompletionRequest
from tito.protocol.common import StructuredOutputsParams
from tito.protocol.responses import ResponsesRequest
from tito.service.responses_custom import shown_tools
from tito.service.responses_items import input_messages

if TYPE_CHECKING:
    from tito.models import ServedModel

__all__ = [
    "HARMONY_BUILTIN_TOOLS", "chat_request_for", "check_harmony_tools", "echo_fields",
    "input_messages", "structured_constraint",
]


def _mistral(model: ServedModel) -> bool:
    from tito.core.mistral import MistralVocab  # only where a model is given

    return isinstance(model.vocab, MistralVocab)


def _continue_final(request: ResponsesRequest) -> bool:
    """A trailing assistant message or reasoning item still in progress is continued."""
    if isinstance(request.input, str) or not request.input:
        return False
    last = request.input[-1]
    if last.get("type", "message") not in ("message", "reasoning"):
        return False
    if last.get("type") == "message" and last.get("role") != "assistant":
        return False
    return last.get("status") in ("in_progress", "incomplete")


def structured_constraint(request: ResponsesRequest, *, check: bool = True) -> dict[str, Any] | None:
    """The request's constraint (vLLM's ``extract_structured_outputs``); both
    ``structured_outputs`` and ``text.format`` are its 400, unless ``check`` is false (the
    render raises it later, where vLLM does: :func:`tito.service.responses_render.after_render`)."""
    fmt = request.text.format if request.text is not None else None
    if fmt is None:
        return request.structured_outputs
    if request.structured_outputs is not None:
        if not check:
            return request.structured_outputs
        raise BadRequest("Cannot specify both structured_outputs and text.format",
                         param="structured_outputs")
    if fmt.get("type") == "json_object":
        return {"json_object": True}
    if fmt.get("type") == "json_schema" and fmt.get("schema") is not None:
        return {"json": fmt["schema"]}
    return None


#: the hosted tools vLLM's harmony path knows (its built-in tool servers' request names): with
#: no tool server they are left out of the prompt, never refused
HARMONY_BUILTIN_TOOLS = frozenset({"code_interpreter", "web_search_preview", "container"})


def check_harmony_tools(request: ResponsesRequest) -> None:
    """gpt-oss (vLLM's harmony developer message) takes function tools and leaves its built-in
    ones out of the prompt; any other tool is vLLM's 400 -- unless every tool is built-in or
    ``mcp`` (no developer tools then, nothing checked). vLLM checks them before it converts the
    input items (fuzz_render seed 701: a custom tool and a ``custom_tool_call`` item are the
    tool's 400). Deviation: with a built-in or ``mcp`` tool, a ``required`` or named choice is
    tito's 400 -- vLLM then constrains the output to a call of any recipient (its built-in tool
    servers'), which tito, with no tool server, does not offer."""
    hosted = [t for t in request.tools if t.type in HARMONY_BUILTIN_TOOLS or t.type == "mcp"]
    if len(hosted) < len(request.tools):
        for tool in request.tools:
            if tool.type != "function" and tool.type not in HARMONY_BUILTIN_TOOLS:
                raise BadRequest(f"tool type {tool.type!r} is not supported.", param="tools")
    choice = request.tool_choice
    if hosted and (choice == "required" or isinstance(choice, dict)
                   and choice.get("type") in ("function", "custom")):
        raise BadRequest("a required or named tool_choice with built-in tools is not supported "
                         "on gpt-oss (no built-in tool server).", param="tool_choice")


def _named(choice: Any) -> bool:
    return isinstance(choice, dict) and choice.get("type") in ("function", "custom")


def tags_forced_calls(model: ServedModel | None) -> bool:
    """Whether ``model``'s tool parser constrains forced calls with a structural tag: vLLM
    0.33's ``_apply_structural_tag`` then asks ``require_function_tools`` for the tools a named
    choice may call too, a 400 when the model is shown none (a namespace's custom tool named,
    fuzz_render s893-282; ``render_responses_forced_none.json``)."""
    from tito.core.parsers.tools import RENDER_TRAITS

    traits = RENDER_TRAITS.get(model.tool_parser) if model is not None and model.tool_parser \
        else None
    return traits is not None and traits.structural_tag_model is not None


def chat_request_for(request: ResponsesRequest, model: ServedModel | None = None, *,
                     render: bool = False) -> ChatCompletionRequest:
    """The chat request vLLM's Responses preprocessing amounts to (also derender's settings).
    ``render``: for the render, which checks the constraint conflict after rendering (vLLM's
    order, :func:`tito.service.responses_render.after_render`)."""
    from tito.service.harmony import is_harmony_model
    harmony = model is not None and is_harmony_model(model)
    if harmony:
        check_harmony_tools(request)
    tools = shown_tools(request.tools)
    choice: Any = request.tool_choice
    # (a model without a tool parser renders any of these unconstrained, as vLLM's; gpt-oss:
    # its built-in tools alone, no constraint, as vLLM's harmony path; goldens
    # render_responses_forced_none, render_responses_forced_parsers)
    parser = model is None or model.tool_parser is not None
    if request.tools and not tools and not harmony and parser:
        if choice == "required" or (render and _named(choice) and tags_forced_calls(model)):
            raise BadRequest("tool_choice requires a function call, but tools contains no "
                             "function tool the model can call.", param="tool_choice")
        if render and _named(choice):  # (the JSON-schema path's lookup: vLLM's words)
            raise tool_not_passed(choice.get("name"))
    if isinstance(choice, dict):  # (only a function or custom one names a tool: vLLM 0.33
        # renders the others, allowed_tools included, without a constraint)
        choice = ({"type": "function", "function": {"name": choice.get("name")}}
                  if choice.get("type") in ("function", "custom") else "auto")
        name = choice["function"]["name"] if isinstance(choice, dict) else None
        if isinstance(name, str) and tools and name not in [t["name"] for t in tools]:
            # (a namespace's custom tool: named, never shown)
            raise tool_not_in_tools(name)
    logprobs = request.output_logprobs()
    continue_final = _continue_final(request)
    fields: dict[str, Any] = {
        "model": request.model,
        "messages": input_messages(request, harmony=harmony),
        "max_tokens": request.max_output_tokens,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "top_k": request.top_k,
        "min_p": request.min_p,
        "presence_penalty": request.presence_penalty,
        "frequency_penalty": request.frequency_penalty,
        "repetition_penalty": request.repetition_penalty,
        "seed": request.seed,
        "stop": request.stop or [],  # ("" or null: none, as vLLM's to_sampling_params)
        "stop_token_ids": request.stop_token_ids,
        "ignore_eos": request.ignore_eos,
        "logit_bias": request.logit_bias,
        "logprobs": logprobs,
        "top_logprobs": request.top_logprobs if logprobs else 0,
        "spaces_between_special_tokens": request.spaces_between_special_tokens,
        "include_stop_str_in_output": request.include_stop_str_in_output,
        "include_reasoning": request.include_reasoning,
        "parallel_tool_calls": request.parallel_tool_calls,
        "reasoning_effort": request.reasoning.effort if request.reasoning else None,
        # vLLM's Responses route never checks them against a Mistral tokenizer (its chat
        # route refuses any): they have nothing to reach there
        "chat_template_kwargs": None if model is not None and _mistral(model)
        else request.chat_template_kwargs,
        "add_generation_prompt": not continue_final,
        "continue_final_message": continue_final,
        "stream": bool(request.stream),
        "request_id": request.request_id,
        "cache_salt": request.cache_salt,
        "priority": request.priority,
        "kv_transfer_params": request.kv_transfer_params,
        "ec_transfer_params": request.ec_transfer_params,
        "structured_outputs": structured_constraint(request, check=not render),
        "vllm_xargs": request.vllm_xargs,
        "watermarking": request.watermarking,
    }
    if request.skip_special_tokens is not None:  # (unset: the generation config's, as vLLM)
        fields["skip_special_tokens"] = request.skip_special_tokens
    if tools:
        fields["tools"] = [{"type": "function", "function": t} for t in tools]
        fields["tool_choice"] = choice
    # vLLM's Responses render takes a named tool with a constraint (the tag replaces it) and
    # checks no structural tag: the chat request's raw-body rules on them are left out, the
    # constraint set after validation
    constraint = fields.pop("structured_outputs")
    try:
        chat = _chat_request(fields)
        if constraint is not None:
            chat.structured_outputs = StructuredOutputsParams.model_validate(constraint)
        return chat
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise BadRequest(str(err.get("msg")), param=loc or None) from None


def _plain_defaults() -> dict[str, Any]:
    """The chat request's fields with a null or empty default (name -> it), but ``tool_choice``
    (its before-validator reads whether the key was sent)."""
    out: dict[str, Any] = {}
    for name, info in ChatCompletionRequest.model_fields.items():
        default = info.default_factory() if info.default_factory is not None else info.default
        if name != "tool_choice" and (default is None or default == [] or default == {}):
            out[name] = default
    return out


#: a key holding its field's default is left out of the hand check (``cache_salt`` and
#: ``response_format``, whose field validators leave null as it is, included)
_PLAIN_DEFAULTS = _plain_defaults()


def _chat_request(fields: dict[str, Any]) -> ChatCompletionRequest:
    """``ChatCompletionRequest.model_validate(fields)``: checked by hand when its values are
    plain (:mod:`tito.service.chat_body`; a value equal to its field's null or empty default
    left to that default, every key then counted as sent, as validation counts them), else by
    the model (a test compares both on generated Responses requests)."""
    from tito.service import chat_body

    plain = {k: v for k, v in fields.items()
             if k not in _PLAIN_DEFAULTS or type(v) is not type(_PLAIN_DEFAULTS[k])
             or v != _PLAIN_DEFAULTS[k]}
    chat = chat_body.read(plain)
    if chat is None:
        return ChatCompletionRequest.model_validate(fields)
    object.__setattr__(chat, "__pydantic_fields_set__", set(fields))
    return chat


def echo_fields(request: ResponsesRequest) -> dict[str, Any]:
    """The request fields the ``Response`` object repeats (carried to derender)."""
    return {
        "instructions": request.instructions,
        "metadata": request.metadata,
        "parallel_tool_calls": request.parallel_tool_calls is not False,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "tool_choice": request.tool_choice,
        "tools": [t.model_dump(exclude_none=True) for t in request.tools],
        "max_output_tokens": request.max_output_tokens,
        "reasoning": request.reasoning.model_dump(exclude_none=True) if request.reasoning else None,
        "text": request.text.model_dump(exclude_none=True) if request.text else None,
        "top_logprobs": request.top_logprobs,
        "truncation": request.truncation,
        "service_tier": request.service_tier,
        "background": request.background,
        "user": request.user,
        "logprobs": request.output_logprobs(),
    }


