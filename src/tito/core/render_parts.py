"""A chat message's content parts as vLLM 0.33 reads them: the template's text or list of parts,
the media set aside, and its 400s (part types, text-only models, prompt embeddings).

Why a module of its own: which part a type is (given, or inferred from a payload key in vLLM's
order), what a lenient (custom-typed) or strict (OpenAI-typed) message does with a part that
lacks its text, and which refusal comes first are the parts' rules, apart from the message rules
of :mod:`tito.core.render_messages` (which calls :func:`content_for_template`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tito.core.message_union import (
    MEDIA_PART_TYPES,
    OPENAI_PART_TYPES,
    custom_typed,
    openai_part_fits,
)
from tito.errors import BadRequest

if TYPE_CHECKING:
    from tito.core.template import ContentFormat

#: vLLM 0.33's answer to a media part on a text-only model (its multimodal registry's), and to
#: an ``*_embeds`` part (the model has no multimodal config)
NOT_MULTIMODAL = "{model} is not a multimodal model"


NOT_MULTIMODAL_EMBEDS = "The model is not multimodal."


#: Text-bearing part types (``refusal``, ``thinking`` and the Responses-style names are text for a
#: template), and the key holding their text.
_TEXT_PART_KEYS = {"text": "text", "input_text": "text", "output_text": "text",
                   "refusal": "refusal", "thinking": "thinking"}

#: Part types whose missing text drops the part (vLLM 0.33's ``PART_TYPES_TO_SKIP_NONE_CONTENT``);
#: the other text types give a null text.
_SKIP_WITHOUT_TEXT = frozenset({"text", "refusal"})

#: the part types vLLM 0.33 parses, as its unknown part type's 400 lists them
_SUPPORTED_PART_TYPES = ", ".join(sorted({
    "text", "thinking", "input_text", "output_text", "input_image", "image_url", "image_embeds",
    "audio_embeds", "video_embeds", "prompt_embeds", "image_pil", "audio_url", "input_audio",
    "refusal", "video_url", "tool_reference"}))

#: Every key of vLLM 0.33's content part types; a part's other keys ride along on the part the
#: template gets in the list format (vLLM's ``_collect_extra_fields``).
_KNOWN_PART_KEYS = frozenset({
    "audio_embeds", "audio_url", "closed", "data", "file", "image_embeds", "image_pil",
    "image_url", "input_audio", "name", "prompt_cache_breakpoint", "refusal", "text", "thinking",
    "type", "uuid", "video_embeds", "video_url"})


#: the payload keys vLLM 0.33 infers a part's type from when it has no ``type`` (or a ``uuid``),
#: in its order (``parse_chat_message_content_mm_part``): ``input_image`` is not one of them
_UNTYPED_KEYS = ("image_url", "image_pil", "image_embeds", "audio_embeds", "video_embeds",
                 "prompt_embeds", "audio_url", "input_audio", "video_url", "tool_reference")


def _part_type(part: Mapping[str, Any], where: str) -> str:
    """A part's type; vLLM infers a media part's from its payload key when ``type`` is missing
    (a text part needs its ``type``: vLLM 0.33's message types refuse it)."""
    kind = part.get("type")
    if kind is not None and part.get("uuid") is None:  # vLLM: a uuid makes it a media part
        if not isinstance(kind, str):
            raise BadRequest(f"{where}.type must be a string.", param=where)
        return kind
    for key in _UNTYPED_KEYS:
        if key in part and not (key == "audio_embeds" and kind == "video_embeds"):
            return key
    raise BadRequest("Missing 'type' field in multimodal part.", param="type")  # vLLM's words


def refuse_media(kind: str, model: str) -> BadRequest:
    """vLLM 0.33's 400 for a ``kind`` media part sent to the text-only model ``model``."""
    return BadRequest(NOT_MULTIMODAL_EMBEDS if kind.endswith("_embeds")
                      else NOT_MULTIMODAL.format(model=model))


def check_text_only(messages: Sequence[Any], model: str, *, parse_all: bool = False) -> None:
    """Refuse the first media part of ``messages`` (the messages a text-only model ``model``
    encodes by code, without :func:`tito.core.render_messages.normalize_messages`), as vLLM
    0.33 does.

    ``parse_all`` (a chat body's messages on a mistral-common model): vLLM 0.33 parses every
    part, in order, before mistral-common sees the conversation, so each part's own 400 comes
    first wherever it stands: a part of a message that is not
    :func:`tito.core.message_union.custom_typed` must fit one of its role's OpenAI part types
    (pydantic's lazy part error, param null: :func:`refuse_lazy_part`), then a part with no type
    (nor a payload key to infer it from) is "Missing 'type'" and an unknown type the "Unsupported
    chat content part type" 400 (``render_mistral_untyped_parts.json``). Without it (the
    Responses render's own messages) the check stops quietly at a part whose type is not
    known, but for a text part with a ``uuid`` (fuzz_render s420-125)."""
    for message in messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            continue
        role = message.get("role")
        lazy = parse_all and isinstance(role, str) and not custom_typed(message)
        for k, part in enumerate(content):
            if lazy and not openai_part_fits(role, part):
                raise refuse_lazy_part(role, k)
            if not isinstance(part, Mapping):
                continue
            try:
                kind = _part_type(part, "part")
            except BadRequest:
                if parse_all or part.get("type") == "text" and part.get("uuid") is not None:
                    raise  # (vLLM parses every part first: a text part with a uuid is its
                    # "Missing 'type'" 400 in any message; fuzz_render s420-125)
                return
            if kind in MEDIA_PART_TYPES:
                raise refuse_media(kind, model)
            if kind == "prompt_embeds" and parse_all:
                refuse_prompt_embeds(part)
            if kind not in _TEXT_PART_KEYS and kind != "tool_reference":
                if parse_all:
                    raise unsupported_part(kind)
                return


def refuse_lazy_part(role: str, k: int) -> BadRequest:
    """vLLM 0.33's 400 for part ``k`` of a message left to its role's OpenAI type that fits
    none of that type's parts: pydantic's ``ValidatorIterator`` error as vLLM iterates them,
    no param (``render_mistral_untyped_parts.json``, ``lazy_*``)."""
    kinds = ", ".join(OPENAI_PART_TYPES.get(role, ("text",)))
    return BadRequest(f"validation error for ValidatorIterator: part {k} of the {role} message "
                      f"fits none of its OpenAI content part types ({kinds}).")


def unsupported_part(kind: Any) -> BadRequest:
    """vLLM 0.33's 400 for a part of a type its part parser does not know."""
    return BadRequest(f"Unsupported chat content part type: {kind!r}. Supported types: "
                      f"{_SUPPORTED_PART_TYPES}.", param="type")  # vLLM 0.33's words


#: one part as the template's list format writes it: (kind, text or name, the extra keys)
_Part = tuple[str, "str | None", dict[str, Any]]


def _content_parts(
    content: list[Any], where: str, media: list[dict[str, Any]], text_only: str | None = None,
    *, openai_role: str | None = None,
) -> list[_Part]:
    """(kind, text, extra keys) per part; media parts are appended to ``media`` untouched
    (``text_only``: the name of a text-only model, which refuses them). ``openai_role``: the
    message is that role's OpenAI type (not :func:`tito.core.message_union.custom_typed`),
    whose parts must each fit one of the role's OpenAI part types (:func:`openai_part_fits`;
    tito also takes bare strings and ``input_text`` / ``output_text`` parts: the ``bare_parts``
    deviation), else a 400 (the specific one of :func:`_one_part` first); None: vLLM's custom
    type, where a text part without its text is skipped (``text``, ``refusal``) or has a null
    text."""
    out: list[_Part] = []
    for j, part in enumerate(content):
        pw = f"{where}[{j}]"
        one = _one_part(part, pw, media, text_only, lenient=openai_role is None)
        if openai_role is not None and not openai_part_fits(openai_role, part) and not (
                isinstance(part, str) or part.get("type") in ("input_text", "output_text")):
            kinds = ", ".join(OPENAI_PART_TYPES.get(openai_role, ("text",)))
            raise BadRequest(f"{pw} is not a valid {openai_role} content part (the message is "
                             f"OpenAI's {openai_role} message type, whose parts are {kinds}).",
                             param=pw)
        if one is not None:
            out.append(one)
    return out


def refuse_prompt_embeds(part: Mapping[str, Any]) -> None:
    """vLLM 0.33 parses a ``prompt_embeds`` part (a content part, or a message's ``reasoning``
    of that type, whatever its message type) into embeddings, which its render servers (no
    ``--enable-prompt-embeds``) refuse: always a 400, in vLLM's words."""
    data = part.get("data")
    if not isinstance(data, str) or not data:
        raise BadRequest("prompt_embeds content part requires a non-empty `data` field with "
                         "base64-encoded tensor bytes. (parameter=prompt_embeds)",
                         param="prompt_embeds")
    raise BadRequest("You must set `--enable-prompt-embeds` to input `prompt_embeds` "
                     "(parameter=prompt_embeds)", param="prompt_embeds")


def _one_part(part: Any, pw: str, media: list[dict[str, Any]], text_only: str | None, *,
              lenient: bool) -> _Part | None:
    """One part of :func:`_content_parts` (None: a text part ``lenient`` skips)."""
    if isinstance(part, str):
        return ("text", part, {})
    if not isinstance(part, Mapping):
        raise BadRequest(f"{pw} must be an object or a string.", param=pw)
    kind = _part_type(part, pw)
    if kind == "prompt_embeds":
        refuse_prompt_embeds(part)
    extra = {k: v for k, v in part.items() if k not in _KNOWN_PART_KEYS}
    if kind in _TEXT_PART_KEYS:
        text = part.get(_TEXT_PART_KEYS[kind])
        if text is None and lenient:
            return None if kind in _SKIP_WITHOUT_TEXT else ("text", None, extra)
        if not isinstance(text, str) and not lenient:
            raise BadRequest(
                f"{pw}.{_TEXT_PART_KEYS[kind]} must be a string for a '{kind}' part.", param=pw
            )
        return ("text", text, extra)
    if kind == "tool_reference":  # vLLM 0.33: a deferred tool's name, for the template
        name = part.get("name")  # (absent: None, as vLLM's template gets it)
        if name is not None and not isinstance(name, str):
            raise BadRequest(f"{pw}.name must be a string for a 'tool_reference' part.",
                             param=pw)
        return ("tool_reference", name, {})
    if kind in MEDIA_PART_TYPES:
        key, placeholder = MEDIA_PART_TYPES[kind]
        if text_only is not None:  # vLLM refuses the media part before it reads its payload
            raise refuse_media(kind, text_only)
        if part.get(key) is None:
            raise BadRequest(f"{pw} of type '{kind}' must carry `{key}`.", param=pw)
        media.append(dict(part))
        return (placeholder, None, extra)
    raise unsupported_part(kind)


def join_texts(texts: list[Any], sep: str = "\n") -> str:
    """``sep.join(texts)`` as vLLM 0.33 joins the texts of a message's parts; a custom-typed
    message's text part may hold any JSON value, which fails vLLM's join: the same 400."""
    for k, text in enumerate(texts):
        if not isinstance(text, str):
            raise BadRequest(f"sequence item {k}: expected str instance, "
                             f"{type(text).__name__} found")
    return sep.join(texts)


def content_for_template(
    content: Any, where: str, fmt: ContentFormat, media: list[dict[str, Any]],
    text_only: str | None = None, openai_role: str | None = None,
) -> str | list[dict[str, Any]]:
    if content is None:
        return "" if fmt == "string" else []
    if isinstance(content, str):
        return content if fmt == "string" else [{"type": "text", "text": content}]
    if isinstance(content, Mapping) and openai_role is not None:
        # OpenAI's role types read content as an iterable: an object's keys, which are no parts
        if content:
            raise BadRequest(f"{where} is an object: its keys are not content parts.",
                             param=where)
        content = []
    if not isinstance(content, list):
        raise BadRequest(f"{where} must be a string, a list of parts or null.", param=where)
    parts = _content_parts(content, where, media, text_only, openai_role=openai_role)
    if fmt == "string":
        # an empty text part adds nothing, not even its separator (vLLM keeps truthy parts)
        return join_texts([text for kind, text, _ in parts
                           if kind in ("text", "tool_reference") and text])
    return [{"type": "text", "text": text, **extra} if kind == "text"
            else {"type": kind, "name": text} if kind == "tool_reference"
            else {"type": kind, **extra}
            for kind, text, extra in parts]
