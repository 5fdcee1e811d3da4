"""The labels of ``fuzz_render.py``'s cases: the intended deviations (``deviations.py``, case
``*.<label>*``) a case runs into, decided from its request alone, so that they become part of
its name.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance.fuzz_render_values import (  # noqa: E402
    CHAT_R, CMPL_R, MSG_R, RESP_R, VOCAB)
from tito.core.message_union import custom_typed  # noqa: E402
from tito.service.render_chat_parts import lazy_content  # noqa: E402

#: the servers whose reasoning parser scans the whole prompt for its markers (vLLM's
#: deepseek_v4 / deepseek_v41: no turn boundary tokens), where tito's scan stops at the newest
#: special token
WHOLE_PROMPT_SCAN = ("dsv4", "dsv41")
#: the special token of their (Qwen3's) vocabulary the value pools write in message text
SPECIAL_TEXT = "<|im_end|>"
#: an image part or block of any API (chat, Responses, Messages; a DeepSeek-V4.1 one the
#: prompt may leave out: ``.image41``)
IMAGE_PART = re.compile(r'"type": "(image|image_url|input_image)"')
#: gpt-oss's built-in tool types (and mcp): a required or named choice with one is a deviation
HARMONY_HOSTED = ("code_interpreter", "web_search_preview", "container", "mcp")


def _ids_past(values: Any, vocab: int) -> bool:
    """Whether ``values`` (ids, lists of ids, or a logit_bias object) hold an id outside
    ``[0, vocab)``."""
    if isinstance(values, dict):
        values = [k for k in values if isinstance(k, str) and k.lstrip("-").isdigit()]
        values = [int(k) for k in values]
    if not isinstance(values, list):
        return False
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    return any(type(x) is int and not 0 <= x < vocab for x in flat)


def _messages_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    msgs = body.get("messages")
    return [m for m in msgs if isinstance(m, dict)] if isinstance(msgs, list) else []


def _renamed(msg: dict[str, Any]) -> dict[str, Any]:
    """``msg`` as vLLM's chat body holds it: a non-null ``reasoning_content`` renamed to
    ``reasoning`` (kept when that is set), as ``tito.protocol.raw_rules`` does."""
    if msg.get("reasoning_content") is None:
        return msg
    out = {k: v for k, v in msg.items() if k != "reasoning_content"}
    if out.get("reasoning") is None:
        out["reasoning"] = msg["reasoning_content"]
    return out


def _tool_results(path: str, body: dict[str, Any], msgs: list[dict[str, Any]]) -> bool:
    """Whether the conversation holds a tool result: a tool message, a Responses tool output
    item (found by seed 336) or a Messages ``tool_result`` block, each a tool turn for the
    template."""
    if path == RESP_R:
        items = body.get("input")
        return isinstance(items, list) and any(
            isinstance(i, dict) and i.get("type") in ("function_call_output",
                                                       "custom_tool_call_output") for i in items)
    if path == MSG_R:
        return any(isinstance(b, dict) and b.get("type") == "tool_result"
                   for m in msgs if isinstance(m.get("content"), list) for b in m["content"])
    return any(m.get("role") == "tool" for m in msgs)


def _lazy_calls(message: dict[str, Any]) -> bool:
    """Whether vLLM's ``/tokenize`` body leaves this assistant's calls an unread iterable (its
    body does not list them): pydantic's union types the message as OpenAI's
    (``custom_typed`` false; the calls count in vLLM's own type only, five fields a call, so
    ``tool_calls: []`` ties to OpenAI's whatever unknown keys the message carries, one call
    does not; s433-111, ``render_fuzz_lazy_calls.json``)."""
    return message.get("role") == "assistant" and "tool_calls" in message \
        and not custom_typed(message)


def labels(server: str, path: str, body: dict[str, Any]) -> list[str]:
    """The intended deviations (``replay.DEVIATIONS``, case ``*.<label>*``) a case runs into,
    decided from the request alone: they become part of its name."""
    out = []
    vocab = VOCAB[server]
    if any(_ids_past(body.get(k), vocab) for k in ("stop_token_ids", "allowed_token_ids",
                                                    "logprob_token_ids", "logit_bias")) or (
            path == CMPL_R and _ids_past(body.get("prompt"), vocab)):
        out.append("oov")
    counts = [body.get(k) for k in ("top_logprobs", "prompt_logprobs")]
    if path == CMPL_R:
        counts.append(body.get("logprobs"))
    if any(type(c) is int and (c > 20 or c == -1 or path == RESP_R and c < 0) for c in counts):
        out.append("logprobs_bound")
    stop = body.get("stop_sequences" if path == MSG_R else "stop")
    if isinstance(stop, list) and len(stop) > 4:
        out.append("stop_many")
    msgs = _messages_of(body)
    if any(isinstance(m.get("content"), list) and any(
            isinstance(p, str) or isinstance(p, dict) and p.get("type") in (
                "input_text", "output_text") for p in m["content"]) for m in msgs):
        out.append("bare_parts")
    if body.get("allowed_token_ids") == []:
        out.append("allowed_empty")
    if path in (CHAT_R, MSG_R) and server == "gpt-oss" and any(
            type(body.get(k)) is int and body[k] > 131072
            for k in ("max_tokens", "max_completion_tokens")):
        out.append("gptoss_max")
    if body.get("kv_transfer_params"):
        out.append("kv")
    if server == "mistral-v3-hf" and _tool_results(path, body, msgs):
        out.append("fromjson")
    choice, tools = body.get("tool_choice"), body.get("tools")
    if path == RESP_R and server == "gpt-oss" and isinstance(tools, list) and any(
            isinstance(t, dict) and t.get("type") in HARMONY_HOSTED for t in tools) and (
            choice == "required" or isinstance(choice, dict)
            and choice.get("type") in ("function", "custom")):
        out.append("harmony_hosted")
    if path == RESP_R and server == "mistral-v3-hf":
        out.append("bos_template")
    if path == "/detokenize" and server == "mistral-v3":
        out.append("mistral")
    if server in WHOLE_PROMPT_SCAN and SPECIAL_TEXT in json.dumps(msgs):
        out.append("special_turn")
    # (the chat body renames a non-null reasoning_content to reasoning first, so a
    # `reasoning_content: 3` makes the custom type refuse the message: seed 506 case 134)
    body_msgs = [_renamed(m) for m in msgs] if path == CHAT_R else msgs
    if server == "dsv41" and path in (CHAT_R, "/tokenize") and (
            any(map(lazy_content, body_msgs)) or (
                path == "/tokenize" and any(map(_lazy_calls, msgs)))):
        out.append("lazy_copy")
    items = body.get("input") if path == RESP_R and isinstance(body.get("input"), list) else []
    if server == "dsv41" and any(isinstance(i, dict) and i.get("type") == "custom_tool_call_output"
                                 and isinstance(i.get("output"), (list, dict)) for i in items):
        out.append("lazy_copy")  # (its output an openai Iterable, a list or an object's keys:
        # the tool message's content)
    if server == "dsv41" and path in (CHAT_R, "/tokenize") and any(
            m.get("role") == "developer" or "content_blocks" in m
            for m in msgs if IMAGE_PART.search(json.dumps(m))):
        out.append("image41")
    return out
