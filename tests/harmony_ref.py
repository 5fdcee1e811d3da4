"""The reference for harmony tests: openai-harmony (PyPI), offline.

openai-harmony reads ``$TIKTOKEN_ENCODINGS_BASE/o200k_base.tiktoken`` (else downloads it) and
checks its sha256. The file is rebuilt here from gpt-oss's ``tokenizer.json``: one line per id
0..199997, base64 of the token's bytes (the byte-level string mapped back through GPT-2's byte
table), a space, the id. The library adds the harmony special tokens itself.

``vllm_conversation`` mirrors, with openai-harmony's own objects, what vLLM 0.33's
``_make_request_with_harmony`` does (``harmony_utils.py``); ``tests/fixtures/harmony_render.json``
holds ids recorded from vLLM itself (``tests/record_harmony_goldens.py``), so this mirror is
checked against vLLM too.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
from functools import lru_cache
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
GPT_OSS = ROOT / "layers" / "tokenizer" / "models" / "gpt-oss"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _byte_decoder() -> dict[str, int]:
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


def build_o200k(folder: pathlib.Path) -> pathlib.Path:
    """Write ``folder/o200k_base.tiktoken`` from gpt-oss's tokenizer.json; check its sha256."""
    target = folder / "o200k_base.tiktoken"
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == O200K_SHA256:
        return target
    vocab = json.loads((GPT_OSS / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    inverse = {i: t for t, i in vocab.items()}
    dec = _byte_decoder()
    data = "".join(
        f"{base64.b64encode(bytes(dec[ch] for ch in inverse[i])).decode()} {i}\n"
        for i in range(199998)
    ).encode()
    digest = hashlib.sha256(data).hexdigest()
    assert digest == O200K_SHA256, f"o200k_base.tiktoken rebuilt with sha256 {digest}"
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def harmony_encoding(folder: pathlib.Path) -> Any:
    """openai-harmony's gpt-oss encoding, offline (``TIKTOKEN_ENCODINGS_BASE`` -> ``folder``)."""
    build_o200k(folder)
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(folder)
    return _load()


@lru_cache(maxsize=1)
def _load() -> Any:
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    return load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)


# -- vLLM 0.33's conversation, built with openai-harmony's objects --------------------------


def _flatten(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [i if isinstance(i, str) else i["text"] for i in content
             if isinstance(i, str) or (isinstance(i, dict) and i.get("text") is not None)]
    return "".join(texts) if texts else None


def vllm_conversation(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    reasoning_effort: str | None,
    start_date: str,
) -> list[Any]:
    """harmony messages for a chat request, as vLLM's ``_make_request_with_harmony``."""
    from openai_harmony import (
        Author,
        DeveloperContent,
        Message,
        ReasoningEffort,
        Role,
        SystemContent,
        TextContent,
        ToolDescription,
    )

    efforts = {"high": ReasoningEffort.HIGH, "medium": ReasoningEffort.MEDIUM,
               "low": ReasoningEffort.LOW}
    rest = list(messages)
    instructions = None
    if rest and rest[0].get("role") in ("system", "developer"):
        instructions = _flatten(rest[0].get("content"))
        rest = rest[1:]
    sys_content = SystemContent.new()
    if reasoning_effort is not None:
        sys_content = sys_content.with_reasoning_effort(efforts[reasoning_effort])
    sys_content = sys_content.with_conversation_start_date(start_date)
    out = [Message.from_role_and_content(Role.SYSTEM, sys_content)]
    if instructions or tools:
        dev = DeveloperContent.new()
        if instructions is not None:
            dev = dev.with_instructions(instructions)
        if tools:
            dev = dev.with_function_tools([
                ToolDescription.new(
                    name=t["function"]["name"],
                    description=t["function"].get("description") or "",
                    parameters=t["function"].get("parameters"),
                )
                for t in tools
            ])
        out.append(Message.from_role_and_content(Role.DEVELOPER, dev))
    names = {c.get("id"): c["function"]["name"] for m in rest for c in m.get("tool_calls") or []}
    for msg in rest:
        role = msg["role"]
        calls = msg.get("tool_calls") or []
        if role == "assistant" and calls:
            text = _flatten(msg.get("content"))
            if text:
                out.append(Message.from_role_and_content(Role.ASSISTANT, text)
                           .with_channel("commentary"))
            if msg.get("reasoning"):
                out.append(Message.from_role_and_content(Role.ASSISTANT, msg["reasoning"])
                           .with_channel("analysis"))
            for call in calls:
                out.append(
                    Message.from_role_and_content(Role.ASSISTANT,
                                                  call["function"].get("arguments") or "")
                    .with_channel("commentary")
                    .with_recipient(f"functions.{call['function']['name']}")
                    .with_content_type("json")
                )
            continue
        if role == "tool":
            name = names.get(msg.get("tool_call_id", ""), "")
            out.append(
                Message.from_author_and_content(Author.new(Role.TOOL, f"functions.{name}"),
                                                _flatten(msg.get("content")) or "")
                .with_channel("commentary").with_recipient("assistant")
            )
            continue
        if role == "assistant" and msg.get("reasoning"):
            out.append(Message.from_role_and_content(Role.ASSISTANT, msg["reasoning"])
                       .with_channel("analysis"))
        content = msg.get("content") or ""
        contents = ([TextContent(text=content)] if isinstance(content, str)
                    else [TextContent(text=c.get("text", "")) for c in content])
        if role == "assistant":
            if contents and contents[0].text:
                out.append(Message.from_role_and_contents(Role.ASSISTANT, contents)
                           .with_channel("final"))
        elif role in ("system", "developer"):
            text = _flatten(msg.get("content"))
            if text is not None:
                out.append(Message.from_role_and_content(
                    Role.DEVELOPER, DeveloperContent.new().with_instructions(text)))
        else:
            out.append(Message.from_role_and_contents(Role(role), contents))
    last_final = max((i for i, m in enumerate(out)
                      if m.author.role == Role.ASSISTANT and m.channel == "final"), default=-1)
    return [m for i, m in enumerate(out) if not (i < last_final and m.channel == "analysis")]


def render_ids(encoding: Any, harmony_messages: list[Any]) -> list[int]:
    """``render_conversation_for_completion(conversation, Role.ASSISTANT)`` (vLLM's config),
    with the headers vLLM 0.33 writes (:func:`_recipient_after_channel`)."""
    from openai_harmony import Conversation, RenderConversationConfig, Role

    ids = encoding.render_conversation_for_completion(
        Conversation.from_messages(harmony_messages), Role.ASSISTANT,
        config=RenderConversationConfig(auto_drop_analysis=False),
    )
    return _recipient_after_channel(encoding, ids)


def _recipient_after_channel(encoding: Any, ids: list[int]) -> list[int]:
    """openai-harmony 0.0.8 (this reference) writes every recipient before the channel
    (``functions.f to=assistant<|channel|>commentary``). vLLM 0.33 requires oss-harmony >= 0.0.11,
    which writes it after the channel (``functions.f<|channel|>commentary to=assistant``), and
    rewrites only assistant call headers back to the old order (vLLM's
    ``_use_legacy_tool_call_headers``): so the header of any message whose author is not
    ``assistant`` gets its `` to=...`` moved behind the channel here (checked against vLLM's own
    renders in ``tests/goldens/harmony.json`` by ``test_reference_mirror_equals_vllm``)."""
    special = {name: encoding.encode(name, allowed_special="all")[0]
               for name in ("<|start|>", "<|channel|>", "<|message|>")}
    out: list[int] = []
    i = 0
    while i < len(ids):
        if ids[i] != special["<|start|>"] or special["<|message|>"] not in ids[i:]:
            out.append(ids[i])
            i += 1
            continue
        end = ids.index(special["<|message|>"], i)
        header = ids[i + 1:end]
        if special["<|channel|>"] in header:
            k = header.index(special["<|channel|>"])
            author = encoding.decode(header[:k])
            name, sep, recipient = author.partition(" to=")
            if sep and name != "assistant" and not name.startswith("assistant:"):
                channel = encoding.decode(header[k + 1:])
                header = (encoding.encode(name, allowed_special=set()) + [special["<|channel|>"]]
                          + encoding.encode(f"{channel} to={recipient}", allowed_special=set()))
        out += [ids[i], *header, ids[end]]
        i = end + 1
    return out
