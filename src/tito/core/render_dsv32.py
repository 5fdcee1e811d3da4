"""DeepSeek-V3.2's chat encoding: template-ready messages -> prompt text (no Jinja template).

vLLM 0.33 renders a model whose ``config.json`` names ``DeepseekV32ForCausalLM`` with DeepSeek's
own encoding (``tokenizer_mode`` ``deepseek_v32``), whatever chat template the folder holds;
tito does the same (:attr:`tito.models.config.ModelConfig.native_renderer`). The text is then
tokenized without special tokens added. Grammar of the prompt::

    prompt    := BOS message*
    system    := CONTENT [ "\\n\\n" TOOLS ]
    user      := "<｜User｜>" CONTENT "<｜Assistant｜>" THINK
    developer := "<｜User｜>" [ "\\n\\n" TOOLS ] "\\n\\n# The user's message is: " CONTENT
                 "<｜Assistant｜>" THINK
    assistant := [ REASONING "</think>" ] CONTENT [ "\\n\\n" CALLS ] "<｜end▁of▁sentence｜>"
    tool      := [ "\\n\\n<function_results>" ] "\\n<result>" CONTENT "</result>"
                 [ "\\n</function_results>\\n\\n" THINK ]
    CALLS     := "<｜DSML｜function_calls>\\n" INVOKE ("\\n" INVOKE)* "\\n</｜DSML｜function_calls>"
    INVOKE    := '<｜DSML｜invoke name="N">\\n' PARAM ("\\n" PARAM)* '\\n</｜DSML｜invoke>'
    PARAM     := '<｜DSML｜parameter name="K" string="true|false">' V "</｜DSML｜parameter>"

Rules (vLLM's, checked against its render server: ``tests/goldens/record_dsv32_render.py``):

- Thinking mode is on with the template kwarg ``thinking`` or ``enable_thinking``. ``THINK`` is
  ``<think>`` for the last user / developer message in thinking mode (for a tool message: at or
  after it), else ``</think>``; an assistant message after it carries its ``REASONING`` (and must
  have reasoning or calls); earlier assistant messages never show their reasoning.
- The request's tools open the prompt as a system message of their own (``TOOLS``: the fixed
  instructions, then each function as JSON, ``json.dumps`` spacing, unescaped).
- A tool message follows its assistant's calls: the first opens ``<function_results>``, the one
  answering the last call closes it; one more result than calls is an error.
- In thinking mode, when the last message is a user's, the history before the last user /
  developer message loses its reasoning, and its developer messages are dropped, which leaves
  the encoding short of messages: vLLM then refuses the request ("Index N out of range"), and so
  does tito (a DeepSeek bug kept for conformance; without developer messages nothing changes).
- An argument value is written as it is when a string (``string="true"``), else as JSON;
  a call's arguments are a JSON object (template-ready messages carry them parsed).
- No generation prompt switch: the user turn always ends with the assistant's opener.

Errors are :class:`DsEncodingError` with vLLM's words (a 400 for the request). The tokens,
values and call blocks are :mod:`tito.core.render_dsml`'s (shared with DeepSeek-V4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tito.core.render_dsml import (
    ASSISTANT,
    BOS,
    EOS,
    THINK_END,
    THINK_START,
    USER,
    DsEncodingError,
    calls_block,
)
from tito.core.render_dsml import DSML as _D
from tito.core.render_dsml import last_user as _last_user
from tito.core.render_dsml import text as _text
from tito.core.render_dsml import to_json as _json

__all__ = ["DsEncodingError", "encode"]

#: the tools block's fixed text (DeepSeek-V3.2's encoding, verbatim: the model was trained on it)
_TOOLS_HEAD = (
    "## Tools\n"
    "You have access to a set of tools you can use to answer the user's question.\n"
    f'You can invoke functions by writing a "<{_D}function_calls>" block like the following as '
    "part of your reply to the user:\n"
    f"<{_D}function_calls>\n"
    f'<{_D}invoke name="$FUNCTION_NAME">\n'
    f'<{_D}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{_D}parameter>\n'
    "...\n"
    f"</{_D}invoke>\n"
    f'<{_D}invoke name="$FUNCTION_NAME2">\n'
    "...\n"
    f"</{_D}invoke>\n"
    f"</{_D}function_calls>\n"
    "String and scalar parameters should be specified as is without any escaping or quotes, "
    "while lists and objects should use JSON format. The \"string\" attribute should be set to "
    "\"true\" for string type parameters and \"false\" for other types (numbers, booleans, "
    "arrays, objects).\n"
    "If the thinking_mode is enabled, then after function results you should strongly consider "
    "outputting a thinking block. Here is an example:\n"
    f"<{_D}function_calls>\n"
    "...\n"
    f"</{_D}function_calls>\n"
    "<function_results>\n"
    "...\n"
    "</function_results>\n"
    f"{THINK_START}...thinking about results{THINK_END}\n"
    "Here are the functions available in JSONSchema format:\n"
    "<functions>\n"
)


def encode(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
           *, thinking: bool) -> str:
    """The prompt text of ``messages`` (template-ready: :func:`tito.core.render_messages.
    normalize_messages` with the developer role kept) and the request's ``tools`` (OpenAI's
    shape, as vLLM dumps them)."""
    msgs: list[Mapping[str, Any]] = list(messages)
    if tools:
        msgs.insert(0, {"role": "system", "content": None, "tools": list(tools)})
    count = len(msgs)
    if thinking and msgs and msgs[-1].get("role") == "user":
        msgs = _drop_thinking(msgs)
    last_user = _last_user(msgs)
    parts = [BOS]
    owner = -1  # the last message before this one that is not a tool's (-1: none)
    for index in range(count):
        if index >= len(msgs):  # (developer messages dropped: DeepSeek's encoding fails here)
            raise DsEncodingError(
                f"Index {index} out of range for messages list of length {len(msgs)}")
        if msgs[index].get("role") == "tool":
            parts.append(_tool_result(msgs, index, owner, last_user, thinking))
        else:
            parts.append(_message(msgs, index, last_user, thinking))
            owner = index
    return "".join(parts)


def _drop_thinking(msgs: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The history before the last user / developer message without reasoning (and without
    its developer messages, as DeepSeek's encoding drops them)."""
    last_user = _last_user(msgs)
    kept: list[Mapping[str, Any]] = []
    for index, msg in enumerate(msgs):
        role = msg.get("role")
        if role in ("user", "system", "tool") or index >= last_user:
            kept.append(msg)
        elif role == "assistant":
            kept.append({k: v for k, v in msg.items() if k != "reasoning"})
    return kept


