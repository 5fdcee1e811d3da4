"""A model folder's settings files read and validated: the cheap half of loading a model.

Why a module of its own: the registry reads every folder's :class:`ModelSpec` at init (served
name, ``/v1/models`` card, every error those small JSON files can hold: unknown ``tito.json``
keys, unknown parser names, a missing tokenizer file) and builds the
:class:`~tito.models.served.ServedModel` from it only when the model is first needed
(:func:`tito.models.served.build_model`, which loads the tokenizer).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tito.models import hf, mistral, multimodal
from tito.models.config import ModelConfig, served_names
from tito.models.hf import CONFIG_FILE, GENERATION_CONFIG_FILE

TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
TITO_CONFIG_FILE = "tito.json"
CHAT_TEMPLATE_FILE = "chat_template.jinja"
ADDITIONAL_CHAT_TEMPLATES_DIR = "additional_chat_templates"


class ModelLoadError(RuntimeError):
    """A model folder (or the models directory, or the S3 source) is unusable.

    A deployment error, raised at process start (Lambda init), not a client error: it is not a
    :class:`tito.errors.TitoError` on purpose, so it can never be turned into a 4xx response.
    """


def _tito_json(folder: Path, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """``tito.json`` (optional) with the caller's overrides on top; unknown keys are errors."""
    try:
        raw = hf.read_optional_json(folder, TITO_CONFIG_FILE) or {}
    except hf.HFConfigError as exc:
        raise ModelLoadError(f"model folder {folder}: {exc}") from None
    raw.update(overrides or {})
    unknown = sorted(set(raw) - set(ModelConfig.model_fields))
    if unknown:
        raise ModelLoadError(
            f"model folder {folder}: {TITO_CONFIG_FILE}: unknown key(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(ModelConfig.model_fields))})"
        )
    return raw


#: vLLM 0.33 parser names tito does not implement, and why (docs/conformance.md, the parser
#: fuzzer's section): named in the load error, so a user sees it is not a typo
_HF = "it builds its grammar at run time from the tokenizer's response_template"
_COHERE = "it needs the cohere_melody package"
_UNBOUNDED = "it decides {} only once {} (no bounded stream state){}"
UNPORTED_PARSERS: dict[tuple[str, str], str] = {
    **{(key, name): why for key in ("tool_parser", "reasoning_parser") for name, why in (
        ("hf", _HF), ("beam", "it is built on vLLM's 'hf' (response_template) parser"),
        ("cohere_command3", _COHERE), ("cohere_command4", _COHERE))},
    ("tool_parser", "minicpm5"): _UNBOUNDED.format("a call", "its whole block is valid", ""),
    ("tool_parser", "k2_horizon"): _UNBOUNDED.format(
        "a group's calls", "every call of the group is valid",
        "; its reasoning parser is implemented"),
    ("tool_parser", "minimax_m3"): _UNBOUNDED.format(
        "an invoke's arguments", "the invoke ends", "; its reasoning parser is implemented"),
    ("reasoning_parser", "minicpmv"): "it rewrites literal '\\n' in the text after parsing",
}


