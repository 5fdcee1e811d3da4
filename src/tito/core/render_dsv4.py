"""DeepSeek-V4's chat encoding: template-ready messages -> prompt text (no Jinja template).

vLLM 0.33 renders a model whose ``config.json`` names ``DeepseekV4ForCausalLM`` or
``DeepseekV4ForConditionalGeneration`` with DeepSeek's own encoding (``tokenizer_mode``
``deepseek_v4``), whatever chat template the folder holds; tito does the same
(:attr:`tito.models.config.ModelConfig.native_renderer`). The messages are vLLM's conversation in
the ``openai`` content format (a content is a list of parts, null is ``[]``); the text is then
tokenized without special tokens added. Grammar of the prompt::

    prompt    := BOS [ EFFORT ] turn*
    system    := CONTENT [ "\\n\\n" TOOLS ] [ OPEN ]
    developer := "<｜User｜>" CONTENT [ "\\n\\n" TOOLS ] [ OPEN ]
    user      := "<｜User｜>" BLOCK ("\\n\\n" BLOCK)* [ OPEN ]
    BLOCK     := TEXT | "<tool_result>" RESULT "</tool_result>"
    reminder  := "<｜latest_reminder｜>" CONTENT
    assistant := [ REASONING "</think>" ] CONTENT [ "\\n\\n" CALLS ] "<｜end▁of▁sentence｜>" [ TASK ]
    OPEN      := "<｜Assistant｜>" ("<think>" | "</think>") | TASK
    CALLS     := the DSML block ``tool_calls`` (:mod:`tito.core.render_dsml`)

Rules (vLLM's, checked against its render server: ``tests/goldens/record_dsv32_render.py
--model dsv4``):

- Template kwargs: thinking is on unless ``thinking`` or ``enable_thinking`` is given (then it
  is on when either is truthy); ``reasoning_effort`` ``none`` turns it off; any other string is
  ``max``, ``low`` (``low`` / ``minimal`` / ``medium``) or ``high``, a non-string ``high``.
  In thinking mode the first message opens with the effort's fixed instructions (none for low).
  ``drop_thinking`` (default true) hides the history's reasoning.
- The request's tools go on the first system message (one of their own opens the prompt when
  there is none): the fixed instructions, then each function as JSON.
- Consecutive user and tool messages are one user turn: a tool message is a ``<tool_result>``
  block (a result of parts: their texts, a non-text part ``[Unsupported TYPE]``), a user message
  a text block (its parts joined by a blank line); a user message with a ``task`` starts a turn
  of its own and ends it. The results of a turn are sorted by the position of their
  ``tool_call_id`` among the calls of the last assistant message with calls (an unknown or
  missing id sorts as the first call; the sort is stable).
- Thinking mode, drop on and no message with tools: before the last user / developer turn,
  assistant messages lose their reasoning and messages of any role but user / system /
  latest_reminder / direct_search_results are dropped. An assistant message shows
  ``REASONING</think>`` in thinking mode when reasoning is kept or it follows that turn, and not
  after a message with a task.
- ``OPEN`` ends a message only when the next is an assistant's or a latest_reminder, or there is
  none: a task message ends with its token (``action``: ``<｜Assistant｜>``, the thinking token,
  ``<｜action｜>``); else a user / developer message, or a system message last or before an
  assistant's, ends with ``<｜Assistant｜>`` and ``<think>`` (thinking mode, at or after the last
  user turn or drop off) or ``</think>``. An assistant message last gets none:
  ``add_generation_prompt`` and ``continue_final_message`` change nothing.
- An empty conversation is the BOS alone.

A completions request with a ``suffix`` (fill in the middle) is :func:`fim_prompt`'s text
``<｜fim▁begin｜>PROMPT<｜fim▁hole｜>SUFFIX<｜fim▁end｜>`` per text prompt, tokenized as any
completion prompt (vLLM's DeepSeek-V4 renderer; the other renderers refuse a suffix).

Errors (:class:`DsEncodingError`, vLLM's words: a 400): a developer message without content, a
role the encoding does not know, an unknown task, a content part that is not text or image.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    last_user,
    text,
    to_json,
)

__all__ = ["DsEncodingError", "Mode", "encode", "mode_of", "result_block", "sort_results"]

REMINDER = "<｜latest_reminder｜>"
IMAGE = "<｜deepseek_image｜>"
#: the task tokens, in the order vLLM's error lists them
TASKS = {"action": "<｜action｜>", "query": "<｜query｜>", "title": "<｜title｜>",
         "read_url": "<｜read_url｜>", "domain": "<｜domain｜>", "authority": "<｜authority｜>"}
#: roles a dropped history keeps (besides user turns)
_KEPT = frozenset({"user", "system", "tool", "latest_reminder", "direct_search_results"})

#: the effort instructions opening a thinking prompt (DeepSeek-V4's, verbatim)
EFFORT_TEXT = {
    "low": "",
    "high": (
        "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
        "You MUST be very thorough in your thinking and comprehensively decompose the problem to "
        "resolve the root cause, rigorously stress-testing your logic against all potential "
        "paths, edge cases, and adversarial scenarios.\n"
        "Explicitly write out your entire deliberation process, documenting every intermediate "
        "step, considered alternative, and rejected hypothesis to ensure absolutely no "
        "assumption is left unchecked.\n\n"),
    "max": (
        "Reasoning Effort: Beyond maximum — exhaustive, relentless, and uncompromising.\n"
        "You MUST reason with the utmost depth and rigor, leaving absolutely nothing to chance: "
        "exhaustively decompose the problem into its most fundamental components, trace every "
        "causal chain to its root, and resolve the underlying cause rather than any surface "
        "symptom.\n"
        "Do not stop reasoning until you have independently verified the solution from multiple "
        "angles and are certain that no assumption remains unchecked and no error remains "
        "undiscovered.\n\n"),
}

#: the tools block's fixed text around the schemas (DeepSeek-V4's, verbatim)
_TOOLS_HEAD = (
    "## Tools\n\n"
    "You have access to a set of tools to help answer the user's question. You can invoke tools "
    f'by writing a "<{DSML}tool_calls>" block like the following:\n\n'
    f"<{DSML}tool_calls>\n"
    f'<{DSML}invoke name="$TOOL_NAME">\n'
    f'<{DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{DSML}parameter>\n'
    "...\n"
    f"</{DSML}invoke>\n"
    f'<{DSML}invoke name="$TOOL_NAME2">\n'
    "...\n"
    f"</{DSML}invoke>\n"
    f"</{DSML}tool_calls>\n\n"
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


@dataclass(frozen=True)
class Mode:
    """How a request's template kwargs set the encoding: thinking, its effort, the drop."""

    thinking: bool
    effort: str  # low | high | max
    drop_thinking: bool


