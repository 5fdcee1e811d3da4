"""vLLM 0.33's checks of a raw request body, run before the body's schema, in vLLM's order.

Why a module of its own: which 400 a body with several defects gets (its ``type``, message and
``param``) is decided by the order in which vLLM 0.33 looks at it, and clients (and the
differential corpus) see that answer. vLLM's request models check these rules in
``model_validator(mode="before")`` methods, which pydantic runs last-defined first, before any
field; they raise ``VLLMValidationError``, which is no ``ValueError``: pydantic does not collect
it, so it leaves validation at once and wins over every schema error of the body
(``BadRequestError`` with the rule's param). A ``TypeError`` of such a method on a malformed
value (``messages: null`` iterated) is vLLM's ``BadRequestError`` too, param null. tito raises
:class:`tito.errors.RequestRule` (also no ``ValueError``) from the same rules in the same order.

Rules (each on the raw JSON values, truthiness as vLLM tests them; the first that fails wins):

chat (:func:`chat_rules`)
    1. ``messages`` (default ``[]``) must be iterable (a list, object or string), else
       ``'<type>' object is not iterable``
    2. ``continue_final_message`` and ``add_generation_prompt`` both truthy (param null)
    3. tools / tool_choice (:func:`_tool_usage`): ``tools == []``; ``tool_choice`` defaults to
       ``"auto"`` when tools are truthy; a ``tool_choice`` other than ``"none"`` / null needs
       ``tools``; it is ``"auto"``, ``"required"`` or an object whose ``function`` is an object
       with a non-empty string ``name`` naming one of the tools
    4. structured outputs: at most one of ``json`` / ``regex`` / ``choice`` (param null); with
       one, ``tool_choice`` must be ``"none"`` / ``"auto"`` / ``"required"``; its structural tag
       valid (:func:`tito.core.structured_check.check_request`)
    5. logprobs (:func:`_chat_logprobs`): ``logprob_token_ids`` needs ``logprobs`` (and no beam
       search); ``prompt_logprobs`` / ``top_logprobs`` numbers, -1 or not negative, no prompt
       logprobs on a stream; ``top_logprobs`` other than 0 needs ``logprobs``
    6. ``stream_options`` truthy needs ``stream``
    7. ``response_format``: ``json_schema`` needs its ``json_schema`` object; a structural tag
       valid
    8. each message's ``tool_calls`` (when not null) iterable; ``reasoning_content`` renamed to
       ``reasoning`` (the body is copied, never changed in place)
    9. ``cache_salt`` (:func:`tito.protocol.common.check_cache_salt`)

completions (:func:`completion_rules`)
    1. a prompt list (not of ids) or a ``prompt_embeds`` list of at most 1024 entries
    2. ``prompt`` or ``prompt_embeds`` given and not empty (``""`` / ``[]``)
    3. ``stream_options`` as chat 6
    4. logprobs (:func:`_completion_logprobs`): as chat 5 for ``logprobs`` (a count), plus beam
       search with ``echo`` and ``logprobs``, ``logprob_token_ids`` with ``echo`` and
       ``max_tokens`` 0
    5. structured outputs as chat 4 (param ``structured_outputs``, no tool rule)
    6. ``response_format`` as chat 7
    7. ``cache_salt``

tokenize with ``messages``: chat 2 only (:func:`tokenize_chat_rules`).

Responses (:func:`responses_rules`)
    1. tools / tool_choice: without tools, ``"auto"`` / ``"none"`` (default ``"auto"``) become
       ``"none"`` and ``"required"`` or a named tool is refused; a named tool must name one
       (a name of a namespace's tool resolved to its flat ``<namespace>__<name>``, a name two
       namespaces hold refused: :func:`_named_tool`)
    2. no custom tool with a grammar format
    3. an ``input`` that is neither a string nor a list but iterable (an object) becomes the
       list of its keys
    4. no ``prompt`` template; 5. ``background`` needs ``store`` (default true); 6. ``cache_salt``

Errors a request model checks later (field types, values the render refuses) keep their own
place; this module only moves what vLLM checks first.
"""

