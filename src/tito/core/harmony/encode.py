"""A harmony conversation -> prompt token ids, as openai-harmony's
``render_conversation_for_completion(conversation, Role.ASSISTANT)`` writes them.

Grammar of one rendered message (``[X]`` is the special token X, every other piece is text
tokenized on its own, without special-token matching: tiktoken's ``encode_ordinary``)::

    [<|start|>] ROLE (":" NAME)? ([<|channel|>] CHANNEL)? (" to=" RECIPIENT)?
    (" " [<|constrain|>] CONTENT_TYPE)?
    [<|message|>] CONTENT... ([<|call|>] if an assistant message has a recipient, else [<|end|>])

except an assistant call (role ``assistant`` without a name, a channel, a recipient and a
content type), written in the legacy order::

    [<|start|>] "assistant to=" RECIPIENT [<|channel|>] CHANNEL " " CONTENT_TYPE [<|message|>] ...

Why two orders: vLLM 0.33 requires oss-harmony >= 0.0.11, whose renderer writes the recipient
after the channel and a content type behind ``<|constrain|>``; vLLM then rewrites the headers of
assistant calls back to the legacy order gpt-oss was trained on (its
``_use_legacy_tool_call_headers``). So a tool result is ``functions.NAME<|channel|>commentary
to=assistant`` and a call ``assistant to=functions.NAME<|channel|>commentary json``, as vLLM
0.33's render server writes them (``conformance/goldens/render_fuzz_gptoss.json``).

A tool message writes its author NAME instead of the role; a content type given with a leading
``<|constrain|>`` is written without it. Each content part is its own piece. After the last
message: ``[<|start|>] "assistant"``.

System content: sections joined by a blank line - identity / ``Knowledge cutoff: ...`` /
``Current date: ...`` (one per line), ``Reasoning: EFFORT``, ``# Valid channels: a, b, c.``
(+ `` Channel must be included for every message.``; + a line ``Calls to these tools must go to
the commentary channel: 'functions'.`` when any developer message offers function tools).
Developer content: ``# Instructions``, the instructions, the tools section
(:func:`tito.core.harmony.schema.tools_section`), joined by blank lines.

Tokenization: text holding no added token's string goes through the tokenizer as is; other
text is pre-tokenized and BPE-encoded piece by piece, so a user writing ``<|end|>`` gets the
ordinary tokens of those characters, as openai-harmony does.

The conversation as JSON: openai-harmony's Python side hands the conversation to its Rust side as
``json.dumps`` text, which ``serde_json`` parses before anything is rendered. A tool's
``parameters`` are the one value of arbitrary shape in it, so two things refuse a request there
(400, vLLM's ``invalid conversation JSON``): a non-finite number (``json.dumps`` writes ``NaN`` /
``Infinity``, which JSON has not) and nesting past ``serde_json``'s 127 levels (``parameters`` sit
at the tenth: conversation, messages, message, content, developer content, tools, the namespace,
its tools, the tool). Measured on vLLM 0.33 (``render_harmony_json`` goldens).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from tito.core.harmony.conversation import DeveloperContent, Message, SystemContent
from tito.core.harmony.schema import tools_section
from tito.core.vocab import Vocab
from tito.errors import BadRequest

__all__ = ["HarmonyTokens", "encode_ordinary", "render_for_completion", "system_text"]


class HarmonyTokens:
    """The ids of harmony's formatting tokens in one vocabulary (looked up once per vocab)."""

    def __init__(self, vocab: Vocab) -> None:
        def tid(text: str) -> int:
            token_id = vocab.token_id(text)
            if token_id is None:
                raise BadRequest(f"the tokenizer has no harmony token {text}", param="model")
            return token_id

        self.start = tid("<|start|>")
        self.message = tid("<|message|>")
        self.end = tid("<|end|>")
        self.call = tid("<|call|>")
        self.channel = tid("<|channel|>")
        self.constrain = tid("<|constrain|>")


@lru_cache(maxsize=16)
def harmony_tokens(vocab: Vocab) -> HarmonyTokens:
    """The formatting-token ids of ``vocab`` (cached per vocabulary object)."""
    return HarmonyTokens(vocab)


def encode_ordinary(vocab: Vocab, text: str) -> list[int]:
    """Ids of ``text`` as plain text: special-token strings in it are ordinary characters."""
    if not text:
        return []
    try:
        if not any(token in text for token in vocab.added_tokens):
            return vocab.tokenizer.encode(text, add_special_tokens=False).ids
        tok = vocab.tokenizer
        ids: list[int] = []
        for piece, _ in tok.pre_tokenizer.pre_tokenize_str(text):
            ids.extend(t.id for t in tok.model.tokenize(piece))
        return ids
    except Exception as exc:  # tokenizers raises a bare Exception
        raise BadRequest(f"cannot tokenize message text: {exc}", param="messages") from None


