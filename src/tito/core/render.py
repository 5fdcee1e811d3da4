"""Prompt building: OpenAI messages -> template variables -> prompt text -> token ids.

Why a module of its own: the chat template (``tito.core.template``) only turns variables into
text. Everything around it decides whether the ids equal what the model was trained on, and it is
where vLLM and Hugging Face made choices a client can observe:

* **Messages** (:func:`normalize_messages`). Content is a string or a list of parts. Templates
  that loop over ``message.content`` get the OpenAI list (text parts as ``{"type": "text",
  "text"}``, media as ``{"type": "image"|"audio"|"video"}`` placeholders); the others get one
  string, the text parts joined with ``"\\n"`` (vLLM's two content formats). ``content: null``
  becomes ``""`` (or ``[]``), as vLLM does, unless the template tests ``content is none``
  (DeepSeek-V3): then it stays null, as ``transformers`` passes it. Media parts (``image_url``, ``input_audio``, ``audio_url``,
  ``video_url``, ``*_embeds``, ...) are never fetched: they are returned untouched, in order, for
  the engine (``GenerateRequest.content_parts``); on a text-only model the first one (in message
  order; an unknown part type before it is reported first) is a 400 with vLLM 0.33's message
  (:func:`refuse_media`). Tool calls' JSON-string ``arguments`` become
  objects (``""``/null -> ``{}``; invalid JSON is a 400), as vLLM passes them and most templates
  expect (``| tojson``); a template that concatenates them as text (DeepSeek-V3) gets the
  client's string (see :attr:`tito.core.template.ChatTemplate.wants_string_arguments`). ``reasoning``
  (or the deprecated ``reasoning_content``) is given to the template under both names (and
  ``thinking``), as ``transformers`` does. ``developer`` reaches the template as it is when the
  template names the role in quotes (vLLM's test), else it becomes ``system`` and system
  messages merge into one at the start, as vLLM 0.33 does. An empty assistant ``tool_calls``
  list is dropped (vLLM). Keys whose value is null are dropped (templates test
  ``is defined``). A ``tool_reference`` part (a deferred tool's ``name``) is text in the string
  format and ``{"type": "tool_reference", "name"}`` in the list format (vLLM). A system text
  part starting with ``x-anthropic-billing-header`` (Claude Code's per-request line) loses that
  first line, as vLLM 0.33 does. A tool message whose parts are all text gets them as one string
  (joined with ``"\n"``) in the list format too, as vLLM 0.33 does (other parts keep the list).
* **Rendering** (:func:`render_chat`): template variables are the tokenizer's special-token
  strings, then the effective ``chat_template_kwargs``, then ``messages``, ``tools``,
  ``documents``, ``add_generation_prompt`` and ``continue_final_message`` (which kwargs cannot
  override). ``continue_final_message`` follows ``transformers``: the final message is rendered
  with a marker appended and the prompt is cut right before it, so the template's end-of-turn
  text disappears whatever the template.
* **Tokenization** (:func:`tokenize_prompt`): chat prompts without special tokens (the template
  wrote them), completions prompts with them; character offsets per token; truncation keeping the
  last (``left``, the default) or first (``right``) N tokens; the assistant mask from the
  template's ``{% generation %}`` spans (a token counts when its characters overlap a span).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from tito.core.fast_encode import fast_encoder
from tito.core.template_budget import DEFAULT_LIMITS, TemplateLimits, TemplateRenderError
from tito.core.vocab import Vocab
from tito.errors import BadRequest

if TYPE_CHECKING:  # Jinja2 is imported only where templates are compiled (derender never does)
    from tito.core.template import ChatTemplate, ContentFormat, RenderedTemplate

__all__ = [
    "MEDIA_PART_TYPES",
    "RESERVED_TEMPLATE_VARIABLES",
    "ChatPrompt",
    "NormalizedMessages",
    "TokenizedPrompt",
    "assistant_mask",
    "check_text_only",
    "normalize_completion_prompts",
    "normalize_messages",
    "prompt_reasoning_ended",
    "refuse_media",
    "render_chat",
    "tokenize_prompt",
    "truncate",
]

#: Media part type -> the key holding its payload, and the placeholder type templates see.
MEDIA_PART_TYPES: dict[str, tuple[str, str]] = {
    "image_url": ("image_url", "image"),
    "input_image": ("image_url", "image"),
    "image_embeds": ("image_embeds", "image"),
    "image_pil": ("image_pil", "image"),
    "input_audio": ("input_audio", "audio"),
    "audio_url": ("audio_url", "audio"),
    "audio_embeds": ("audio_embeds", "audio"),
    "video_url": ("video_url", "video"),
    "video_embeds": ("video_embeds", "video"),
    "file": ("file", "file"),
}

#: vLLM 0.33's answer to a media part on a text-only model (its multimodal registry's), and to
#: an ``*_embeds`` part (the model has no multimodal config)
NOT_MULTIMODAL = "{model} is not a multimodal model"
NOT_MULTIMODAL_EMBEDS = "The model is not multimodal."

#: Text-bearing part types (``refusal`` and the Responses-style names are text for a template).
_TEXT_PART_KEYS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}

#: Template variables that come from the request's own fields and that kwargs cannot replace.
RESERVED_TEMPLATE_VARIABLES = frozenset(
    {"messages", "tools", "documents", "add_generation_prompt", "continue_final_message",
     "chat_template", "tokenize"}
)

_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


@dataclass(frozen=True)
class NormalizedMessages:
    """Messages as the template receives them, and the media parts set aside for the engine."""

    messages: list[dict[str, Any]]
    media_parts: list[dict[str, Any]]


@dataclass(frozen=True)
class ChatPrompt:
    """A rendered chat prompt: its text, ``{% generation %}`` spans and the media parts."""

    text: str
    generation_spans: tuple[tuple[int, int], ...]
    media_parts: list[dict[str, Any]]


@dataclass(frozen=True)
class TokenizedPrompt:
    """Prompt ids plus, when asked for, offsets into the prompt text and the assistant mask."""

    token_ids: list[int]
    token_offsets: list[tuple[int, int]] | None = None
    assistant_mask: list[int] | None = None
    truncated: int = 0
    """How many tokens truncation removed."""


# ------------------------------------------------------------------------------------------
# Messages
# ------------------------------------------------------------------------------------------


def _part_type(part: Mapping[str, Any], where: str) -> str:
    """A part's type; vLLM infers it from the payload key when ``type`` is missing."""
    kind = part.get("type")
    if kind is not None:
        if not isinstance(kind, str):
            raise BadRequest(f"{where}.type must be a string.", param=where)
        return kind
    for key in ("text", *MEDIA_PART_TYPES):
        if key in part:
            return key
    raise BadRequest(f"{where} has no `type` and no recognised content key.", param=where)


