"""Model folders served through mistral-common (``tekken.json`` or ``tokenizer.model.v*``).

Why a loader of its own: such a folder has no ``tokenizer.json`` to build a ``tokenizers``
vocabulary from, and its chat format is mistral-common's code, not a template (see
:mod:`tito.core.mistral`). The settings come from the same places as for a Hugging Face folder
(``config.json``, ``generation_config.json``, optional ``tito.json``; vLLM's Mistral folders keep
the context length in ``params.json`` ``max_seq_len``, read too). mistral-common is imported here
only, so deployments without Mistral folders never pay for it (about 1 s of imports).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: mistral-common tokenizer files, in the order a folder's file is chosen.
MISTRAL_PATTERNS = ("tekken.json", "tokenizer.model.v*")
PARAMS_FILE = "params.json"
INSTALL_HINT = "pip install 'tito[mistral]'"


def mistral_tokenizer_file(folder: Path) -> Path | None:
    """The folder's mistral-common tokenizer file (the newest ``.v*`` when several), or None."""
    if (folder / "tekken.json").is_file():
        return folder / "tekken.json"
    files = sorted(p for p in folder.glob("tokenizer.model.v*") if p.is_file())
    return files[-1] if files else None


def load_mistral_tokenizer(file: Path) -> Any:
    """mistral-common's ``MistralTokenizer`` in vLLM's validation mode (``test``)."""
    try:
        from mistral_common.protocol.instruct.validator import ValidationMode
        from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    except ImportError as exc:
        raise ImportError(f"{file.name} needs mistral-common ({INSTALL_HINT}): {exc}") from None
    return MistralTokenizer.from_file(str(file), mode=ValidationMode.test)