def _check_parsers(folder: Path, config: ModelConfig) -> None:
    """Parser names must exist now, not at the first request that needs them."""
    from tito.core.parsers import (
        HARMONY_REASONING_PARSERS,
        HARMONY_TOOL_PARSERS,
        INKLING_REASONING_PARSERS,
        INKLING_TOOL_PARSERS,
        MUSE_GLIMMER,
        MUSE_REASONING_PARSERS,
        MUSE_TOOL_PARSERS,
        REASONING_PARSERS,
        TOOL_PARSERS,
    )

    for key, value, known in (
        ("tool_parser", config.tool_parser, {*TOOL_PARSERS, *HARMONY_TOOL_PARSERS}),
        ("reasoning_parser", config.reasoning_parser,
         {*REASONING_PARSERS, *HARMONY_REASONING_PARSERS, *MUSE_REASONING_PARSERS,
          *INKLING_REASONING_PARSERS}),
    ):
        if value is not None and value not in known:
            why = UNPORTED_PARSERS.get((key, value))
            if why is not None:
                raise ModelLoadError(
                    f"model folder {folder}: {key} {value!r} is vLLM's, not implemented in "
                    f"tito: {why}")
            raise ModelLoadError(
                f"model folder {folder}: unknown {key} {value!r} (known: {', '.join(sorted(known))})"
            )
    tool, reasoning = config.tool_parser, config.reasoning_parser
    if (tool in HARMONY_TOOL_PARSERS and reasoning not in (None, *HARMONY_REASONING_PARSERS)) or (
        reasoning in HARMONY_REASONING_PARSERS and tool not in (None, *HARMONY_TOOL_PARSERS)
    ):
        raise ModelLoadError(
            f"model folder {folder}: harmony (gpt-oss) parsers go together: tool_parser "
            f"'openai' with reasoning_parser 'openai_gptoss' (got {tool!r}, {reasoning!r})"
        )
    if (tool in MUSE_TOOL_PARSERS and reasoning not in (None, *MUSE_REASONING_PARSERS)) or (
        reasoning in MUSE_REASONING_PARSERS and tool not in (None, *MUSE_TOOL_PARSERS)
    ) or (tool is not None and reasoning is not None and tool in MUSE_TOOL_PARSERS
          and (tool in MUSE_GLIMMER) != (reasoning in MUSE_GLIMMER)):
        raise ModelLoadError(  # one channel router reads both (tito.core.parsers.muse)
            f"model folder {folder}: Muse parsers go together: tool_parser 'muse' / "
            f"'musespark1x' with reasoning_parser 'muse' / 'musespark1x' or none, "
            f"'muse_glimmer' with 'muse_glimmer' or none "
            f"(got {tool!r}, {reasoning!r})"
        )
    if (tool in INKLING_TOOL_PARSERS and reasoning not in (None, *INKLING_REASONING_PARSERS)) or (
        reasoning in INKLING_REASONING_PARSERS and tool not in (None, *INKLING_TOOL_PARSERS)
    ):
        raise ModelLoadError(  # one block router reads both (tito.core.parsers.inkling)
            f"model folder {folder}: Inkling parsers go together: tool_parser 'inkling' with "
            f"reasoning_parser 'inkling' or none (got {tool!r}, {reasoning!r})"
        )


