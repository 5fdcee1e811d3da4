"""One served model: a folder of tokenizer files turned into what render and derender need.

Why here and not in the core: reading files is I/O, and the core stays sans-I/O. This module reads
``tokenizer.json`` + ``tokenizer_config.json`` + ``tito.json`` (and ``chat_template.jinja`` when
present, as recent ``transformers`` saves it) once, validates them together (EOS ids inside the
vocabulary, special tokens present) and hands out an immutable :class:`ServedModel`. A broken
folder fails at load time with the folder and file in the message, never at the first request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from tokenizers import Tokenizer

from tito.core.vocab import Vocab
from tito.models.config import ModelConfig

TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
TITO_CONFIG_FILE = "tito.json"
CHAT_TEMPLATE_FILE = "chat_template.jinja"
ADDITIONAL_CHAT_TEMPLATES_DIR = "additional_chat_templates"
REQUIRED_FILES = (TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, TITO_CONFIG_FILE)

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


def _read_json(folder: Path, name: str) -> dict[str, Any]:
    file = folder / name
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"model folder {folder}: cannot read {name}: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelLoadError(f"model folder {folder}: {name} must hold a JSON object")
    return data


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


def load_model(path: str | Path) -> ServedModel:
    """Load and validate one model folder; :class:`ModelLoadError` names the folder and file."""
    folder = Path(path)
    if not folder.is_dir():
        raise ModelLoadError(f"model folder {folder} does not exist or is not a directory")
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise ModelLoadError(f"model folder {folder}: missing {', '.join(missing)}")

    try:
        config = ModelConfig.model_validate(_read_json(folder, TITO_CONFIG_FILE))
    except ValidationError as exc:
        raise ModelLoadError(f"model folder {folder}: invalid {TITO_CONFIG_FILE}: {exc}") from exc
    tokenizer_config = _read_json(folder, TOKENIZER_CONFIG_FILE)
    try:
        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
    except Exception as exc:  # tokenizers raises a bare Exception on malformed JSON
        raise ModelLoadError(f"model folder {folder}: cannot load {TOKENIZER_FILE}: {exc}") from exc

    strings: dict[str, str] = {}
    ids: dict[str, int] = {}
    for role in SPECIAL_TOKEN_ROLES:
        try:
            text = token_content(tokenizer_config.get(role))
        except ValueError as exc:
            raise ModelLoadError(
                f"model folder {folder}: {TOKENIZER_CONFIG_FILE} {role}: {exc}"
            ) from exc
        if text is None:
            continue
        strings[role] = text
        ids[role] = _role_id(tokenizer, folder, role, text)

    size = tokenizer.get_vocab_size(with_added_tokens=True)
    bad = [i for i in config.extra_eos_token_ids if not 0 <= i < size]
    if bad:
        raise ModelLoadError(
            f"model folder {folder}: {TITO_CONFIG_FILE} extra_eos_token_ids {bad} are outside the "
            f"vocabulary (size {size})"
        )

    vocab = Vocab(
        tokenizer,
        eos_token_id=ids.get("eos_token"),
        bos_token_id=ids.get("bos_token"),
        extra_eos_token_ids=config.extra_eos_token_ids,
    )
    add_bos = tokenizer_config.get("add_bos_token")
    if not isinstance(add_bos, bool):
        # Not stated: ask the tokenizer's post-processor what it actually does.
        bos = ids.get("bos_token")
        add_bos = bos is not None and tokenizer.encode("a", add_special_tokens=True).ids[:1] == [bos]

    templates = _chat_templates(folder, tokenizer_config)
    return ServedModel(
        name=config.served_model_name or folder.name,
        path=folder,
        config=config,
        vocab=vocab,
        tokenizer_config=tokenizer_config,
        chat_template=templates.get("default"),
        chat_templates=templates,
        add_bos_token=add_bos,
        special_tokens=ids,
        special_token_strings=strings,
        created=int((folder / TOKENIZER_FILE).stat().st_mtime),
    )
