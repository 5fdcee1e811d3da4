"""What a plain Hugging Face model folder says about serving it, read as vLLM reads it.

Why: a user brings a folder as the Hub has it (``tokenizer.json``, ``tokenizer_config.json``,
``config.json``, ``generation_config.json``); tito must serve it without a ``tito.json``, with the
values vLLM would use for the same folder:

* **max_model_len**: vLLM's ``_get_and_verify_max_len`` (see :func:`max_model_len`):
  ``config.json`` ``max_position_embeddings`` (or another length key), capped by
  ``tokenizer_config.json`` ``model_max_length``, RoPE scaling applied as vLLM does.
* **EOS ids beyond the tokenizer's**: ``generation_config.json`` ``eos_token_id`` (an int or a
  list), else ``config.json``'s (what ``transformers`` builds a generation config from).
* **vocab_size**: ``config.json`` ``vocab_size`` (padded: the engine's logits cover it).
* **default sampling**: the ``generation_config.json`` fields vLLM's ``--generation-config auto``
  (its default) turns into default sampling parameters.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

CONFIG_FILE = "config.json"
GENERATION_CONFIG_FILE = "generation_config.json"

#: config.json keys that bound the context length (vLLM's ``possible_keys``).
LENGTH_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
#: vLLM's length when no key says one.
DEFAULT_MAX_MODEL_LEN = 2048
#: RoPE types whose ``max_position_embeddings`` already is the scaled length.
_PRESCALED_ROPE_TYPES = frozenset(
    {"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"}
)
#: generation_config.json fields vLLM uses as default sampling parameters, with the
#: ``transformers.GenerationConfig`` defaults that its ``to_diff_dict`` leaves out (so vLLM does too).
#: the generation config's fields vLLM 0.33 takes as sampling defaults
#: (``ModelConfig.get_diff_sampling_param``; ``max_new_tokens`` becomes ``max_tokens``)
SAMPLING_KEYS: tuple[str, ...] = (
    "repetition_penalty", "presence_penalty", "frequency_penalty", "temperature", "top_k",
    "top_p", "min_p", "max_new_tokens", "skip_special_tokens",
)


class HFConfigError(ValueError):
    """A Hugging Face file is present but unusable (the message names the file and key)."""


def read_optional_json(folder: Path, name: str) -> dict[str, Any] | None:
    """The object in ``folder/name``, None when the file is absent; :class:`HFConfigError` if bad."""
    file = folder / name
    if not file.is_file():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HFConfigError(f"cannot read {name}: {exc}") from None
    if not isinstance(data, dict):
        raise HFConfigError(f"{name} must hold a JSON object")
    return data


def _text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a (possibly multimodal) config: its keys win."""
    text = config.get("text_config")
    return {**config, **text} if isinstance(text, dict) else config


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _rope_parameters(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """RoPE parameter dicts (``rope_parameters``, older files ``rope_scaling``; per layer type
    when nested), as vLLM's ``iter_rope_parameters`` sees them."""
    rope = cfg.get("rope_parameters", cfg.get("rope_scaling"))
    if not isinstance(rope, dict) or not rope:
        return []
    if all(isinstance(v, dict) for v in rope.values()):
        return [v for v in rope.values() if v]
    return [rope]


def max_model_len(config: dict[str, Any] | None, tokenizer_config: dict[str, Any]) -> int:
    """The context length vLLM 0.33 derives for this folder (``_get_and_verify_max_len``).

    The smallest length key of ``config.json`` (its ``text_config`` for multimodal models;
    ``model_max_length`` there wins, for Command-R), capped by ``tokenizer_config.json``
    ``model_max_length``; none at all: 2048, vLLM's assumption (logged). Then the RoPE
    ``factor`` multiplies it, except for the types whose length is already the scaled one
    (``su``, ``longrope``, ``llama3``, YaRN variants) and Gemma 3; LongRoPE uses
    ``original_max_position_embeddings``.
    """
    cfg = _text_config(config or {})
    derived: float = float("inf")
    for key in LENGTH_KEYS:
        if _number(cfg.get(key)):
            derived = min(derived, cfg[key])
    if _number(cfg.get("model_max_length")) and cfg["model_max_length"]:
        derived = cfg["model_max_length"]
    if _number(tokenizer_config.get("model_max_length")):
        derived = min(derived, tokenizer_config["model_max_length"])
    if derived == float("inf"):
        logger.warning(
            "%s has no context length key; assuming %d tokens as vLLM does (set tito.json max_model_len)",
            CONFIG_FILE, DEFAULT_MAX_MODEL_LEN,
        )
        derived = DEFAULT_MAX_MODEL_LEN
    rope = _rope_parameters(cfg)
    if rope and "gemma3" not in str(cfg.get("model_type", "")):
        factor: Any = 1.0
        for params in rope:
            if params.get("rope_type", params.get("type")) not in _PRESCALED_ROPE_TYPES:
                factor = params.get("factor", factor)
        derived *= factor if _number(factor) else 1.0
    if any(p.get("rope_type", p.get("type")) == "longrope" for p in rope):
        original = cfg.get("original_max_position_embeddings")
        if _number(original):
            derived = original
    return int(derived)


def _ids(value: Any, where: str) -> list[int]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in items):
        raise HFConfigError(f"{where} eos_token_id must be a token id or a list of them, got {value!r}")
    return list(items)


