"""``/tokenize`` and ``/detokenize`` bodies, as vLLM 0.33 names and shapes them.

A tokenize body is either a completions-style ``{"model", "prompt"}`` or a chat-style
``{"model", "messages", ...}`` (the chat template is applied first, as chat render does); the
answer is ``{"count", "max_model_len", "tokens", "token_strs"}``. A detokenize body is
``{"model", "tokens"}`` and its answer ``{"prompt"}``.
"""

from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from tito.protocol.chat import ChatCompletionToolsParam, normalize_messages
from tito.protocol.common import OpenAIBaseModel, TokenId
from tito.protocol.raw_rules import tokenize_chat_rules

__all__ = [
    "DetokenizeRequest",
    "DetokenizeResponse",
    "TokenizeChatRequest",
    "TokenizeCompletionRequest",
    "TokenizeRequest",
    "TokenizeResponse",
    "VersionResponse",
]


class TokenizeCompletionRequest(OpenAIBaseModel):
    """Tokenize one text prompt (special tokens added by default, as the completions path)."""

    model: str | None = None
    prompt: str
    add_special_tokens: bool = True
    return_token_strs: bool | None = False


class TokenizeChatRequest(OpenAIBaseModel):
    """Tokenize a conversation through the model's chat template (as chat render does)."""

    model: str | None = None
    messages: list[dict[str, Any]]
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    add_special_tokens: bool = False
    return_token_strs: bool | None = False
    chat_template: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    tools: list[ChatCompletionToolsParam] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _raw_rules(cls, data: Any) -> Any:
        """vLLM's check of the raw body before its fields (:mod:`tito.protocol.raw_rules`)."""
        return tokenize_chat_rules(data) if isinstance(data, dict) else data

    @field_validator("messages", mode="before")
    @classmethod
    def _messages(cls, value: Any) -> Any:
        """The messages' schema, as a chat request's (vLLM checks it with the body, before
        the model lookup); the render checks the rest. A deprecated ``reasoning_content`` is
        kept as it is, not renamed: vLLM's tokenize body has no rename (its template path never
        reads it, and the tokenize service drops it; Inkling's encoding reads the raw message,
        vLLM's harmony render reads it as the chat render does)."""
        if not isinstance(value, list):
            return normalize_messages(value, check_calls=False)
        legacy = {i: m["reasoning_content"] for i, m in enumerate(value)
                  if isinstance(m, dict) and "reasoning_content" in m}
        out = normalize_messages([{k: v for k, v in m.items() if k != "reasoning_content"}
                                  if i in legacy else m for i, m in enumerate(value)],
                                 check_calls=False)
        for i, text in legacy.items():
            out[i] = {**out[i], "reasoning_content": text}
        return out


TokenizeRequest = TokenizeCompletionRequest | TokenizeChatRequest


class TokenizeResponse(OpenAIBaseModel):
    count: int
    max_model_len: int
    tokens: list[int]
    token_strs: list[str] | None = None


#: ``/detokenize``'s ids: vLLM 0.33 bounds them to a signed 64-bit integer in its schema
#: (``le=2**63-1``: the body's 400 names the path), before its tokenizer reads them
DetokenizeId = Annotated[int, Field(ge=0, le=2**63 - 1)]


class DetokenizeRequest(OpenAIBaseModel):
    model: str | None = None
    tokens: list[DetokenizeId] = Field(max_length=1_048_576)


class DetokenizeResponse(OpenAIBaseModel):
    prompt: str


class VersionResponse(OpenAIBaseModel):
    """``GET /version``: vLLM answers ``{"version"}``; tito adds the vLLM API it speaks."""

    version: str
    vllm_api: str = "0.33.0"