from __future__ import annotations

from typing import Any

from tito.errors import InvalidField, RequestRule, quote
from tito.protocol.common import check_cache_salt

__all__ = ["chat_rules", "completion_rules", "responses_rules", "tokenize_chat_rules"]


def _check_structured(response_format: Any, structured_outputs: Any) -> None:
    """:func:`tito.core.structured_check.check_request`, imported on first use (the grammar
    checkers stay out of a cold start that never sees a constraint)."""
    from tito.core.structured_check import check_request

    check_request(response_format, structured_outputs)

#: vLLM's ``VLLM_MAX_COMPLETION_PROMPTS``
MAX_COMPLETION_PROMPTS = 1024


def _rule(message: str, param: str | None = None, value: Any = None) -> RequestRule:
    """vLLM's ``VLLMValidationError``: its message ends with ``(parameter=..., value=...)``."""
    extras = [f"parameter={param}"] if param is not None else []
    if value is not None:
        extras.append(f"value={quote(value)}")
    return RequestRule(f"{message} ({', '.join(extras)})" if extras else message, param=param)


def _iterable(value: Any) -> None:
    """What Python's ``for`` refuses (vLLM iterates the raw value): a ``TypeError`` there."""
    if not isinstance(value, (list, dict, str)):
        raise RequestRule(f"'{type(value).__name__}' object is not iterable")


def _subscript(value: Any, key: str) -> Any:
    """``value[key]`` as vLLM indexes a raw value: Python's ``TypeError`` on a non-object, and
    a missing key (vLLM: a ``KeyError``, its 500) as a 400 naming it."""
    if isinstance(value, dict):
        if key not in value:
            raise RequestRule(f"'{key}'")
        return value[key]
    if isinstance(value, (str, list)):
        raise RequestRule(f"{type(value).__name__} indices must be integers"
                          f"{' or slices' if isinstance(value, list) else ''}, not 'str'")
    raise RequestRule(f"'{type(value).__name__}' object is not subscriptable")


def _generation_prompt(data: dict[str, Any]) -> None:
    if data.get("continue_final_message") and data.get("add_generation_prompt"):
        raise _rule("Cannot set both `continue_final_message` and `add_generation_prompt` to "
                    "True.")


_NAMED_USAGE = 'Correct usage: `{"type": "function", "function": {"name": "my_function"}}`'


