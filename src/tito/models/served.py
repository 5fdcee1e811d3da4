"""One served model: a folder of tokenizer files turned into what render and derender need.

Why here and not in the core: reading files is I/O, and the core stays sans-I/O. This module reads a
Hugging Face folder (``tokenizer.json``; where present ``tokenizer_config.json``, ``config.json``,
``generation_config.json``, ``chat_template.jinja``) plus tito's optional ``tito.json`` once,
validates them together (EOS ids inside the vocabulary, special tokens present, parser names
known, no unknown ``tito.json`` keys) and hands out an immutable :class:`ServedModel`. A broken
folder fails at load time with the folder and the reason in the message, never at the first
request. Defaults follow vLLM (:mod:`tito.models.hf`); the EOS rule is in :func:`_eos_ids`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from tokenizers import Tokenizer

from tito.core.vocab import Vocab
from tito.models import hf, mistral, multimodal
from tito.models.config import ModelConfig
from tito.models.hf import CONFIG_FILE, GENERATION_CONFIG_FILE

TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
TITO_CONFIG_FILE = "tito.json"
CHAT_TEMPLATE_FILE = "chat_template.jinja"
ADDITIONAL_CHAT_TEMPLATES_DIR = "additional_chat_templates"

#: tokenizer_config.json keys naming special-token roles (Hugging Face's SPECIAL_TOKENS_ATTRIBUTES).
SPECIAL_TOKEN_ROLES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "pad_token",
    "sep_token",
    "cls_token",
    "mask_token",
)


class ModelLoadError(RuntimeError):
    """A model folder (or the models directory, or the S3 source) is unusable.

    A deployment error, raised at process start (Lambda init), not a client error: it is not a
    :class:`tito.errors.TitoError` on purpose, so it can never be turned into a 4xx response.
    """


@dataclass(frozen=True, eq=False)
class ServedModel:
    """Everything tito knows about one served model. Treat the dicts as read-only."""

    name: str
    """Served name (``tito.json`` ``served_model_name``, else the folder name)."""
    path: Path
    config: ModelConfig
    vocab: Vocab
    tokenizer_config: dict[str, Any]
    chat_template: str | None
    """The default chat template (``chat_template.jinja``, else tokenizer_config), or None."""
    chat_templates: dict[str, str] = field(default_factory=dict)
    """Every named template (``default``, ``tool_use``, ...); ``default`` = :attr:`chat_template`."""
    add_bos_token: bool = False
    """Whether encoding with ``add_special_tokens=True`` prepends BOS (HF ``add_bos_token``)."""
    special_tokens: dict[str, int] = field(default_factory=dict)
    """Role -> id for the roles present: ``bos_token``, ``eos_token``, ``unk_token``, ``pad_token``..."""
    special_token_strings: dict[str, str] = field(default_factory=dict)
    """Role -> token text (``{"eos_token": "<|im_end|>"}``): the chat-template context values."""
    vocab_size: int = 0
    """Ids below this are valid engine output: the model's vocabulary rows (``tito.json`` or
    ``config.json`` ``vocab_size``), at least the tokenizer's size. Padded rows (ids at or above
    the tokenizer's size, e.g. Qwen3's 151669..151935) decode to ``""``, as in vLLM."""
    created: int = 0
    """Unix time stable per folder (``tokenizer.json`` mtime): ``created`` in ``/v1/models``."""

    # -- shortcuts used by render / derender ---------------------------------------------------

    @property
    def max_model_len(self) -> int:
        return self.config.max_model_len

    @property
    def max_logprobs(self) -> int:
        return self.config.max_logprobs

    @property
    def tool_parser(self) -> str | None:
        return self.config.tool_parser

    @property
    def reasoning_parser(self) -> str | None:
        return self.config.reasoning_parser

    @property
    def multimodal(self) -> bool:
        """Media parts go to the engine (``content_parts``); else vLLM's 400 (models.multimodal)."""
        return self.config.multimodal

    @property
    def default_chat_template_kwargs(self) -> dict[str, Any]:
        return self.config.default_chat_template_kwargs

    @property
    def bos_token(self) -> str | None:
        return self.special_token_strings.get("bos_token")

    @property
    def eos_token(self) -> str | None:
        return self.special_token_strings.get("eos_token")

    @property
    def eos_token_id(self) -> int | None:
        return self.vocab.eos_token_id

    @property
    def bos_token_id(self) -> int | None:
        return self.vocab.bos_token_id

    @property
    def eos_token_ids(self) -> frozenset[int]:
        """Primary EOS plus the extra EOS ids."""
        return self.vocab.all_eos_ids

    def __repr__(self) -> str:
        return f"ServedModel(name={self.name!r}, path={str(self.path)!r}, vocab_size={self.vocab.size})"