def mode_of(kwargs: Mapping[str, Any]) -> Mode:
    """The encoding's mode from the effective template kwargs (rules in the docstring)."""
    thinking = bool(kwargs.get("thinking")) or bool(kwargs.get("enable_thinking"))
    if "thinking" not in kwargs and "enable_thinking" not in kwargs:
        thinking = True
    effort = kwargs.get("reasoning_effort")
    if not isinstance(effort, str):
        level = "high" if thinking else "low"
    elif effort == "none":
        thinking, level = False, "low"
    elif effort in ("max", "low"):
        level = effort
    else:
        level = "low" if effort in ("minimal", "medium") else "high"
    return Mode(thinking, level, bool(kwargs.get("drop_thinking", True)))


def encode(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
           mode: Mode) -> str:
    """The prompt text of ``messages`` (template-ready, ``openai`` content format, the developer
    role kept) and the request's ``tools`` (OpenAI's shape, as vLLM dumps them)."""
    msgs: list[Mapping[str, Any]] = list(messages)
    if tools:
        first = next((i for i, m in enumerate(msgs) if m.get("role") == "system"), None)
        if first is None:
            msgs.insert(0, {"role": "system", "tools": list(tools)})
        else:
            msgs[first] = {**msgs[first], "tools": list(tools)}
    turns = sort_results(_merge(msgs))
    drop = mode.drop_thinking and not any(turn.get("tools") for turn in turns)
    if mode.thinking and drop:
        turns = _drop_history(turns)
    last = last_user(turns)
    parts = [BOS]
    for index in range(len(turns)):
        if index == 0 and mode.thinking:
            parts.append(EFFORT_TEXT[mode.effort])
        parts.append(_turn(turns, index, last, mode.thinking, drop))
    return "".join(parts)


def _merge(msgs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """User and tool messages -> user turns with ``content_blocks`` (``text`` for a user's
    text, ``tool_result`` for a result)."""
    turns: list[Mapping[str, Any]] = []
    for msg in msgs:
        role = msg.get("role")
        open_user = (bool(turns) and turns[-1].get("role") == "user"
                     and "content_blocks" in turns[-1])
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": msg.get("tool_call_id", ""),
                     "content": msg.get("content")}
            if open_user:
                turns[-1]["content_blocks"].append(block)  # type: ignore[index]
            else:
                turns.append({"role": "user", "content_blocks": [block]})
        elif role == "user":
            block = {"type": "text", "text": _flatten(msg.get("content"))}
            if open_user and turns[-1].get("task") is None:
                turns[-1]["content_blocks"].append(block)  # type: ignore[index]
            else:
                turn: dict[str, Any] = {"role": "user", "content_blocks": [block]}
                if "task" in msg:
                    turn["task"] = msg["task"]
                turns.append(turn)
        else:
            turns.append(msg)
    return turns


