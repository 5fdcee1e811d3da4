"""A served model's settings: derived from the Hugging Face files, overridden by ``tito.json``.

Why two sources: a plain Hugging Face folder already says most of what vLLM reads from it
(``config.json``: context length and padded vocabulary size; ``generation_config.json``: the EOS ids),
so it is served as it is. What vLLM takes as server flags (``--served-model-name``,
``--tool-call-parser``, ``--reasoning-parser``, ``--max-model-len``, ``--max-logprobs``) has no place
in those files, and a stateless Lambda has no command line: ``tito.json`` (optional) holds them and
overrides any derived value. Unknown keys are errors (a typo must not be ignored silently); the
folder loader (:mod:`tito.models.model_spec`) adds the folder name and checks parser names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tito.protocol.common import (  # not the builtins: see new_list
    ReasoningEffort,  # (vLLM's: the keys its map takes)
    new_dict,
    new_list,
)


class ModelConfig(BaseModel):
    """Effective settings of one model (``tito.json`` over the values derived from the folder)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    served_model_name: str | list[str] | None = Field(
        default=None, min_length=1,
        description="Name clients send as `model` (a list: every name serves the model, the "
        "first its own, as vLLM's --served-model-name A B); default: folder name.",
    )
    tool_parser: str | None = Field(default=None, description="vLLM --tool-call-parser name.")
    reasoning_parser: str | None = Field(
        default=None, description="vLLM --reasoning-parser name; default: openai_gptoss for a "
        "gpt-oss model (config.json model_type gpt_oss, as vLLM defaults it), else none.")
    max_model_len: int = Field(
        gt=0,
        description="Context length (prompt + completion) in tokens; default: config.json "
        "max_position_embeddings (vLLM's rules), else tokenizer_config model_max_length.",
    )
    max_logprobs: int = Field(default=20, ge=-1, description="vLLM --max-logprobs; -1 = unlimited.")
    extra_eos_token_ids: list[int] = Field(
        default_factory=new_list,
        description="Stop ids beyond the primary EOS; default: generation_config.json eos_token_id "
        "(else config.json's).",
    )
    vocab_size: int | None = Field(
        default=None, gt=0,
        description="Rows of the model's output layer (config.json vocab_size, read when this is "
        "unset); the engine can sample ids in [tokenizer size, vocab_size), they decode to ''.",
    )
    default_chat_template_kwargs: dict[str, Any] = Field(
        default_factory=new_dict, description="vLLM --default-chat-template-kwargs."
    )
    chat_template: str | None = Field(
        default=None, min_length=1,
        description="vLLM --chat-template: the template chats render with instead of the "
        "folder's (its named ones too): a file (relative to the model folder), else, when it "
        "holds a '{', '}' or newline, the template itself.",
    )
    default_sampling_params: dict[str, Any] | None = Field(
        default=None, description="Sampling defaults; default: the generation config's sampling "
        "fields as vLLM reads them (generation_config, override_generation_config).",
    )
    generation_config: str = Field(
        default="auto", min_length=1,
        description="vLLM --generation-config: where sampling defaults come from (auto: the "
        "folder's generation_config.json; vllm: none, vLLM's neutral defaults; else a folder, "
        "relative to the model folder, holding a generation_config.json). The EOS ids always "
        "come from the model folder's, as in vLLM.",
    )
    override_generation_config: dict[str, Any] = Field(
        default_factory=new_dict,
        description="vLLM --override-generation-config: generation config fields set over the "
        "source's (e.g. {\"temperature\": 0.5}); its max_new_tokens also caps every "
        "request's max_tokens, as vLLM's.",
    )
    tokenizer_mode: Literal["auto", "hf", "mistral"] = Field(
        default="auto",
        description="vLLM --tokenizer-mode: auto = mistral-common when the folder holds its "
        "tokenizer file (tekken.json, tokenizer.model.v*), else tokenizer.json.",
    )
    multimodal: bool = Field(
        default=False,
        description="Whether the model takes image/audio/video parts (passed to the engine as "
        "content_parts); default: derived from config.json as vLLM does (a multimodal "
        "architecture, or a vision/audio sub-config). A text-only model refuses them with "
        "vLLM's 400.",
    )
    native_renderer: Literal["deepseek_v32", "deepseek_v4", "deepseek_v41", "inkling"] | None = Field(
        default=None,
        description="The encoding chats are rendered with instead of a chat template, as vLLM "
        "0.33 renders them; default: derived from config.json's architecture "
        "(DeepseekV32ForCausalLM: deepseek_v32; DeepseekV4ForCausalLM, "
        "DeepseekV4ForConditionalGeneration: deepseek_v4; DeepseekV41ForCausalLM: "
        "deepseek_v41; InklingForCausalLM, "
        "InklingForConditionalGeneration: inkling) with tokenizer_mode auto.",
    )
    exclude_tools_when_tool_choice_none: bool = Field(
        default=False, description="vLLM --exclude-tools-when-tool-choice-none."
    )
    trust_request_mm_kwargs: bool = Field(
        default=False,
        description="vLLM --trust-request-mm-kwargs: accept a request's mm_processor_kwargs "
        "and media_io_kwargs (refused with vLLM's 400 otherwise: they change multimodal "
        "preprocessing cost).",
    )
    tool_strict_level: Literal["auto", "function", "parameter"] | None = Field(
        default=None,
        description="vLLM --tool-strict-level: the floor of the structural tags render sends "
        "for tool calls (auto: from tool_choice and each tool's strict; function: the call "
        "envelope for every request with tools; parameter: also every tool's arguments, as if "
        "strict); unset: the tool parser's default (auto; glm45/glm47: function).",
    )
    chat_template_content_format: Literal["auto", "string", "openai"] = Field(
        default="auto",
        description="vLLM --chat-template-content-format: how a message's content parts reach "
        "the chat template (string: the text parts joined; openai: the list of typed parts); "
        "auto: detected from the template, as vLLM detects it.",
    )
    anthropic_disabled_thinking_effort: Literal[
        "auto", "none", "low", "medium", "high", "xhigh", "max"] = Field(
        default="auto",
        description="vLLM --anthropic-disabled-thinking-effort: the reasoning_effort a Messages "
        "request with thinking disabled renders with; auto: none, unless the template refuses "
        "or ignores it (then low), probed once as vLLM probes.",
    )
    reasoning_effort_map: dict[ReasoningEffort, str] = Field(
        default_factory=new_dict,
        description="vLLM --reasoning-effort-map: a request's reasoning_effort (chat, Responses "
        "reasoning.effort, Messages thinking) rewritten to the value the model's template or "
        "parser knows (e.g. {\"none\": \"no_think\"}) before the template kwargs, "
        "enable_thinking, the reasoning parser's kwargs and harmony's effort are built "
        "(not /tokenize's, as vLLM).",
    )