def refuse_media(kind: str, model: str) -> BadRequest:
    """vLLM 0.33's 400 for a ``kind`` media part sent to the text-only model ``model``."""
    return BadRequest(NOT_MULTIMODAL_EMBEDS if kind.endswith("_embeds")
                      else NOT_MULTIMODAL.format(model=model))


def check_text_only(messages: Sequence[Any], model: str) -> None:
    """Refuse the first media part of ``messages`` (the messages a text-only model ``model``
    encodes by code, without :func:`normalize_messages`), as vLLM 0.33 does; stops quietly at a
    part whose type is not known (the encoder reports it)."""
    for message in messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, Mapping):
                continue
            try:
                kind = _part_type(part, "part")
            except BadRequest:
                return
            if kind in MEDIA_PART_TYPES:
                raise refuse_media(kind, model)
            if kind not in _TEXT_PART_KEYS and kind != "tool_reference":
                return


def _content_parts(
    content: list[Any], where: str, media: list[dict[str, Any]], text_only: str | None = None
) -> list[tuple[str, str | None]]:
    """(kind, text) per part; media parts are appended to ``media`` untouched (``text_only``:
    the name of a text-only model, which refuses them)."""
    out: list[tuple[str, str | None]] = []
    for j, part in enumerate(content):
        pw = f"{where}[{j}]"
        if isinstance(part, str):
            out.append(("text", part))
            continue
        if not isinstance(part, Mapping):
            raise BadRequest(f"{pw} must be an object or a string.", param=pw)
        kind = _part_type(part, pw)
        if kind in _TEXT_PART_KEYS:
            text = part.get(_TEXT_PART_KEYS[kind])
            if not isinstance(text, str):
                raise BadRequest(
                    f"{pw}.{_TEXT_PART_KEYS[kind]} must be a string for a '{kind}' part.", param=pw
                )
            out.append(("text", text))
        elif kind == "tool_reference":  # vLLM 0.33: a deferred tool's name, for the template
            name = part.get("name")
            if not isinstance(name, str):
                raise BadRequest(f"{pw}.name must be a string for a 'tool_reference' part.",
                                 param=pw)
            out.append(("tool_reference", name))
        elif kind in MEDIA_PART_TYPES:
            key, placeholder = MEDIA_PART_TYPES[kind]
            if part.get(key) is None:
                raise BadRequest(f"{pw} of type '{kind}' must carry `{key}`.", param=pw)
            if text_only is not None:
                raise refuse_media(kind, text_only)
            media.append(dict(part))
            out.append((placeholder, None))
        else:
            raise BadRequest(f"{pw}: unknown content part type '{kind}'.", param=pw)
    return out