def sort_results(turns: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each user turn's ``tool_result`` blocks in the order of the last calls before it (a
    stable sort of the turn's results only: n log n, not a scan per result); V4.1's too."""
    order: dict[Any, int] = {}
    for turn in turns:
        if turn.get("role") == "assistant" and turn.get("tool_calls"):
            order = {}
            for index, call in enumerate(turn["tool_calls"]):
                call_id = call.get("id") or (call.get("function") or {}).get("id", "")
                if call_id and isinstance(call_id, Hashable):
                    order[call_id] = index
        elif turn.get("role") == "user" and order and turn.get("content_blocks"):
            blocks = turn["content_blocks"]
            slots = [i for i, block in enumerate(blocks) if block.get("type") == "tool_result"]
            if len(slots) > 1:
                ranked = sorted((blocks[i] for i in slots), key=lambda b: _rank(order, b))
                for slot, block in zip(slots, ranked):
                    blocks[slot] = block
    return turns


def _rank(order: Mapping[Any, int], block: Mapping[str, Any]) -> int:
    call_id = block.get("tool_use_id", "")
    return order.get(call_id, 0) if isinstance(call_id, Hashable) else 0


def _drop_history(turns: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The history before the last user turn without reasoning, and without the messages of
    the roles it does not keep."""
    last = last_user(turns)
    kept: list[Mapping[str, Any]] = []
    for index, turn in enumerate(turns):
        role = turn.get("role")
        if role in _KEPT or index >= last:
            kept.append(turn)
        elif role == "assistant":
            kept.append({k: v for k, v in turn.items() if k != "reasoning"})
    return kept


def _flatten(content: Any) -> Any:
    """A content's parts as one text (joined by a blank line, an image its placeholder)."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        if not isinstance(part, Mapping):
            out.append(str(part))
        elif part.get("type") in ("image", "image_url"):
            out.append(IMAGE)
        elif part.get("type") == "text":
            out.append(part.get("text", ""))
        else:
            raise DsEncodingError(f"Unsupported content block type: {part.get('type')!r}")
    return join(out)  # (a text that is not a string: vLLM's 400 in Python's words)


def result_block(content: Any) -> str:
    """A tool result (of parts: their texts, a non-text part ``[Unsupported TYPE]``)."""
    if isinstance(content, list):
        content = join([part.get("text", "") if part.get("type") == "text"
                        else f"[Unsupported {part.get('type')}]" for part in content])
    return f"<tool_result>{text(content)}</tool_result>"


def _tools_block(tools: Sequence[Mapping[str, Any]]) -> str:
    functions = []
    for tool in tools:
        if not isinstance(tool, Mapping) or "function" not in tool:
            raise DsEncodingError("a tool must have a function")
        functions.append(to_json(tool["function"]))
    return _TOOLS_HEAD + "\n".join(functions) + _TOOLS_TAIL


def _turn(turns: Sequence[Mapping[str, Any]], index: int, last: int, thinking: bool,
          drop: bool) -> str:
    msg = turns[index]
    role = msg.get("role")
    content = _flatten(msg.get("content"))
    if role in ("system", "developer"):
        if role == "developer" and not content:
            raise DsEncodingError(f"Invalid message for role `{role}`: {dict(msg)}")
        out = (USER + text(content)) if role == "developer" else text(content or "")
        if msg.get("tools"):
            out += "\n\n" + _tools_block(msg["tools"])
    elif role == "user":
        out = USER + join([text(block["text"]) if block["type"] == "text"
                           else result_block(block["content"]) for block in msg["content_blocks"]])
    elif role == "latest_reminder":
        out = REMINDER + text(content)
    elif role == "assistant":
        calls = msg.get("tool_calls")
        thought = ""
        after_task = index > 0 and turns[index - 1].get("task") is not None
        if thinking and not after_task and (not drop or index > last):
            thought = text(msg.get("reasoning") or "") + THINK_END
        block = "\n\n" + calls_block(calls, "tool_calls") if calls else ""
        out = thought + text(content or "") + block + EOS
    else:
        raise DsEncodingError(f"Invalid role: {role}")
    following = turns[index + 1].get("role") if index + 1 < len(turns) else None
    if index + 1 < len(turns) and following not in ("assistant", "latest_reminder"):
        return out
    task = msg.get("task")
    if task is not None:
        if task not in TASKS:
            raise DsEncodingError(f"Invalid task: '{task}'. Valid tasks are: {list(TASKS)}")
        if task == "action":
            return out + ASSISTANT + (THINK_START if thinking else THINK_END) + TASKS[task]
        return out + TASKS[task]
    if role in ("user", "developer") or (role == "system" and following in (None, "assistant")):
        out += ASSISTANT + (THINK_START if thinking and (not drop or index >= last)
                            else THINK_END)
    return out


def fim_prompt(prompt: str, suffix: str) -> str:
    """The fill-in-the-middle prompt DeepSeek-V4 completes a ``suffix`` request with: the text
    before the hole, the hole, the text after it (the model writes the middle)."""
    return f"<｜fim▁begin｜>{prompt}<｜fim▁hole｜>{suffix}<｜fim▁end｜>"
