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
  (or the deprecated ``reasoning_content``) of an assistant message is given to the template
  under both names, whatever its value, and other roles' is dropped, as vLLM 0.33 does; so is a
  ``name`` or ``task`` that is not a string. The template gets vLLM 0.33's keys only, in its
  order (role, content, the assistant's ``tool_calls`` and reasoning, the tool's
  ``tool_call_id``, ``name``, ``task``, the developer's ``tools``); other keys are dropped.
  ``developer`` reaches the template as it is when the template names the role in quotes
  (vLLM's test), else it becomes ``system`` and system messages merge into one at the start, as
  vLLM 0.33 does. An empty assistant ``tool_calls`` list is dropped (vLLM). Text parts are
  ``text``, ``input_text``, ``output_text``, ``refusal`` and ``thinking``; one without its text
  is a 400, unless vLLM reads the message as its custom type (a custom role, or a complete text
  / thinking / refusal part among the parts): then a ``text`` / ``refusal`` part without text
  is skipped and the others get a null text. In the list format a part keeps the keys vLLM's
  part types do not know. A ``tool_reference`` part (a deferred tool's ``name``) is text in the
  string format and ``{"type": "tool_reference", "name"}`` in the list format (vLLM). A system text
  part starting with ``x-anthropic-billing-header`` (Claude Code's per-request line) loses that
  first line, as vLLM 0.33 does. A tool message whose parts are all text gets them as one string
  (joined with ``"\n"``) in the list format too, as vLLM 0.33 does (other parts keep the list).
* **Rendering** (:func:`render_chat`): template variables are the tokenizer's special-token
  strings, then the effective ``chat_template_kwargs``, then ``messages``, ``tools``,
  ``documents`` and ``add_generation_prompt`` (which kwargs cannot override: the caller passes
  the kwargs' ``tools`` / ``documents`` as those, where vLLM's merge lets them win).
  ``continue_final_message`` follows ``transformers``: the final message is rendered with a
  marker appended and the prompt is cut right before it, so the template's end-of-turn text
  disappears whatever the template; like ``transformers`` (so vLLM) the template does not get
  the flag as ``continue_final_message`` (undefined there, whatever the kwargs say), only as
  tito's own ``tito_continue_final_message`` (tito's shipped Mistral template reads it, as it
  reads tito's ``fromjson`` filter).
* **Tokenization** (:func:`tokenize_prompt`): chat prompts without special tokens (the template
  wrote them), completions prompts with them; character offsets per token; truncation keeping the
  last (``left``, the default) or first (``right``) N tokens; the assistant mask from the
  template's ``{% generation %}`` spans (a token counts when its characters overlap a span).

Modules: the messages rules are :mod:`tito.core.render_messages`, the tokenization rules
:mod:`tito.core.render_tokenize`; this module renders and re-exports both (every name stays
importable from here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tito.core.template_budget import DEFAULT_LIMITS, TemplateLimits, TemplateRenderError
from tito.errors import BadRequest
from tito.core.render_messages import BILLING_HEADER, normalize_messages, NormalizedMessages
from tito.core.render_parts import (
    check_text_only,
    MEDIA_PART_TYPES,
    NOT_MULTIMODAL,
    NOT_MULTIMODAL_EMBEDS,
    refuse_media,
)
from tito.core.render_tokenize import (
    assistant_mask,
    LOWER_BOUND_MIN_CHARS,
    normalize_completion_prompts,
    PARALLEL_ENCODE_MIN_CHARS,
    prompt_newest_marker_ended,
    prompt_reasoning_ended,
    prompt_tokens_lower_bound,
    tokenize_prompt,
    TokenizedPrompt,
    truncate,
)

if TYPE_CHECKING:  # Jinja2 is imported only where templates are compiled (derender never does)
    from tito.core.template import ChatTemplate, RenderedTemplate

__all__ = [
    "BILLING_HEADER",
    "LOWER_BOUND_MIN_CHARS",
    "MEDIA_PART_TYPES",
    "NOT_MULTIMODAL",
    "NOT_MULTIMODAL_EMBEDS",
    "PARALLEL_ENCODE_MIN_CHARS",
    "RESERVED_TEMPLATE_VARIABLES",
    "ChatPrompt",
    "NormalizedMessages",
    "TokenizedPrompt",
    "assistant_mask",
    "check_text_only",
    "normalize_completion_prompts",
    "normalize_messages",
    "prompt_newest_marker_ended",
    "prompt_reasoning_ended",
    "prompt_tokens_lower_bound",
    "refuse_media",
    "render_chat",
    "tokenize_prompt",
    "truncate",
]


#: Template variables that come from the request's own fields and that kwargs cannot replace.
RESERVED_TEMPLATE_VARIABLES = frozenset(
    {"messages", "tools", "documents", "add_generation_prompt", "continue_final_message",
     "tito_continue_final_message", "chat_template", "tokenize"}
)

_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


@dataclass(frozen=True)
class ChatPrompt:
    """A rendered chat prompt: its text, ``{% generation %}`` spans and the media parts."""

    text: str
    generation_spans: tuple[tuple[int, int], ...]
    media_parts: list[dict[str, Any]]


# ------------------------------------------------------------------------------------------
# Messages
# ------------------------------------------------------------------------------------------


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
        tito_continue_final_message=continue_final_message,
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


# ------------------------------------------------------------------------------------------
# Reasoning state of the prompt
# ------------------------------------------------------------------------------------------