def mapped_effort(effort: str | None, effort_map: Mapping[str, str] | None) -> str | None:
    """A request's ``reasoning_effort`` as the model takes it: the server's
    ``reasoning_effort_map`` (vLLM's ``--reasoning-effort-map``, its ``map_reasoning_effort``)
    rewrites it, an effort it does not list stays. Here, beside the setting, so derender
    (:mod:`tito.service.config`) rewrites it without importing render."""
    if effort is None or not effort_map:
        return effort
    return effort_map.get(effort, effort)


def max_tokens_cap(config: ModelConfig) -> int | None:
    """The ceiling on every request's ``max_tokens`` (vLLM 0.33's ``override_max_tokens``):
    the override's ``max_new_tokens`` when sampling defaults come from the folder or vLLM,
    the default ``max_tokens`` itself when they come from a generation config folder."""
    if config.generation_config in ("auto", "vllm"):
        value = config.override_generation_config.get("max_new_tokens")
    else:
        value = (config.default_sampling_params or {}).get("max_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def served_names(config: ModelConfig, folder_name: str) -> tuple[str, ...]:
    """Every name the model answers to, its own first (vLLM's ``--served-model-name`` list)."""
    value = config.served_model_name
    if value is None:
        return (folder_name,)
    return (value,) if isinstance(value, str) else tuple(value)
