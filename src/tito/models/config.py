"""``tito.json``: tito's own per-model settings, next to the tokenizer files.

Why a separate file: ``tokenizer_config.json`` is Hugging Face's and describes the tokenizer only;
what vLLM takes as server flags (``--served-model-name``, ``--tool-call-parser``,
``--reasoning-parser``, ``--max-model-len``, ``--max-logprobs``) and the generation-config EOS ids
have to live somewhere for a stateless Lambda that has no command line. Unknown keys are kept
(``model_extra``) so newer folders still load on older code.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ModelConfig(BaseModel):
    """The content of one model folder's ``tito.json``."""

    model_config = ConfigDict(extra="allow", strict=True)

    served_model_name: str | None = Field(
        default=None, min_length=1, description="Name clients send as `model`; default: folder name."
    )
    tool_parser: str | None = Field(default=None, description="vLLM --tool-call-parser name.")
    reasoning_parser: str | None = Field(default=None, description="vLLM --reasoning-parser name.")
    max_model_len: int = Field(gt=0, description="Context length (prompt + completion) in tokens.")
    max_logprobs: int = Field(default=20, ge=-1, description="vLLM --max-logprobs; -1 = unlimited.")
    extra_eos_token_ids: list[int] = Field(
        default_factory=list,
        description="Extra stop ids (generation_config.json eos_token_id beyond the primary one).",
    )
    default_chat_template_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="vLLM --default-chat-template-kwargs."
    )