def _content_for_template(
    content: Any, where: str, fmt: ContentFormat, media: list[dict[str, Any]],
    text_only: str | None = None,
) -> str | list[dict[str, Any]]:
    if content is None:
        return "" if fmt == "string" else []
    if isinstance(content, str):
        return content if fmt == "string" else [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise BadRequest(f"{where} must be a string, a list of parts or null.", param=where)
    parts = _content_parts(content, where, media, text_only)
    if fmt == "string":
        return "\n".join(text for kind, text in parts
                         if kind in ("text", "tool_reference") and text is not None)
    return [{"type": "text", "text": text} if kind == "text"
            else {"type": kind, "name": text} if kind == "tool_reference" else {"type": kind}
            for kind, text in parts]


def _tool_calls_for_template(
    tool_calls: Any, where: str, *, string_arguments: bool = False
) -> list[dict[str, Any]]:
    if not isinstance(tool_calls, list):
        raise BadRequest(f"{where} must be a list.", param=where)
    out: list[dict[str, Any]] = []
    for j, call in enumerate(tool_calls):
        cw = f"{where}[{j}]"
        if not isinstance(call, Mapping):
            raise BadRequest(f"{cw} must be an object.", param=cw)
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise BadRequest(f"{cw}.function.name must be a string.", param=f"{cw}.function.name")
        args = function.get("arguments")
        if args is not None and not isinstance(args, (str, dict, list)):
            raise BadRequest(
                f"{cw}.function.arguments must be a JSON string.", param=f"{cw}.function.arguments"
            )
        parsed: Any
        if string_arguments:
            # the template concatenates them: the client's own text, as transformers passes it
            parsed = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
        elif args is None or args == "":
            parsed = {}
        elif isinstance(args, str):
            try:
                parsed = json.loads(args)
            except RecursionError:
                raise BadRequest(
                    f"{cw}.function.arguments is nested too deeply.",
                    param=f"{cw}.function.arguments",
                ) from None
            except ValueError:
                # vLLM 0.33: a malformed string in the history is coerced to {} so that the
                # conversation can go on (recorded: conformance goldens, *_bad_arguments)
                parsed = {}
        else:
            parsed = args
        if not string_arguments and not isinstance(parsed, dict):
            parsed = {}  # vLLM: templates need a mapping ("[1, 2]" -> {})
        new_call = {k: v for k, v in call.items() if v is not None}
        new_call["function"] = {**{k: v for k, v in function.items() if v is not None},
                                "arguments": parsed}
        out.append(new_call)
    return out


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(p["text"] if isinstance(p, dict) else p for p in content
                         if isinstance(p, str) or (isinstance(p, dict) and "text" in p))
    return content or ""


#: Claude Code's attribution line (a per-request hash) that vLLM 0.33 drops from system text.
BILLING_HEADER = "x-anthropic-billing-header"


def _strip_billing_header(content: Any) -> Any:
    """vLLM 0.33's rule for system messages: a text part starting with :data:`BILLING_HEADER`
    loses its first line (the part goes when nothing follows), so the prompt's prefix stays the
    same from request to request."""
    parts = [content] if isinstance(content, str) else content
    if not isinstance(parts, list):
        return content
    out: list[Any] = []
    for part in parts:
        text = part if isinstance(part, str) else (
            part.get("text") if isinstance(part, Mapping) and part.get("type") == "text" else None)
        if not (isinstance(text, str) and text.startswith(BILLING_HEADER)):
            out.append(part)
            continue
        rest = text.partition("\n")[2]
        if rest:
            out.append(rest if isinstance(part, str) else {**part, "text": rest})
    if isinstance(content, str):
        return out[0] if out else ""
    return out


def _developer_to_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """vLLM 0.33 for templates that do not know the ``developer`` role: it becomes ``system``
    (its ``tools`` dropped) and, when that leaves a system message anywhere but first, all system
    messages merge into one at the start (texts joined with a blank line, empty ones skipped)."""
    converted = []
    for msg in messages:
        if msg["role"] == "developer":
            msg = {k: v for k, v in msg.items() if k != "tools"}
            msg["role"] = "system"
        converted.append(msg)
    systems = [i for i, m in enumerate(converted) if m["role"] == "system"]
    if not systems or systems == [0]:
        return converted
    texts = [t for t in (_text_of(converted[i].get("content")) for i in systems) if t]
    merged = {"role": "system", "content": "\n\n".join(texts)}
    return [merged, *(m for m in converted if m["role"] != "system")]


def normalize_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    content_format: ContentFormat = "string",
    keep_developer_role: bool = False,
    keep_null_content: bool = False,
    string_arguments: bool = False,
    text_only_model: str | None = None,
) -> NormalizedMessages:
    """OpenAI chat messages -> the dicts a chat template reads (rules in the module docstring).

    ``text_only_model``: the served name of a model that takes no media (its parts are a 400).

    Never mutates its input. Raises ``BadRequest`` naming ``messages[i]...`` for malformed input.
    """
    if not messages:
        raise BadRequest("`messages` must contain at least one message.", param="messages")
    media: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, Mapping):
            raise BadRequest(f"{where} must be an object.", param=where)
        role = message.get("role")
        if not isinstance(role, str) or not role:
            raise BadRequest(f"{where}.role must be a non-empty string.", param=f"{where}.role")
        msg: dict[str, Any] = {k: v for k, v in message.items() if v is not None}
        msg["role"] = role
        content = message.get("content")
        if role == "system" and content:
            content = _strip_billing_header(content)
        msg["content"] = (
            None if content is None and keep_null_content
            else _content_for_template(content, f"{where}.content", content_format, media,
                                       text_only_model)
        )
        if role == "tool" and isinstance(msg["content"], list) and all(
                p.get("type") == "text" for p in msg["content"]):
            # vLLM 0.33: a tool result of text parts is one string (templates expect it)
            msg["content"] = "\n".join(p["text"] for p in msg["content"])
        if "tool_calls" in msg:
            msg["tool_calls"] = _tool_calls_for_template(
                msg["tool_calls"], f"{where}.tool_calls", string_arguments=string_arguments
            )
            if not msg["tool_calls"] and role == "assistant":
                del msg["tool_calls"]  # vLLM: keeps templates on the plain assistant path
        reasoning = msg.pop("reasoning", None)
        legacy = msg.pop("reasoning_content", None)
        if reasoning is None:
            reasoning = legacy
        if reasoning is not None:
            if not isinstance(reasoning, str):
                raise BadRequest(f"{where}.reasoning must be a string.", param=f"{where}.reasoning")
            msg.setdefault("thinking", reasoning)
            msg["reasoning"] = reasoning
            msg["reasoning_content"] = reasoning
        for key in ("name", "tool_call_id"):
            if key in msg and not isinstance(msg[key], str):
                raise BadRequest(f"{where}.{key} must be a string.", param=f"{where}.{key}")
        out.append(msg)
    if not keep_developer_role and any(m["role"] == "developer" for m in out):
        out = _developer_to_system(out)
    return NormalizedMessages(out, media)


