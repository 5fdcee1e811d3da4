"""DeepSeek-V4.1's chat encoding: the request's messages -> prompt text (no Jinja template).

vLLM 0.33 renders a model whose ``config.json`` names ``DeepseekV41ForCausalLM`` with DeepSeek's
own encoding (``tokenizer_mode`` ``deepseek_v41``), whatever chat template the folder holds;
tito does the same (:attr:`tito.models.config.ModelConfig.native_renderer`). Unlike V3.2 and
V4 it reads the request's messages as sent (every key: ``content_blocks``, ``wo_eos``,
``response_format``, ``task``... ride along), but for the calls' arguments, which vLLM's
conversation parse has already rewritten in place (a JSON object, else ``{}``). The text is then
tokenized without special tokens added. Grammar of the prompt::

    prompt    := BOS turn*
    first     := [ "<｜System｜>" [ EFFORT ] ]   (thinking, or a system message first)
    system    := [ "<｜System｜>" ] CONTENT [ "\\n\\n" TOOLS ] [ "\\n\\n" FORMAT ] [ OPEN ]
    developer := "<｜User｜>" CONTENT [ "\\n\\n" TOOLS ] [ "\\n\\n" FORMAT ] [ OPEN ]
    user      := "<｜User｜>" BLOCK ("\\n\\n" BLOCK)* [ OPEN ]
    assistant := [ REASONING "</think>" ] CONTENT [ "\\n\\n" CALLS ] [ "<｜end▁of▁sentence｜>" ] [ TASK ]
    EFFORT    := "Reasoning Effort: N (range 1-100, the higher the value, the more thorough the
                 reasoning)\\n\\n"
    CALLS     := the DSML block, tags `` calls`` / `` invoke`` / `` parameter``

Rules (vLLM's, checked against its render server: ``tests/goldens/record_dsv32_render.py
--model dsv41``); what is not listed is DeepSeek-V4's (:mod:`tito.core.render_dsv4`: merged user
turns, sorted results, tasks, the history drop, when ``OPEN`` is written):

- Roles: system, developer, user, assistant, tool only. ``reasoning`` is copied over
  ``reasoning_content`` (which the encoding reads). A content list becomes its parts' texts
  joined by a blank line (``text`` / ``input_text`` / ``output_text``; an image its
  placeholder); another part type, or the image placeholder written in a text, is refused.
- Template kwargs: thinking as V4's; ``reasoning_effort`` (default ``high``) is ``none``
  (thinking off), ``low`` (50), ``high`` / ``xhigh`` (75), ``max`` (100) or an integer 1-100, else
  refused (even with thinking off; ``minimal`` / ``medium`` too). ``EFFORT`` opens a thinking
  prompt after ``<｜System｜>``, which also opens a prompt whose first message is a system's.
- A system message after the first is ``<｜System｜>`` CONTENT, counts as a user turn for the
  history drop and the opener, and gets ``OPEN`` as a user message does; the first system
  message never does. A user turn of results only is not the last user turn.
- A user message's own ``content_blocks`` replace its content; ``wo_eos`` drops an assistant's
  EOS; a message's ``response_format`` is written as JSON after a fixed heading.
- The request's tools go on the first system message (one with empty content opens the prompt
  when there is none). An empty conversation is the BOS alone.
- Images: :attr:`Prompt.images` counts the placeholders of the turns written, as vLLM's
  ``image_order`` collects them (the images it then keeps for its multimodal processor): a
  message's own, but a user turn's from its ``text`` / ``tool_result`` blocks only (a user's own
  ``content_blocks`` carry none), none of a message the history drop removes.

Errors (:class:`DsEncodingError`, a 400): the ones above, a developer message without content
and an unknown task (vLLM fails these with a 500: its encoder asserts), a non-text piece joined,
a written message's truthy ``tools`` / ``tool_calls`` not in OpenAI's shape, whatever its role
(vLLM converts them all: a TypeError is its 400 with Python's words, a missing key its 500).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from tito.core.render_dsml import (
    ASSISTANT,
    BOS,
    DSML,
    EOS,
    THINK_END,
    THINK_START,
    USER,
    DsEncodingError,
    calls_block,
    join,
    text,
    to_json,
)
from tito.core.render_dsv4 import IMAGE, TASKS, result_block, sort_results
from tito.core.render_messages import TokenizeMessages, with_sent_calls

__all__ = ["IMAGE", "DsEncodingError", "Mode", "Prompt", "encode", "mode_of", "tokenize_messages"]

SYSTEM = "<｜System｜>"
_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_KEPT = frozenset({"user", "system", "tool", "latest_reminder", "direct_search_results"})
EFFORTS = {"low": 50, "high": 75, "xhigh": 75, "max": 100}
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_IMAGE_PARTS = frozenset({"image_url", "input_image", "image_pil"})
_CALLS, _INVOKE, _PARAMETER = " calls", " invoke", " parameter"
#: the key of a message's (or a block's tito made) image count; a request's own value of it is
#: overwritten (a message) or dropped (a user's own ``content_blocks``)
_IMAGES = "_tito_images"
_IMAGE_BLOCKS = frozenset({"text", "tool_result"})

#: the tools block's fixed text around the schemas (DeepSeek-V4.1's, verbatim)
_TOOLS_HEAD = (
    "## Tools\n\n"
    "You have access to a set of tools to help answer the user's question. You can invoke tools "
    f'by writing a "<{DSML}{_CALLS}>" block like the following:\n\n'
    f"<{DSML}{_CALLS}>\n"
    f'<{DSML}{_INVOKE} name="$TOOL_NAME">\n'
    f'<{DSML}{_PARAMETER} name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE'
    f"</{DSML}{_PARAMETER}>\n"
    "...\n"
    f"</{DSML}{_INVOKE}>\n"
    f'<{DSML}{_INVOKE} name="$TOOL_NAME2">\n'
    "...\n"
    f"</{DSML}{_INVOKE}>\n"
    f"</{DSML}{_CALLS}>\n\n"
    'String parameters should be specified as is and set `string="true"`. For all other types '
    '(numbers, booleans, arrays, objects), pass the value in JSON format and set `string="false"`.'
    "\n\n"
    f"If thinking_mode is enabled (triggered by {THINK_START}), you MUST output your complete "
    f"reasoning inside {THINK_START}...{THINK_END} BEFORE any tool calls or final response.\n\n"
    f"Otherwise, output directly after {THINK_END} with tool calls or final response.\n\n"
    "### Available Tool Schemas\n\n"
)
_TOOLS_TAIL = ("\n\nYou MUST strictly follow the above defined tool name and parameter schemas "
               "to invoke tool calls.\n")
_FORMAT_HEAD = "## Response Format:\n\nYou MUST strictly adhere to the following schema to reply:\n"


@dataclass(frozen=True)
class Mode:
    """How a request's template kwargs set the encoding: thinking, its effort (1-100), the
    drop."""

    thinking: bool
    effort: int
    drop_thinking: bool


class Prompt(NamedTuple):
    """The prompt text, and how many image placeholders of image parts it holds (vLLM's
    ``image_order``: with any, vLLM hands the images to the model's multimodal processor)."""

    text: str
    images: int


def mode_of(kwargs: Mapping[str, Any]) -> Mode:
    """The encoding's mode from the effective template kwargs; an effort it does not know is a
    :class:`DsEncodingError` (vLLM's words)."""
    thinking = bool(kwargs.get("thinking") or kwargs.get("enable_thinking"))
    if "thinking" not in kwargs and "enable_thinking" not in kwargs:
        thinking = True
    effort = kwargs.get("reasoning_effort")
    if isinstance(effort, str) and effort == "none":
        thinking, effort = False, None
    if effort is None:
        effort = "high"
    if type(effort) is int and 1 <= effort <= 100:
        budget = effort
    elif isinstance(effort, str) and effort in EFFORTS:
        budget = EFFORTS[effort]
    else:
        raise DsEncodingError(
            "DeepSeek V4.1 reasoning_effort must be low, high, xhigh, max, or an integer within "
            "[1, 100] in chat_template_kwargs")
    return Mode(thinking, budget, bool(kwargs.get("drop_thinking", True)))


def encode(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
           kwargs: Mapping[str, Any]) -> Prompt:
    """The prompt of the request's ``messages`` (as sent, the calls' arguments parsed) and its
    ``tools`` (OpenAI's shape, as vLLM dumps them), in the mode of the template ``kwargs``."""
    msgs = [_message(msg) for msg in messages]
    mode = mode_of(kwargs)
    if tools:
        first = next((i for i, m in enumerate(msgs) if m.get("role") == "system"), None)
        if first is None:
            msgs.insert(0, {"role": "system", "content": "", "tools": list(tools)})
        else:
            msgs[first]["tools"] = list(tools)
    turns = sort_results(_merge(msgs))
    drop = mode.drop_thinking and not any(turn.get("tools") for turn in turns)
    if mode.thinking and drop:
        turns = _drop_history(turns)
    last = _last_user(turns)
    text = BOS + "".join(_turn(turns, index, last, mode, drop) for index in range(len(turns)))
    return Prompt(text, sum(map(_images, turns)))


def _images(turn: Mapping[str, Any]) -> int:
    """The image placeholders of a turn written (vLLM's ``render_message``)."""
    blocks = turn.get("content_blocks")
    if turn.get("role") == "user" and blocks:
        return sum(b.get(_IMAGES, 0) for b in blocks if b.get("type") in _IMAGE_BLOCKS)
    return int(turn.get(_IMAGES, 0))


def _no_image_token(value: Any) -> None:
    if isinstance(value, str) and IMAGE in value:
        raise DsEncodingError(f"Message text contains image special token {IMAGE!r}; provide "
                              "images as image content parts.")


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message as the encoding reads it: its role checked, ``reasoning`` under
    ``reasoning_content``, a content list flattened to text."""
    role = message.get("role")
    if role not in _ROLES:
        raise DsEncodingError(f"Invalid role: {role}")
    msg = dict(message)
    msg[_IMAGES] = 0
    if "reasoning" in msg:
        msg["reasoning_content"] = msg["reasoning"]
    _no_image_token(msg.get("reasoning_content"))
    content = msg.get("content")
    if isinstance(content, str):
        _no_image_token(content)
    elif isinstance(content, list):
        parts = []
        for part in content:
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind in _TEXT_PARTS:
                _no_image_token(part.get("text"))
                parts.append(part.get("text", ""))
            elif kind in _IMAGE_PARTS:
                parts.append(IMAGE)
                msg[_IMAGES] += 1
            else:
                raise DsEncodingError("DeepSeek V4.1 supports text and image content only; "
                                      f"got {kind!r}")
        msg["content"] = join(parts)
    return msg


def _merge(msgs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """User and tool messages -> user turns with ``content_blocks`` (a user's own, else its
    content as a ``text`` block; a tool's a ``tool_result``)."""
    turns: list[dict[str, Any]] = []
    for msg in msgs:
        role = msg.get("role")
        open_user = (bool(turns) and turns[-1].get("role") == "user"
                     and "content_blocks" in turns[-1])
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": msg.get("tool_call_id", ""),
                     "content": msg.get("content", ""), _IMAGES: msg[_IMAGES]}
            if open_user:
                turns[-1]["content_blocks"].append(block)
            else:
                turns.append({"role": "user", "content_blocks": [block]})
        elif role == "user":
            blocks = msg.get("content_blocks")
            if blocks is None:
                blocks = [{"type": "text", "text": msg.get("content", ""), _IMAGES: msg[_IMAGES]}]
            elif not isinstance(blocks, list) or not all(isinstance(b, Mapping) for b in blocks):
                raise DsEncodingError("content_blocks must be a list of objects")
            else:
                blocks = [{k: v for k, v in b.items() if k != _IMAGES} for b in blocks]
            if open_user and turns[-1].get("task") is None:
                turns[-1]["content_blocks"].extend(blocks)
            else:
                turns.append({**msg, "content_blocks": list(blocks)})
        else:
            turns.append(msg)
    return turns


def _last_user(turns: Sequence[Mapping[str, Any]]) -> int:
    """The last user / developer turn, or system message after the first, that is not results
    only (-1: none)."""
    for index in range(len(turns) - 1, -1, -1):
        role = turns[index].get("role")
        if role in ("user", "developer") or (role == "system" and index > 0):
            blocks = turns[index].get("content_blocks")
            if blocks and isinstance(blocks, list) and not any(
                    isinstance(b, Mapping) and b.get("type") in ("text", "image", "image_url")
                    for b in blocks):
                continue
            return index
    return -1


def _drop_history(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = _last_user(turns)
    kept: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        role = turn.get("role")
        if role in _KEPT or index >= last:
            kept.append(turn)
        elif role == "assistant":
            kept.append({k: v for k, v in turn.items() if k != "reasoning_content"})
    return kept


def _extras(msg: Mapping[str, Any]) -> str:
    """A system / developer message's tools and response format."""
    out = ""
    if msg.get("tools"):
        functions = [to_json(tool["function"]) for tool in msg["tools"]]  # (_openai_shapes)
        out += "\n\n" + _TOOLS_HEAD + "\n".join(functions) + _TOOLS_TAIL
    if msg.get("response_format"):
        out += "\n\n" + _FORMAT_HEAD + to_json(msg["response_format"])
    return out


def _block(block: Mapping[str, Any]) -> Any:
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind == "tool_result":
        return result_block(block.get("content", ""))
    return f"[Unsupported {kind}]"


def tokenize_messages(body: Sequence[Any], messages: list[dict[str, Any]],
                      sent_calls: Mapping[int, Any]) -> TokenizeMessages:
    """This encoding's ``/tokenize`` fix-up (:class:`~tito.core.render_messages.TokenizeMessages`):
    the calls a non-tool message of an OpenAI type without them was sent with, put back as sent
    (:func:`~tito.core.render_messages.with_sent_calls`): vLLM's encoder reads the body's
    (:func:`_openai_shapes`); a tool message's are gone, merged into a user turn."""
    return TokenizeMessages(with_sent_calls(messages, sent_calls, skip_tool=True))


def _openai_shapes(msg: Mapping[str, Any]) -> None:
    """vLLM's encoder converts any written message's truthy ``tools`` and ``tool_calls`` from
    OpenAI's shape (each tool's ``function``, each call's function ``name`` and ``arguments``),
    whatever its role reads: a user's ``tool_calls: "x"`` is its TypeError 400 (its words); a
    missing key its KeyError 500, tito's 400."""
    try:
        if msg.get("tools"):
            for tool in msg["tools"]:
                tool["function"]
        if msg.get("tool_calls"):
            for call in msg["tool_calls"]:
                call["function"]["name"], call["function"]["arguments"]
    except TypeError as exc:
        raise DsEncodingError(str(exc)) from None
    except KeyError as exc:
        raise DsEncodingError(f"a tool or tool call misses its {exc}") from None


def _turn(turns: Sequence[Mapping[str, Any]], index: int, last: int, mode: Mode,
          drop: bool) -> str:
    msg = turns[index]
    _openai_shapes(msg)
    role, content = msg.get("role"), msg.get("content")
    effort = (f"Reasoning Effort: {mode.effort} (range 1-100, the higher the value, the more "
              "thorough the reasoning)\n\n") if index == 0 and mode.thinking else ""
    out = (SYSTEM if index == 0 and (effort or role == "system") else "") + effort
    if role == "system":
        out += (SYSTEM if index > 0 else "") + text(content or "") + _extras(msg)
    elif role == "developer":
        if not content:
            raise DsEncodingError(f"Invalid message for role `{role}`: "
                                  f"{ {k: v for k, v in msg.items() if k != _IMAGES} }")
        out += USER + text(content) + _extras(msg)
    elif role == "user":
        blocks = msg.get("content_blocks")
        out += USER + (join([_block(b) for b in blocks]) if blocks else text(content or ""))
    else:  # assistant (the roles are checked)
        calls = msg.get("tool_calls")
        after_task = index > 0 and turns[index - 1].get("task") is not None
        if mode.thinking and not after_task and (not drop or index > last):
            out += text(msg.get("reasoning_content") or "") + THINK_END
        out += text(content or "")
        if calls:
            out += "\n\n" + calls_block(calls, _CALLS, _INVOKE, _PARAMETER)
        out += "" if msg.get("wo_eos", False) else EOS
    following = turns[index + 1].get("role") if index + 1 < len(turns) else None
    if index + 1 < len(turns) and following not in ("assistant", "latest_reminder"):
        return out
    task = msg.get("task")
    if task is not None:
        if not isinstance(task, str) or task not in TASKS:
            raise DsEncodingError(f"Invalid task: '{task}'. Valid tasks are: {list(TASKS)}")
        if task == "action":
            return out + ASSISTANT + (THINK_START if mode.thinking else THINK_END) + TASKS[task]
        return out + TASKS[task]
    if role in ("user", "developer") or (role == "system" and index > 0):
        out += ASSISTANT + (THINK_START if mode.thinking and (not drop or index >= last)
                            else THINK_END)
    return out
