"""One served model: a folder of tokenizer files turned into what render and derender need.

Why here and not in the core: reading files is I/O, and the core stays sans-I/O. This module reads a
Hugging Face folder (``tokenizer.json``; where present ``tokenizer_config.json``, ``config.json``,
``generation_config.json``, ``chat_template.jinja``) plus tito's optional ``tito.json`` once,
validates them together (EOS ids inside the vocabulary, special tokens present, parser names
known, no unknown ``tito.json`` keys) and hands out an immutable :class:`ServedModel`. A broken
folder fails at load time with the folder and the reason in the message, never at the first
request. Defaults follow vLLM (:mod:`tito.models.hf`); the EOS rule is in :func:`_eos_ids`.

The settings files are read by :mod:`tito.models.model_spec` (:class:`ModelSpec`,
:func:`read_model_spec`, :class:`ModelLoadError` and the file names: public names here too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from tokenizers import Tokenizer

from tito.core.vocab import Vocab
from tito.models import mistral
from tito.models.config import ModelConfig, served_names
from tito.models.hf import CONFIG_FILE, GENERATION_CONFIG_FILE
from tito.models.model_spec import (
    ADDITIONAL_CHAT_TEMPLATES_DIR,
    CHAT_TEMPLATE_FILE,
    TITO_CONFIG_FILE,
    TOKENIZER_CONFIG_FILE,
    TOKENIZER_FILE,
    ModelLoadError,
    ModelSpec,
    read_model_spec,
)

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

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every served name, :attr:`name` first (vLLM's ``--served-model-name A B``)."""
        return served_names(self.config, self.name)

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


def load_model(path: str | Path, overrides: Mapping[str, Any] | None = None) -> ServedModel:
    """Load and validate one model folder; :class:`ModelLoadError` names the folder and reason.

    ``overrides``: settings that win over ``tito.json`` (``tito serve --model`` flags), same keys.
    A folder with mistral-common's tokenizer file is served through mistral-common
    (``tokenizer_mode`` auto or mistral; :mod:`tito.models.mistral`).
    """
    return build_model(read_model_spec(path, overrides))


#: Hunyuan v4's structural tokens, which a checkpoint may spell with a suffix of its own
#: (``<think:6124c78e>``; vLLM 0.33's ``detect_token_suffix`` reads it from the vocabulary)
_HY_V4_SUFFIXED = re.compile(r"<(?:think|tool_calls|tool_call|arg_key|arg_value):[^\s>]+>")


def _check_suffixed_markers(folder: Path, config: Any, tokenizer: Tokenizer) -> None:
    """A hy_v4 model whose vocabulary spells the markers with a suffix is refused at load: tito's
    hy_v4 rows know the unsuffixed markers only, and would read every output as reasoning."""
    if "hy_v4" not in (config.tool_parser, config.reasoning_parser):
        return
    for token in tokenizer.get_added_tokens_decoder().values():
        if _HY_V4_SUFFIXED.fullmatch(token.content):
            raise ModelLoadError(
                f"model folder {folder}: hy_v4 parsers read the unsuffixed markers (<think>, "
                f"<tool_calls>...); this vocabulary spells them with a suffix ({token.content})"
            )


def _check_inkling_markers(folder: Path, config: Any, tokenizer: Tokenizer) -> None:
    """An Inkling model whose vocabulary lacks a marker of its encoding is refused at load, as
    vLLM 0.33's Inkling renderer refuses to start (every prompt needs them)."""
    if config.native_renderer != "inkling":
        return
    from tito.core import render_inkling  # (only an Inkling model's load needs it)

    try:
        render_inkling.marker_ids(tokenizer.token_to_id)
    except ValueError as exc:
        raise ModelLoadError(f"model folder {folder}: {exc}") from None


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
        _check_suffixed_markers(folder, config, tokenizer)
        _check_inkling_markers(folder, config, tokenizer)
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
    if spec.chat_template is not None:  # the server's wins over every template of the folder
        templates = {"default": spec.chat_template}
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