# ------------------------------------------------------------------------------------------
# Rendering
# ------------------------------------------------------------------------------------------


def _mark_final_message(messages: list[dict[str, Any]]) -> str:
    """Append the continuation marker to the final message's text; return that text."""
    last = dict(messages[-1])
    content = last.get("content")
    if isinstance(content, str):
        last["content"] = content + _CONTINUE_TAG
        final = content
    elif isinstance(content, list):
        parts = list(content)
        for k in range(len(parts) - 1, -1, -1):
            part = parts[k]
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                final = part["text"]
                parts[k] = {**part, "text": final + _CONTINUE_TAG}
                break
        else:
            raise BadRequest(
                "continue_final_message is set but the final message has no text to continue.",
                param="continue_final_message",
            )
        last["content"] = parts
    else:
        raise BadRequest(
            "continue_final_message is set but the final message has no content to continue.",
            param="continue_final_message",
        )
    messages[-1] = last
    return final


def render_chat(
    template: ChatTemplate,
    messages: NormalizedMessages,
    *,
    tools: list[dict[str, Any]] | None = None,
    documents: list[dict[str, Any]] | None = None,
    add_generation_prompt: bool = True,
    continue_final_message: bool = False,
    template_kwargs: Mapping[str, Any] | None = None,
    special_tokens: Mapping[str, str] | None = None,
    limits: TemplateLimits = DEFAULT_LIMITS,
) -> ChatPrompt:
    """Render the prompt text; template failures become ``BadRequest`` with their message."""
    msgs = list(messages.messages)
    final = _mark_final_message(msgs) if continue_final_message else None
    context: dict[str, Any] = dict(special_tokens or {})
    for key, value in (template_kwargs or {}).items():
        if key not in RESERVED_TEMPLATE_VARIABLES:
            context[key] = value
    context.update(
        messages=msgs,
        tools=tools,
        documents=documents,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
    )
    try:
        rendered: RenderedTemplate = template.render(context, limits=limits)
    except TemplateRenderError as exc:
        raise BadRequest(str(exc), param="messages") from None
    text, spans = rendered.text, rendered.generation_spans
    if final is not None:
        tag = _CONTINUE_TAG.strip()
        if final.strip() not in text or tag not in text:
            raise BadRequest(
                "continue_final_message is set but the final message does not appear in the "
                "prompt the chat template rendered (the template rewrites or drops it).",
                param="continue_final_message",
            )
        cut = text.rindex(tag)
        text = text[:cut] if text[cut : cut + len(_CONTINUE_TAG)] == _CONTINUE_TAG else text[:cut].rstrip()
        spans = tuple((s, min(e, len(text))) for s, e in spans if s < len(text))
    return ChatPrompt(text, spans, messages.media_parts)