def token_content(value: object) -> str | None:
    """A special token as tokenizer_config writes it: ``"</s>"`` or ``{"content": "</s>", ...}``."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    raise ValueError(f"expected a string or an object with 'content', got {value!r}")


def _chat_templates(folder: Path, tokenizer_config: dict[str, Any]) -> dict[str, str]:
    """Named templates. ``chat_template.jinja`` (+ ``additional_chat_templates/*.jinja``) win
    over ``tokenizer_config["chat_template"]`` (string, or list of ``{"name", "template"}``)."""
    out: dict[str, str] = {}
    raw = tokenizer_config.get("chat_template")
    if isinstance(raw, str):
        out["default"] = raw
    elif isinstance(raw, list):
        for item in raw:
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                    and isinstance(item.get("template"), str)):
                raise ModelLoadError(
                    f"model folder {folder}: {TOKENIZER_CONFIG_FILE} chat_template list items "
                    "must be {\"name\": str, \"template\": str}"
                )
            out[item["name"]] = item["template"]
    elif isinstance(raw, dict):
        out.update({k: v for k, v in raw.items() if isinstance(v, str)})
    elif raw is not None:
        raise ModelLoadError(
            f"model folder {folder}: {TOKENIZER_CONFIG_FILE} chat_template must be a string or a list"
        )
    extra_dir = folder / ADDITIONAL_CHAT_TEMPLATES_DIR
    if extra_dir.is_dir():
        for file in sorted(extra_dir.glob("*.jinja")):
            out[file.stem] = file.read_text(encoding="utf-8")
    jinja = folder / CHAT_TEMPLATE_FILE
    if jinja.is_file():
        out["default"] = jinja.read_text(encoding="utf-8")
    return out


def _role_id(tokenizer: Tokenizer, folder: Path, role: str, text: str) -> int:
    token_id = tokenizer.token_to_id(text)
    if token_id is None:
        raise ModelLoadError(
            f"model folder {folder}: {TOKENIZER_CONFIG_FILE} {role} {text!r} is not a token of "
            f"{TOKENIZER_FILE}"
        )
    return token_id


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


def _check_parsers(folder: Path, config: ModelConfig) -> None:
    """Parser names must exist now, not at the first request that needs them."""
    from tito.core.parsers import (
        HARMONY_REASONING_PARSERS,
        HARMONY_TOOL_PARSERS,
        REASONING_PARSERS,
        TOOL_PARSERS,
    )

    for key, value, known in (
        ("tool_parser", config.tool_parser, {*TOOL_PARSERS, *HARMONY_TOOL_PARSERS}),
        ("reasoning_parser", config.reasoning_parser,
         {*REASONING_PARSERS, *HARMONY_REASONING_PARSERS}),
    ):
        if value is not None and value not in known:
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


def _eos_ids(
    folder: Path, primary: int | None, extra: list[int], size: int
) -> tuple[int, list[int]]:
    """The primary EOS and the extra ones. No tokenizer EOS: the first generation-config EOS is
    the primary one; no EOS at all: the folder is refused, since derender could not tell where a
    completion ends and would let the end token into the content."""
    bad = [i for i in extra if not 0 <= i < size]
    if bad:
        raise ModelLoadError(
            f"model folder {folder}: EOS ids {bad} (generation_config.json, config.json or "
            f"{TITO_CONFIG_FILE} extra_eos_token_ids) are outside the vocabulary (size {size})"
        )
    if primary is None:
        if not extra:
            raise ModelLoadError(
                f"model folder {folder}: no EOS token: {TOKENIZER_CONFIG_FILE} has no eos_token and "
                f"neither {GENERATION_CONFIG_FILE} nor {CONFIG_FILE} has an eos_token_id (add one, or "
                f'{TITO_CONFIG_FILE} "extra_eos_token_ids": [id])'
            )
        primary, extra = extra[0], extra[1:]
    return primary, [i for i in extra if i != primary]


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
        "default_sampling_params": hf.default_sampling(generation),
        "multimodal": multimodal.is_multimodal(config_json, params),
    }
    try:
        config = ModelConfig.model_validate({**derived, **raw_config})
    except ValidationError as exc:
        raise ModelLoadError(f"model folder {folder}: invalid {TITO_CONFIG_FILE}: {exc}") from None
    _check_parsers(folder, config)
    return ModelSpec(
        name=config.served_model_name or folder.name,
        path=folder,
        config=config,
        tokenizer_config=tokenizer_config,
        mistral_file=mistral_file,
        created=int((mistral_file or folder / TOKENIZER_FILE).stat().st_mtime),
    )


def load_model(path: str | Path, overrides: Mapping[str, Any] | None = None) -> ServedModel:
    """Load and validate one model folder; :class:`ModelLoadError` names the folder and reason.

    ``overrides``: settings that win over ``tito.json`` (``tito serve --model`` flags), same keys.
    A folder with mistral-common's tokenizer file is served through mistral-common
    (``tokenizer_mode`` auto or mistral; :mod:`tito.models.mistral`).
    """
    return build_model(read_model_spec(path, overrides))


def build_model(spec: ModelSpec) -> ServedModel:
    """The expensive half of a load: the tokenizer, and the checks that need it."""
    folder, config, tokenizer_config = spec.path, spec.config, spec.tokenizer_config
    if spec.mistral_file is not None:
        try:
            tokenizer: Any = mistral.load_mistral_tokenizer(spec.mistral_file)
        except Exception as exc:  # ImportError with the install hint, or a malformed file
            raise ModelLoadError(
                f"model folder {folder}: cannot load {spec.mistral_file.name}: {exc}"
            ) from None
        size = tokenizer.instruct_tokenizer.tokenizer.n_words
    else:
        try:
            tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        except Exception as exc:  # tokenizers raises a bare Exception on malformed JSON
            raise ModelLoadError(f"model folder {folder}: cannot load {TOKENIZER_FILE}: {exc}") from None
        size = tokenizer.get_vocab_size(with_added_tokens=True)
    if config.vocab_size is None:  # no file states the model's rows: the tokenizer's size
        config = config.model_copy(update={"vocab_size": size})
    if spec.mistral_file is not None:
        return _mistral_model(spec, config, tokenizer, size)

    strings: dict[str, str] = {}
    ids: dict[str, int] = {}
    for role in SPECIAL_TOKEN_ROLES:
        try:
            text = token_content(tokenizer_config.get(role))
        except ValueError as exc:
            raise ModelLoadError(
                f"model folder {folder}: {TOKENIZER_CONFIG_FILE} {role}: {exc}"
            ) from None
        if text is None:
            continue
        strings[role] = text
        ids[role] = _role_id(tokenizer, folder, role, text)

    eos, extra_eos = _eos_ids(folder, ids.get("eos_token"), config.extra_eos_token_ids, size)
    vocab = Vocab(
        tokenizer,
        eos_token_id=eos,
        bos_token_id=ids.get("bos_token"),
        extra_eos_token_ids=extra_eos,
    )
    add_bos = tokenizer_config.get("add_bos_token")
    if not isinstance(add_bos, bool):
        # Not stated: ask the tokenizer's post-processor what it actually does.
        bos = ids.get("bos_token")
        add_bos = bos is not None and tokenizer.encode("a", add_special_tokens=True).ids[:1] == [bos]

    templates = _chat_templates(folder, tokenizer_config)
    return ServedModel(
        name=spec.name,
        path=folder,
        config=config,
        vocab=vocab,
        tokenizer_config=tokenizer_config,
        chat_template=templates.get("default"),
        chat_templates=templates,
        add_bos_token=add_bos,
        special_tokens=ids,
        special_token_strings=strings,
        vocab_size=max(config.vocab_size or 0, size),
        created=spec.created,
    )


def _mistral_model(spec: ModelSpec, config: ModelConfig, tokenizer: Any, size: int) -> ServedModel:
    """A folder served by mistral-common: its EOS/BOS, no chat template (it encodes chats)."""
    from tito.core.mistral import MistralVocab

    raw = tokenizer.instruct_tokenizer.tokenizer
    _, extra_eos = _eos_ids(spec.path, raw.eos_id, config.extra_eos_token_ids, size)
    vocab = MistralVocab(tokenizer, extra_eos_token_ids=extra_eos)
    roles = {"bos_token": raw.bos_id, "eos_token": raw.eos_id, "unk_token": raw.unk_id}
    ids = {role: i for role, i in roles.items() if isinstance(i, int) and 0 <= i < size}
    return ServedModel(
        name=spec.name,
        path=spec.path,
        config=config,
        vocab=vocab,
        tokenizer_config={},
        chat_template=None,
        add_bos_token=True,
        special_tokens=ids,
        special_token_strings={role: raw.id_to_piece(i) for role, i in ids.items()},
        vocab_size=max(config.vocab_size or 0, size),
        created=spec.created,
    )