@dataclass(frozen=True, eq=False)
class ModelSpec:
    """A model folder read and validated without loading its tokenizer: the cheap half of a load.

    Why split: loading a tokenizer costs 0.1-1 s, reading the small JSON files beside it a few
    milliseconds. The registry reads every folder's spec at init (served name, ``/v1/models``
    card, every error those files can hold) and builds a :class:`ServedModel` from it only when
    the model is first needed (:func:`build_model`).
    """

    name: str
    path: Path
    config: ModelConfig
    """Settings; ``vocab_size`` is None here when no file states it (the build fills it in)."""
    tokenizer_config: dict[str, Any]
    mistral_file: Path | None
    """mistral-common's tokenizer file when the folder is served through it, else None."""
    created: int
    chat_template: str | None = None
    """The server's template (``chat_template``), read at load so a bad path fails there."""

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every served name, :attr:`name` first."""
        return served_names(self.config, self.name)


def _sampling_defaults(folder: Path, raw_config: Mapping[str, Any],
                       generation: dict[str, Any] | None) -> dict[str, Any] | None:
    """The sampling defaults vLLM 0.33 derives (``get_diff_sampling_param``): the generation
    config of ``generation_config`` (the folder's, none for ``vllm``, or another folder's),
    ``override_generation_config`` set over it."""
    source = raw_config.get("generation_config", "auto")
    if source == "vllm":
        generation = {}
    elif isinstance(source, str) and source != "auto":
        try:
            generation = hf.read_optional_json(folder / source, GENERATION_CONFIG_FILE)
        except hf.HFConfigError as exc:
            raise ModelLoadError(f"model folder {folder}: {exc}") from None
        if generation is None:
            raise ModelLoadError(f"model folder {folder}: generation_config {source!r} holds "
                                 f"no {GENERATION_CONFIG_FILE}")
    override = raw_config.get("override_generation_config")
    merged = {**(generation or {}), **(override if isinstance(override, Mapping) else {})}
    return hf.default_sampling(merged)


def _server_template(folder: Path, value: str) -> str:
    """``chat_template`` as vLLM 0.33's ``load_chat_template`` reads ``--chat-template``: the
    file it names (relative to the model folder), else the value itself when it looks like a
    template (a ``{``, ``}`` or newline); a path that does not open is a load error."""
    try:
        return (folder / value).read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        if any(c in value for c in "{}\n"):
            return value
        raise ModelLoadError(
            f"model folder {folder}: {TITO_CONFIG_FILE} chat_template {value!r} looks like a "
            f"file path, but it failed to be opened: {exc}") from None


def read_model_spec(path: str | Path, overrides: Mapping[str, Any] | None = None) -> ModelSpec:
    """Read and validate a folder's settings files; :class:`ModelLoadError` names folder and reason.

    ``overrides``: settings that win over ``tito.json`` (``tito serve --model`` flags), same keys.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ModelLoadError(f"model folder {folder} does not exist or is not a directory")
    raw_config = _tito_json(folder, overrides)
    mode = raw_config.get("tokenizer_mode", "auto")
    mistral_file = mistral.mistral_tokenizer_file(folder) if mode != "hf" else None
    if mode == "mistral" and mistral_file is None:
        raise ModelLoadError(
            f"model folder {folder}: tokenizer_mode mistral needs tekken.json or tokenizer.model.v*"
        )
    if mistral_file is None and not (folder / TOKENIZER_FILE).is_file():
        raise ModelLoadError(f"model folder {folder}: missing {TOKENIZER_FILE}")

    try:
        tokenizer_config = hf.read_optional_json(folder, TOKENIZER_CONFIG_FILE) or {}
        config_json = hf.read_optional_json(folder, CONFIG_FILE)
        generation = hf.read_optional_json(folder, GENERATION_CONFIG_FILE)
        generation_eos = hf.generation_eos_ids(config_json, generation)
        params = hf.read_optional_json(folder, mistral.PARAMS_FILE) if mistral_file else None
    except hf.HFConfigError as exc:
        raise ModelLoadError(f"model folder {folder}: {exc}") from None
    if mistral_file is not None and config_json is None and params is not None:
        config_json = {"max_position_embeddings": params.get("max_seq_len")}
    derived: dict[str, Any] = {
        "max_model_len": (raw_config["max_model_len"] if "max_model_len" in raw_config
                          else hf.max_model_len(config_json, tokenizer_config)),
        "extra_eos_token_ids": generation_eos,
        "vocab_size": hf.vocab_size(config_json),
        "default_sampling_params": _sampling_defaults(folder, raw_config, generation),
        "multimodal": multimodal.is_multimodal(config_json, params),
        # vLLM picks its encoding only in tokenizer_mode auto
        "native_renderer": (hf.native_renderer(config_json, folder)
                            if raw_config.get("tokenizer_mode", "auto") == "auto" else None),
    }
    for key in ("tool_parser", "reasoning_parser"):
        if raw_config.get(key) == "":  # vLLM's unset value (its reasoning parser's default)
            raw_config = {**raw_config, key: None}
    if raw_config.get("reasoning_parser") is None:  # (vLLM: an empty flag is its default too)
        raw_config = {**raw_config, "reasoning_parser": hf.default_reasoning_parser(config_json)}
    try:
        config = ModelConfig.model_validate({**derived, **raw_config})
    except ValidationError as exc:
        raise ModelLoadError(f"model folder {folder}: invalid {TITO_CONFIG_FILE}: {exc}") from None
    _check_parsers(folder, config)
    harmony_default = hf.default_reasoning_parser(config_json)
    if harmony_default is not None and config.reasoning_parser != harmony_default:
        # (vLLM's harmony parser refuses any other at every request: a 500)
        raise ModelLoadError(
            f"model folder {folder}: a gpt-oss model (config.json model_type gpt_oss) is served "
            f"with harmony: reasoning_parser 'openai_gptoss' (got {config.reasoning_parser!r})")
    names = served_names(config, folder.name)
    if any(not isinstance(n, str) or not n for n in names) or len(set(names)) != len(names):
        raise ModelLoadError(f"model folder {folder}: served_model_name must be a name or a "
                             f"list of distinct names, got {config.served_model_name!r}")
    return ModelSpec(
        name=names[0],
        path=folder,
        config=config,
        tokenizer_config=tokenizer_config,
        mistral_file=mistral_file,
        created=int((mistral_file or folder / TOKENIZER_FILE).stat().st_mtime),
        chat_template=(None if config.chat_template is None
                       else _server_template(folder, config.chat_template)),
    )