# ------------------------------------------------------------------------------------------
# Tokenization
# ------------------------------------------------------------------------------------------


def assistant_mask(
    offsets: Sequence[tuple[int, int]], spans: Iterable[tuple[int, int]]
) -> list[int]:
    """1 for every token whose characters overlap a span, else 0 (spans are [start, end))."""
    ordered = sorted((s, e) for s, e in spans if e > s)
    mask = [0] * len(offsets)
    if not ordered:
        return mask
    k = 0
    for i, (start, end) in enumerate(offsets):
        while k < len(ordered) and ordered[k][1] <= start:
            k += 1
        if k == len(ordered):
            break
        s, e = ordered[k]
        if start < e and (end > s or (end == start and s <= start)):
            mask[i] = 1
    return mask


def truncate(n_tokens: int, keep: int | None, side: Literal["left", "right"] = "left") -> slice:
    """The slice of ``n_tokens`` ids that truncating to ``keep`` tokens leaves.

    ``left`` (vLLM's default) drops from the start and keeps the end of the prompt, which holds
    the most recent turns and the generation prompt.
    """
    if keep is None or keep >= n_tokens:
        return slice(0, n_tokens)
    if keep <= 0:
        return slice(0, 0)
    return slice(n_tokens - keep, n_tokens) if side == "left" else slice(0, keep)