def _think(on: bool) -> str:
    return THINK_START if on else THINK_END


def _message(msgs: Sequence[Mapping[str, Any]], index: int, last_user: int,
             thinking: bool) -> str:
    msg = msgs[index]
    role, content = msg.get("role"), msg.get("content")
    if role == "system":
        out = "" if content is None else _text(content)
        if msg.get("tools"):
            out += "\n\n" + _tools_block(msg["tools"])
        return out
    if role == "developer":
        if not content:
            raise DsEncodingError(f"Invalid message for role `{role}`: {dict(msg)}")
        body = "\n\n" + _tools_block(msg["tools"]) if msg.get("tools") else ""
        body += f"\n\n# The user's message is: {_text(content)}"
        return USER + body + ASSISTANT + _think(index == last_user and thinking)
    if role == "user":
        return USER + _text(content) + ASSISTANT + _think(index == last_user and thinking)
    if role == "assistant":
        calls = msg.get("tool_calls") or []
        reasoning = msg.get("reasoning")
        thought = ""
        if thinking and index > last_user:
            if not (reasoning or calls):
                raise DsEncodingError(
                    f"ThinkingMode: thinking, invalid message without reasoning/tool_calls "
                    f"`{dict(msg)}` after last user message")
            thought = (reasoning or "") + THINK_END
        block = "\n\n" + calls_block(calls, "function_calls") if calls else ""
        return thought + ("" if content is None else _text(content)) + block + EOS
    raise DsEncodingError(f"Invalid role: {role}")


def _tool_result(msgs: Sequence[Mapping[str, Any]], index: int, prev: int, last_user: int,
                 thinking: bool) -> str:
    """A tool message: its place among the results of the message ``prev`` (the last before
    it that is not a tool's, found by the caller in one pass: a run of n results costs O(n),
    not DeepSeek's backward scan per result; -1 reads the last message, as Python's indexing
    made DeepSeek's read it)."""
    owner = msgs[prev]
    if not (index == 0 or (prev >= 0 and owner.get("role") == "assistant")):
        raise DsEncodingError(f"Invalid messages at {index}:\n{dict(owner)}")
    order = index - prev
    calls = owner.get("tool_calls") or []
    if len(calls) < order:
        raise DsEncodingError("No tool calls but found tool output")
    out = "\n\n<function_results>" if order == 1 else ""
    out += f"\n<result>{_text(msgs[index].get('content'))}</result>"
    if order == len(calls):
        out += "\n</function_results>\n\n" + _think(index >= last_user and thinking)
    return out


def _tools_block(tools: Sequence[Mapping[str, Any]]) -> str:
    return _TOOLS_HEAD + "\n".join(_json(tool["function"]) for tool in tools) + "\n</functions>\n"