def system_text(content: SystemContent, *, has_function_tools: bool) -> str:
    """The text of a system message's content (module header)."""
    sections = []
    top = []
    if content.model_identity is not None:
        top.append(content.model_identity)
    if content.knowledge_cutoff is not None:
        top.append(f"Knowledge cutoff: {content.knowledge_cutoff}")
    if content.conversation_start_date is not None:
        top.append(f"Current date: {content.conversation_start_date}")
    if top:
        sections.append("\n".join(top))
    if content.reasoning_effort is not None:
        sections.append(f"Reasoning: {content.reasoning_effort}")
    if content.valid_channels:
        header = f"# Valid channels: {', '.join(content.valid_channels)}."
        if content.channel_required:
            header += " Channel must be included for every message."
        if has_function_tools:
            header += "\nCalls to these tools must go to the commentary channel: 'functions'."
        sections.append(header)
    return "\n\n".join(sections)


def developer_text(content: DeveloperContent) -> str:
    """The text of a developer message's content (module header)."""
    sections = []
    if content.instructions is not None:
        sections.append("# Instructions")
        sections.append(content.instructions)
    if content.tools:
        sections.append(
            tools_section("functions", [(t.name, t.description, t.parameters) for t in content.tools])
        )
    return "\n\n".join(sections)


def _has_function_tools(messages: Sequence[Message]) -> bool:
    return any(
        isinstance(c, DeveloperContent) and bool(c.tools) for m in messages for c in m.content
    )


def _render(vocab: Vocab, tk: HarmonyTokens, msg: Message, has_tools: bool, out: list[int]) -> None:
    out.append(tk.start)
    if msg.role == "tool":
        if msg.name is None:
            raise BadRequest("a harmony tool message needs an author name", param="messages")
        out += encode_ordinary(vocab, msg.name)
    else:
        out += encode_ordinary(vocab, msg.role)
        if msg.name is not None:
            out += encode_ordinary(vocab, f":{msg.name}")
    recipient = msg.recipient if msg.recipient != "all" else None
    content_type = msg.content_type
    if content_type is not None and content_type.startswith("<|constrain|>"):
        content_type = content_type[len("<|constrain|>"):]
    if (msg.role == "assistant" and msg.name is None and msg.channel and recipient
            and content_type):  # an assistant call: the legacy order (module header)
        out += encode_ordinary(vocab, f" to={recipient}")
        out.append(tk.channel)
        out += encode_ordinary(vocab, f"{msg.channel} {content_type}")
    else:
        if msg.channel is not None:
            out.append(tk.channel)
            out += encode_ordinary(vocab, msg.channel)
        if recipient is not None:
            out += encode_ordinary(vocab, f" to={recipient}")
        if content_type is not None:
            out += encode_ordinary(vocab, " ")
            out.append(tk.constrain)
            out += encode_ordinary(vocab, content_type)
    out.append(tk.message)
    for content in msg.content:
        if isinstance(content, SystemContent):
            text = system_text(content, has_function_tools=has_tools)
        elif isinstance(content, DeveloperContent):
            text = developer_text(content)
        else:
            text = content
        out += encode_ordinary(vocab, text)
    out.append(tk.call if msg.role == "assistant" and msg.recipient is not None else tk.end)


#: ``serde_json``'s nesting limit (containers) and the level of a tool's ``parameters`` object
#: in the conversation's JSON (module header): deeper parameters do not parse.
_SERDE_MAX_DEPTH = 127
_PARAMETERS_LEVEL = 10


def _check_parameters(parameters: Any) -> None:
    """A 400 for tool parameters openai-harmony cannot read back as JSON (module header); an
    explicit stack, so any nesting the body parser let through is walked without recursion."""
    limit = _SERDE_MAX_DEPTH - _PARAMETERS_LEVEL + 1
    todo: list[tuple[Any, int]] = [(parameters, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise BadRequest(f"invalid conversation JSON: a tool's parameters hold {value!r}, "
                             "which is not a JSON number")
        if isinstance(value, dict | list):
            if depth > limit:
                raise BadRequest("invalid conversation JSON: a tool's parameters nest deeper than "
                                 f"{limit} levels (recursion limit exceeded)")
            items = value.values() if isinstance(value, dict) else value
            todo.extend((item, depth + 1) for item in items)


def render_for_completion(vocab: Vocab, messages: Sequence[Message]) -> list[int]:
    """Prompt ids: every message, then ``<|start|>assistant`` (the model's turn)."""
    for msg in messages:
        for content in msg.content:
            if isinstance(content, DeveloperContent):
                for tool in content.tools or ():
                    _check_parameters(tool.parameters)
    tk = harmony_tokens(vocab)
    has_tools = _has_function_tools(messages)
    out: list[int] = []
    for msg in messages:
        _render(vocab, tk, msg, has_tools, out)
    out.append(tk.start)
    out += encode_ordinary(vocab, "assistant")
    return out