#: Prompts at least this long are encoded in chunks, in parallel (see :func:`_encode`).
PARALLEL_ENCODE_MIN_CHARS = 8192
_CHUNK_CHARS = 4096


@lru_cache(maxsize=16)
def _split_pattern(vocab: Vocab) -> re.Pattern[str] | None:
    """Special added tokens that are matched verbatim (no strip/single-word/normalisation rules):
    a chunk may safely start at any of them."""
    contents = [
        token.content
        for token in vocab.tokenizer.get_added_tokens_decoder().values()
        if token.special and not (token.lstrip or token.rstrip or token.single_word or token.normalized)
        and token.content
    ]
    if not contents:
        return None
    contents.sort(key=len, reverse=True)
    return re.compile("|".join(re.escape(c) for c in contents))


def _encode(
    vocab: Vocab, text: str, add_special_tokens: bool, with_offsets: bool = False
) -> tuple[list[int], list[tuple[int, int]]]:
    """Ids of ``text`` and, when ``with_offsets``, their character offsets (else ``[]``: a long
    prompt's offsets cost a tuple per token, read from the encoding and shifted per chunk).

    Why chunks: ``tokenizers`` first splits the input on added tokens and encodes the pieces
    between them independently, so cutting the text right before a special token and encoding
    the chunks with ``encode_batch`` (which runs on all cores) gives the same ids; offsets are
    shifted back by each chunk's start. Every chunk but the first starts with a special token,
    so position-dependent rules (Metaspace's "prepend to the first piece") see what they would
    have seen in the whole text. Only without added special tokens (a BOS/EOS post-processor
    would apply to each chunk) and only for long prompts (short ones gain nothing).
    """
    tokenizer = vocab.tokenizer
    if tokenizer is None:  # a vocabulary without a `tokenizers` object (mistral-common)
        return vocab.encode(text, add_special_tokens=add_special_tokens), []
    fast = None if with_offsets else fast_encoder(tokenizer, add_special_tokens)
    if fast is not None:  # the same ids, without the Rust pre-tokenizer (tito.core.fast_encode)
        return fast(text), []
    pattern = _split_pattern(vocab) if not add_special_tokens and len(text) >= PARALLEL_ENCODE_MIN_CHARS else None
    if pattern is None:
        encoding = tokenizer.encode(text, add_special_tokens=add_special_tokens)
        return encoding.ids, encoding.offsets if with_offsets else []
    starts = [0]
    for match in pattern.finditer(text):
        if match.start() - starts[-1] >= _CHUNK_CHARS:
            starts.append(match.start())
    if len(starts) == 1:
        encoding = tokenizer.encode(text, add_special_tokens=False)
        return encoding.ids, encoding.offsets if with_offsets else []
    bounds = list(zip(starts, [*starts[1:], len(text)]))
    encodings = tokenizer.encode_batch([text[a:b] for a, b in bounds], add_special_tokens=False)
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    for (start, _), encoding in zip(bounds, encodings):
        ids.extend(encoding.ids)
        if with_offsets:
            offsets.extend((s + start, e + start) for s, e in encoding.offsets)
    return ids, offsets