def generation_eos_ids(
    config: dict[str, Any] | None, generation_config: dict[str, Any] | None
) -> list[int]:
    """EOS ids of the generation config (rules in the module docstring), in file order."""
    if generation_config is not None and "eos_token_id" in generation_config:
        return _ids(generation_config["eos_token_id"], GENERATION_CONFIG_FILE)
    if config is not None:
        cfg = _text_config(config)
        return _ids(cfg.get("eos_token_id"), CONFIG_FILE)
    return []


def vocab_size(config: dict[str, Any] | None) -> int | None:
    """``config.json`` ``vocab_size`` (of ``text_config`` for multimodal configs), if any."""
    if config is None:
        return None
    size = _text_config(config).get("vocab_size")
    return size if _positive_int(size) else None


def default_sampling(generation_config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Default sampling parameters from a generation config (``generation_config.json`` with
    the server's overrides applied), as vLLM 0.33 reads them: every :data:`SAMPLING_KEYS` field
    that is set (transformers 5 has no defaults of its own for them, so an explicit ``top_k:
    50`` counts), ``max_new_tokens`` as ``max_tokens``; None when it sets none. A value of the
    wrong type (a number that is a bool or a string, a flag that is no bool) is not taken."""
    if not generation_config:
        return None
    out: dict[str, Any] = {}
    for key in SAMPLING_KEYS:
        value = generation_config.get(key)
        if key == "skip_special_tokens":
            if isinstance(value, bool):
                out[key] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out["max_tokens" if key == "max_new_tokens" else key] = value
    return out or None


#: architectures vLLM 0.33 renders with an encoding of its own instead of a chat template
#: (``ModelConfig._try_verify_and_update`` -> ``tokenizer_mode``), tito's name for the ones it
#: implements (:mod:`tito.core.render_dsv32`, :mod:`tito.core.render_dsv4`,
#: :mod:`tito.core.render_dsv41`, :mod:`tito.core.render_inkling`) and None for the others
#: (Kimi-K3: vLLM's renderer reorders tool results, then calls the tokenizer's own
#: ``apply_chat_template``, which is the model repository's Python code (``encoding_k3``,
#: ``trust_remote_code``), not vLLM's: tito runs no code from a model folder)
NATIVE_RENDERERS: dict[str, str | None] = {
    "DeepseekV32ForCausalLM": "deepseek_v32",
    "DeepseekV4ForCausalLM": "deepseek_v4", "DeepseekV4ForConditionalGeneration": "deepseek_v4",
    "DeepseekV41ForCausalLM": "deepseek_v41", "KimiK3ForConditionalGeneration": None,
    "InklingForCausalLM": "inkling", "InklingForConditionalGeneration": "inkling",
}

#: the encodings given an empty conversation to encode (vLLM 0.33 renders it on chat,
#: /tokenize, Responses and Messages): DeepSeek-V4 / V4.1 the BOS alone, Inkling its effort block
#: and generation prompt, DeepSeek-V3.2 its tools' system message (without tools its encoding
#: fails, vLLM's 500, tito's 400 in ``render_chat_parts.native_prompt``; fuzz_render seed 337)
ENCODES_EMPTY = frozenset({"deepseek_v4", "deepseek_v41", "inkling", "deepseek_v32"})


def native_renderer(config: dict[str, Any] | None, folder: Path) -> str | None:
    """The encoding vLLM 0.33 renders this model's chats with (``tokenizer_mode`` auto), when
    tito implements it; an architecture vLLM encodes natively and tito does not is logged
    (tito then renders its chat template, which may differ from vLLM's prompt)."""
    architectures = (config or {}).get("architectures")
    if not isinstance(architectures, list):
        return None
    for arch in architectures:
        if isinstance(arch, str) and arch in NATIVE_RENDERERS:
            name = NATIVE_RENDERERS[arch]
            if name is None:
                logger.warning(
                    "model folder %s: vLLM 0.33 renders %s chats with its own encoding, which "
                    "tito does not implement: tito renders the folder's chat template (prompts "
                    "may differ from vLLM's)", folder, arch)
            return name
    return None


def default_reasoning_parser(config: dict[str, Any] | None) -> str | None:
    """The reasoning parser vLLM 0.33 serves this model with when none is named (its
    ``verify_and_update_config``: ``openai_gptoss`` for ``model_type`` ``gpt_oss``; its render
    server takes the resolved one). Why it matters: vLLM renders a gpt-oss chat with harmony
    whatever its flags, and parses its reasoning without ``--reasoning-parser``; tito knows a
    harmony model by its parser names, so this name makes a plain gpt-oss folder one."""
    return "openai_gptoss" if (config or {}).get("model_type") == "gpt_oss" else None