def _tool_usage(data: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``check_tool_usage``; returns the body with ``tool_choice`` defaulted."""
    if data.get("tools") == []:
        raise _rule("`tools` must not be an empty array. Either provide at least one tool or "
                    "omit the field entirely.", "tools")
    if "tool_choice" not in data and data.get("tools"):
        data = {**data, "tool_choice": "auto"}
    choice = data.get("tool_choice")
    if choice is None or choice == "none":
        return data
    if data.get("tools") is None:
        raise _rule("When using `tool_choice`, `tools` must be set.", "tool_choice")
    if not isinstance(choice, dict):
        if choice in ("auto", "required"):
            return data
        raise _rule(f"Invalid value for `tool_choice`: {quote(choice)}! Only named tools, "
                    '"none", "auto" or "required" are supported.', "tool_choice")
    function = choice.get("function")
    if not isinstance(function, dict):
        raise _rule(f"Invalid value for `function`: `{quote(function)}` in `tool_choice`! "
                    f"{_NAMED_USAGE}", "tool_choice.function")
    if "name" not in function:
        raise _rule(f"Expected field `name` in `function` in `tool_choice`! {_NAMED_USAGE}",
                    "tool_choice.function.name")
    name = function["name"]
    if not isinstance(name, str) or not name:
        raise _rule(f"Invalid `name` in `function`: `{quote(name)}` in `tool_choice`! "
                    f"{_NAMED_USAGE}", "tool_choice.function.name")
    tools = data["tools"]
    _iterable(tools)
    for tool in tools:
        if _subscript(_subscript(tool, "function"), "name") == name:
            return data
    raise _rule("The tool specified in `tool_choice` does not match any of the specified "
                "`tools`", "tool_choice")


def _structured_outputs(data: dict[str, Any], *, chat: bool) -> None:
    """vLLM's ``check_structured_outputs_count`` (chat: param null and the tools rule)."""
    so = data.get("structured_outputs")
    if so is None:
        return
    if not isinstance(so, dict):  # vLLM: an AttributeError (its 500); the schema's 400 here
        raise RequestRule(f"structured_outputs must be an object (got {quote(so)}).",
                          param="structured_outputs")
    count = sum(so.get(k) is not None for k in ("json", "regex", "choice"))
    if count > 1:
        raise _rule("You can only use one kind of constraints for structured outputs ('json', "
                    "'regex' or 'choice').", None if chat else "structured_outputs")
    if chat and count > 0 and data.get("tool_choice", "none") not in ("none", "auto",
                                                                      "required"):
        raise _rule("You can only either use constraints for structured outputs or tools, "
                    "not both.")
    _check_structured(None, so)


def _logprob_numbers(data: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        value = data.get(name)
        if value is not None and not isinstance(value, (int, float)):
            raise _rule(f"`{name}` must be an integer.", name, value)
    prompt = data.get("prompt_logprobs")
    if prompt is not None:
        if data.get("stream") and (prompt > 0 or prompt == -1):
            raise _rule("`prompt_logprobs` are not available when `stream=True`.",
                        "prompt_logprobs")
        if prompt < 0 and prompt != -1:
            raise _rule("`prompt_logprobs` must be a positive value or -1.", "prompt_logprobs",
                        prompt)


def _chat_logprobs(data: dict[str, Any]) -> None:
    if data.get("logprob_token_ids") and data.get("use_beam_search"):
        raise _rule("`logprob_token_ids` is not supported with beam search.", "logprob_token_ids")
    if data.get("logprob_token_ids") and not data.get("logprobs"):
        raise _rule("when using `logprob_token_ids`, `logprobs` must be set to true.",
                    "logprob_token_ids")
    _logprob_numbers(data, ("prompt_logprobs", "top_logprobs"))
    top = data.get("top_logprobs")
    if top is not None:
        if top < 0 and top != -1:
            raise _rule("`top_logprobs` must be a positive value or -1.", "top_logprobs", top)
        if (top == -1 or top > 0) and not data.get("logprobs"):
            raise _rule("when using `top_logprobs`, `logprobs` must be set to true.",
                        "top_logprobs")


def _completion_logprobs(data: dict[str, Any]) -> None:
    ids = data.get("logprob_token_ids")
    if ids and data.get("use_beam_search"):
        raise _rule("`logprob_token_ids` is not supported with beam search.", "logprob_token_ids")
    if data.get("use_beam_search") and data.get("echo") and data.get("logprobs") is not None:
        raise _rule("`echo` with `logprobs` is not supported with beam search because beam "
                    "search does not compute prompt logprobs.", "echo")
    if ids and data.get("echo") and data.get("max_tokens") == 0:
        raise _rule("`logprob_token_ids` is not supported when `echo=True` and `max_tokens=0` "
                    "because no output tokens are generated.", "logprob_token_ids")
    if ids and data.get("logprobs") is None:
        raise _rule("when using `logprob_token_ids`, `logprobs` must be set.",
                    "logprob_token_ids")
    _logprob_numbers(data, ("prompt_logprobs", "logprobs"))
    count = data.get("logprobs")
    if count is not None and count < 0 and count != -1:
        raise _rule("`logprobs` must be a positive value or -1.", "logprobs", count)


def _stream_options(data: dict[str, Any]) -> None:
    if data.get("stream_options") and not data.get("stream"):
        raise _rule("Stream options can only be defined when `stream=True`.", "stream_options")


def _response_format(data: dict[str, Any]) -> None:
    rf = data.get("response_format")
    if not isinstance(rf, dict):  # vLLM reads `type` off anything else as null
        return
    if rf.get("type") == "json_schema" and rf.get("json_schema") is None:
        raise _rule("When response_format type is 'json_schema', the 'json_schema' field must "
                    "be provided.", "response_format")
    if rf.get("type") == "structural_tag":
        _check_structured(rf, None)


def _messages(data: dict[str, Any]) -> dict[str, Any]:
    """Each message's ``tool_calls`` iterable; ``reasoning_content`` renamed (a copy)."""
    messages = data.get("messages")
    if not isinstance(messages, list):
        return data
    out = None
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        calls = msg.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            _iterable(calls)
        if msg.get("reasoning_content") is not None:
            out = out if out is not None else list(messages)
            renamed = {k: v for k, v in msg.items() if k != "reasoning_content"}
            if renamed.get("reasoning") is None:
                renamed["reasoning"] = msg["reasoning_content"]
            out[i] = renamed
    return data if out is None else {**data, "messages": out}


def _cache_salt(data: dict[str, Any]) -> None:
    try:
        check_cache_salt(data.get("cache_salt"))
    except InvalidField as exc:
        raise _rule(str(exc), "cache_salt") from None


def chat_rules(data: dict[str, Any]) -> dict[str, Any]:
    """The chat rules of the module header, in order; the body (a new dict when a default or
    a rename applies, else ``data`` itself)."""
    _iterable(data.get("messages", []))
    _generation_prompt(data)
    data = _tool_usage(data)
    _structured_outputs(data, chat=True)
    _chat_logprobs(data)
    _stream_options(data)
    _response_format(data)
    data = _messages(data)
    _cache_salt(data)
    return _skip_special_default(data)


def completion_rules(data: dict[str, Any]) -> dict[str, Any]:
    """The completions rules of the module header, in order (the body unchanged)."""
    prompt, embeds = data.get("prompt"), data.get("prompt_embeds")
    if isinstance(prompt, list) and prompt and not all(type(p) is int for p in prompt) \
            and len(prompt) > MAX_COMPLETION_PROMPTS:
        raise _rule(f"prompt list length {len(prompt)} exceeds the maximum allowed count of "
                    f"{MAX_COMPLETION_PROMPTS}. To increase this limit, set the "
                    "VLLM_MAX_COMPLETION_PROMPTS environment variable.", "prompt")
    if isinstance(embeds, list) and len(embeds) > MAX_COMPLETION_PROMPTS:
        raise _rule(f"prompt_embeds list length {len(embeds)} exceeds the maximum allowed count "
                    f"of {MAX_COMPLETION_PROMPTS}. To increase this limit, set the "
                    "VLLM_MAX_COMPLETION_PROMPTS environment variable.", "prompt_embeds")
    if (prompt is None or prompt == "") and (embeds is None or embeds == []):
        raise _rule("Either prompt or prompt_embeds must be provided and non-empty.", "prompt")
    _stream_options(data)
    _completion_logprobs(data)
    _structured_outputs(data, chat=False)
    _response_format(data)
    _cache_salt(data)
    return _skip_special_default(data)


def _skip_special_default(data: dict[str, Any]) -> dict[str, Any]:
    """A null ``skip_special_tokens`` is unset (vLLM 0.33 types it ``bool | None``): the field's
    default, true, for derender, and the generation config's for render's engine flag
    (:func:`tito.service.render_common.engine_skip_special`); a copy without the key."""
    if "skip_special_tokens" in data and data["skip_special_tokens"] is None:
        return {k: v for k, v in data.items() if k != "skip_special_tokens"}
    return data


def tokenize_chat_rules(data: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``TokenizeChatRequest`` rule (chat rule 2)."""
    _generation_prompt(data)
    return data


def _named_tool(name: Any, tools: Any) -> Any:
    """vLLM 0.33's ``_resolve_named_tool_choice``: the tool a named choice's ``name`` (not
    empty) names, as the flat name the model sees: a tool's own name (a namespace's
    ``<namespace>__<name>`` included) as it is, else the one namespace that holds it
    (``<namespace>__name``); a name two namespaces hold is a 400, so is a name nothing holds --
    a name that is not a string included, whatever the tools' own names (fuzz_render seed 713;
    never hashed: a list or object name was a 500, fuzz_hard 122). A namespace without a string
    name or a tools list: the name as it is (the schema refuses that tool). Tools that are not a
    list hold no name."""
    exact: set[str] = set()
    local: dict[str, list[str]] = {}
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            space, subs = tool.get("name"), tool.get("tools")
            if not isinstance(subs, list) or not isinstance(space, str):
                return name  # (as vLLM: taken as it is, the schema refuses the namespace)
            for sub in subs:
                sub_name = sub.get("name") if isinstance(sub, dict) else None
                if isinstance(sub_name, str):
                    exact.add(f"{space}__{sub_name}")
                    local.setdefault(sub_name, []).append(f"{space}__{sub_name}")
        elif isinstance(tool.get("name"), str):
            exact.add(tool["name"])
    if not isinstance(name, str):
        raise _rule("Tool choice 'function' not found in 'tools' parameter.", "tool_choice")
    if name in exact:
        return name
    found = local.get(name, [])
    if len(found) > 1:
        raise _rule(f"Tool choice '{name}' is ambiguous: it is defined in more than one "
                    f"namespace ({', '.join(found)}). Select it by its full "
                    "'<namespace>__<name>' name.", "tool_choice")
    if not found:
        raise _rule("Tool choice 'function' not found in 'tools' parameter.", "tool_choice")
    return found[0]


def responses_rules(data: dict[str, Any]) -> dict[str, Any]:
    """The Responses rules of the module header, in order; the body (a new dict when a default
    or a conversion applies)."""
    tools = data.get("tools")
    if tools is not None and not isinstance(tools, (list, dict, str)):  # vLLM's len(tools)
        raise RequestRule(f"object of type '{type(tools).__name__}' has no len()")
    choice = data.get("tool_choice", "auto")
    named = isinstance(choice, dict) and choice.get("type") in ("function", "custom")
    if not (isinstance(tools, (list, dict, str)) and len(tools) > 0):
        if choice in ("auto", "none"):  # (a null one is the schema's to refuse)
            data = {**data, "tool_choice": "none"}
        elif choice == "required":
            raise _rule("Tool choice 'required' must be specified with 'tools' parameter.",
                        "tool_choice")
        elif named:
            raise _rule("Tool choice 'function' not found in 'tools' parameter.", "tool_choice")
    elif named:
        name = choice.get("name")
        if not name:
            raise _rule("Tool choice 'function' not found in 'tools' parameter.", "tool_choice")
        resolved = _named_tool(name, tools)
        if resolved != name:
            data = {**data, "tool_choice": {**choice, "name": resolved}}
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and tool.get("type") == "custom" \
                and isinstance(tool.get("format"), dict) \
                and tool["format"].get("type") == "grammar":
            raise _rule("Custom tools with a grammar format are not supported; only free-form "
                        "text custom tools are accepted.", "tools")
    if isinstance(data.get("input"), dict):
        data = {**data, "input": list(data["input"])}
    if data.get("prompt") is not None:
        raise _rule("prompt template is not supported", "prompt")
    if data.get("background") and not data.get("store", True):
        raise _rule("background can only be used when `store` is true", "background")
    _cache_salt(data)
    return data