#: Below this many characters a prompt is simply tokenized (it cannot cost much).
LOWER_BOUND_MIN_CHARS = 64 * 1024
#: Piece size of :func:`prompt_tokens_lower_bound`, and the tokens a cut may add at most.
_BOUND_PIECE_CHARS = 16 * 1024
_BOUND_SLACK_PER_CUT = 16


def _safe_cut(text: str, near: int, lo: int, hi: int) -> int:
    """A cut position in ``[lo, hi]`` near ``near``: right before a space that follows a
    non-space when one is within 1024 characters (a pre-tokenizer boundary), else ``near``."""
    space = text.rfind(" ", max(lo + 1, near - 1024), near)
    if space > lo and not text[space - 1].isspace():
        return space
    space = text.find(" ", near, min(hi, near + 1024))
    if space > lo and space < hi and not text[space - 1].isspace():
        return space
    return near


def _truncation_span(
    vocab: Vocab, text: str, keep: int, side: Literal["left", "right"]
) -> tuple[int, int]:
    """The part of a long ``text`` that holds every token truncation to ``keep`` tokens keeps
    (plus a margin), found by counting bounded pieces from the kept end: only that part is then
    tokenized, so a 6 MiB prompt truncated to a few thousand tokens costs what those cost."""
    tokenizer = vocab.tokenizer
    need = keep + 64
    count, n = 0, len(text)
    if side == "left":
        start = n
        while start > 0 and count < need:
            cut = _safe_cut(text, max(start - _BOUND_PIECE_CHARS, 0), 0, start) if start > _BOUND_PIECE_CHARS else 0
            count += len(tokenizer.encode(text[cut:start], add_special_tokens=False).ids) - _BOUND_SLACK_PER_CUT
            start = cut
        return start, n
    end = 0
    while end < n and count < need:
        cut = _safe_cut(text, end + _BOUND_PIECE_CHARS, end, n) if n - end > _BOUND_PIECE_CHARS else n
        count += len(tokenizer.encode(text[end:cut], add_special_tokens=False).ids) - _BOUND_SLACK_PER_CUT
        end = cut
    return 0, end


def prompt_tokens_lower_bound(vocab: Vocab, text: str, stop_above: int) -> int:
    """A lower bound of ``text``'s token count, computed in bounded pieces, that stops as soon as
    it exceeds ``stop_above`` (0 for a short text: no bound needed).

    Why: tokenizing a 6 MiB prompt whole costs over 10 s and ~1 GiB (the encoding keeps ids,
    offsets and strings per token) only to answer that it exceeds ``max_model_len``. Pieces of
    :data:`_BOUND_PIECE_CHARS` are cut right before a space that follows a non-space (where
    byte-level pre-tokenizers split anyway) when there is one near the end of the piece; a cut
    can at worst split what would have been a few tokens, which :data:`_BOUND_SLACK_PER_CUT`
    per cut covers. The scan stops after about ``stop_above`` tokens' worth of text, so a prompt
    that is far too long fails fast and in small memory.
    """
    tokenizer = vocab.tokenizer
    if len(text) < LOWER_BOUND_MIN_CHARS or tokenizer is None:
        return 0
    total, start, n = 0, 0, len(text)
    while start < n and total <= stop_above:
        end = min(start + _BOUND_PIECE_CHARS, n)
        if end < n:
            space = text.rfind(" ", end - 1024, end)
            if space > start and not text[space - 1].isspace():
                end = space
        total += len(tokenizer.encode(text[start:end], add_special_tokens=False).ids)
        if end < n:
            total -= _BOUND_SLACK_PER_CUT
        start = end
    return max(total, 0)


def tokenize_prompt(
    vocab: Vocab,
    text: str,
    *,
    add_special_tokens: bool,
    truncate_to: int | None = None,
    truncation_side: Literal["left", "right"] = "left",
    with_offsets: bool = False,
    generation_spans: Sequence[tuple[int, int]] | None = None,
) -> TokenizedPrompt:
    """Encode prompt text; offsets and the assistant mask follow the same truncation as the ids.

    A long text truncated to far fewer tokens is tokenized only over the part that holds the
    kept tokens (:func:`_truncation_span`); the ids kept are the same.
    """
    if with_offsets and vocab.tokenizer is None:
        raise BadRequest("return_token_offsets is not supported for models served through "
                         "mistral-common.", param="return_token_offsets")
    shift = 0
    if (truncate_to is not None and vocab.tokenizer is not None
            and len(text) >= LOWER_BOUND_MIN_CHARS and truncate_to * 16 < len(text)):
        start, end = _truncation_span(vocab, text, truncate_to, truncation_side)
        if (start, end) != (0, len(text)):
            text, shift = text[start:end], start
    need_offsets = with_offsets or generation_spans is not None
    ids, raw_offsets = _encode(vocab, text, add_special_tokens, need_offsets)
    window = truncate(len(ids), truncate_to, truncation_side)
    offsets = None
    if need_offsets:
        offsets = [(int(s) + shift, int(e) + shift) for s, e in raw_offsets]
    mask = assistant_mask(offsets, generation_spans) if generation_spans is not None and offsets is not None else None
    return TokenizedPrompt(
        token_ids=ids[window],  # a new list (ids is a list)
        token_offsets=offsets[window] if with_offsets and offsets is not None else None,
        assistant_mask=mask[window] if mask is not None else None,
        truncated=len(ids) - (window.stop - window.start),
    )


def normalize_completion_prompts(prompt: Any) -> list[str | list[int]]:
    """A completions ``prompt`` as a list of prompts: texts and/or token-id lists.

    ``"text"`` -> 1 text; ``["a", "b"]`` -> 2 texts; ``[1, 2]`` -> 1 id prompt; ``[[1], [2]]`` ->
    2 id prompts. Anything else (mixed lists, booleans, empty lists) is a 400.
    """
    if isinstance(prompt, str):
        return [prompt]
    if not isinstance(prompt, list) or not prompt:
        raise BadRequest("`prompt` must be a string, a list of strings or a list of token ids.",
                         param="prompt")

    def is_id(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if all(isinstance(p, str) for p in prompt):
        return list(prompt)
    if all(is_id(p) for p in prompt):
        return [list(prompt)]
    if all(isinstance(p, list) for p in prompt):
        out: list[str | list[int]] = []
        for i, ids in enumerate(prompt):
            if not ids or not all(is_id(t) for t in ids):
                raise BadRequest(f"prompt[{i}] must be a non-empty list of token ids.",
                                 param=f"prompt.{i}")
            out.append(list(ids))
        return out
    raise BadRequest("`prompt` mixes texts, token ids and lists; use one kind.", param="prompt")


# ------------------------------------------------------------------------------------------
# Reasoning state of the prompt
# ------------------------------------------------------------------------------------------


def prompt_reasoning_ended(
    token_ids: Sequence[int], vocab: Vocab, start_marker: str, end_marker: str
) -> bool:
    """Whether the prompt already closed the reasoning block the model would otherwise open.

    Scans back from the end of the prompt: the end marker first means reasoning is over (e.g.
    Qwen3 with ``enable_thinking=false`` ends with ``<think>\\n\\n</think>\\n\\n``), the start
    marker first means the prompt opened reasoning. The scan stops at the last special token (the
    turn boundary the generation prompt starts with) and then answers False: markers of earlier
    assistant turns (a tool-call loop) say nothing about the turn being generated. vLLM scans the
    whole prompt and reports True in that case, which makes structured outputs and reasoning
    parsing start in the wrong place.
    """
    start_id = vocab.token_id(start_marker)
    end_id = vocab.token_id(end_marker)
    specials = vocab.special_ids
    for token in reversed(token_ids):
        if token == end_id:
            return True
        if token == start_id:
            return False
        if token in specials:
            return False
    return False
