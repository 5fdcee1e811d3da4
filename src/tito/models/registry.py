"""The served-model registry: which models this process serves, loaded once.

Why once per process: loading a tokenizer takes 0.2-0.7 s, so it belongs in the Lambda init phase
(module scope, kept across invocations and captured by SnapStart), never in a request. Render and
derender are stateless, so one shared, immutable registry is safe to reuse.

Where models come from (all folders are loaded side by side; a served name may appear only once):

* ``TITO_MODELS_DIR`` (one directory, or several joined with ``os.pathsep``), else ``/opt/models``
  when it exists (the tokenizer Lambda layer), else ``layers/tokenizer/models`` of the source
  checkout this package runs from (``pip install -e .`` or ``PYTHONPATH=src``), else the same path
  under the current directory.
* ``TITO_MODELS_S3_URI`` (``s3://bucket/prefix``): model folders downloaded at cold start into
  ``TITO_MODELS_CACHE_DIR`` (see :mod:`tito.models.s3`), for models too big for a layer.

Every subfolder holding ``tokenizer.json`` or ``tito.json`` is a model folder (names starting with
``.`` are skipped). **A folder that does not load does not stop the others**: it is logged at
ERROR with its path and the reason (no traceback), kept in :attr:`ModelRegistry.failed`, and a
request naming it gets a 404 saying it failed to load. Why: one bad upload must not take every
model of a deployment down. The process still refuses to start when no folder loads, when
``TITO_DEFAULT_MODEL`` names a broken one, or with ``TITO_MODELS_STRICT=1`` (any broken folder:
for CI and deploy checks).

The default model (used when a request's ``model`` is missing or empty) is, in order:
``TITO_DEFAULT_MODEL``; else the only model; else ``qwen3`` when served (the embedded default);
else the first served name in sorted order.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tito.errors import NotFound, quote
from tito.settings import flag
from tito.models.mistral import mistral_tokenizer_file
from tito.models.served import (
    TITO_CONFIG_FILE,
    TOKENIZER_FILE,
    ModelLoadError,
    ServedModel,
    load_model,
)

logger = logging.getLogger(__name__)

LAYER_MODELS_DIR = Path("/opt/models")
CHECKOUT_MODELS_SUBDIR = Path("layers") / "tokenizer" / "models"
EMBEDDED_DEFAULT_MODEL = "qwen3"
OWNED_BY = "tito"


def choose_default(names: Iterable[str], requested: str | None = None) -> str:
    """The default model name among ``names`` (rules in the module docstring)."""
    served = sorted(set(names))
    if not served:
        raise ModelLoadError("no models to serve")
    if requested:
        if requested not in served:
            raise ModelLoadError(
                f"TITO_DEFAULT_MODEL={requested!r} is not a served model (served: {', '.join(served)})"
            )
        return requested
    if len(served) == 1:
        return served[0]
    if EMBEDDED_DEFAULT_MODEL in served:
        return EMBEDDED_DEFAULT_MODEL
    return served[0]


def is_model_folder(path: Path) -> bool:
    """A subfolder that claims to be a model (and so must load)."""
    return (
        path.is_dir()
        and not path.name.startswith(".")
        and (
            (path / TOKENIZER_FILE).is_file()
            or (path / TITO_CONFIG_FILE).is_file()
            or mistral_tokenizer_file(path) is not None
        )
    )


def load_models_dir(
    directory: str | Path, failed: dict[str, str] | None = None
) -> list[ServedModel]:
    """Load every model folder directly under ``directory`` (sorted by folder name).

    ``failed``: when given, a folder that does not load is recorded there (folder name -> the
    reason) and logged instead of raising, so the other folders still load.
    """
    root = Path(directory)
    if not root.is_dir():
        raise ModelLoadError(f"models directory {root} does not exist or is not a directory")
    models: list[ServedModel] = []
    for sub in sorted(root.iterdir()):
        if not is_model_folder(sub):
            continue
        try:
            models.append(load_model(sub))
        except ModelLoadError as exc:
            if failed is None:
                raise
            failed[sub.name] = str(exc)
            logger.error("model folder not served: %s", exc)
    return models


class ModelRegistry:
    """Served name -> :class:`ServedModel`, plus the default model. Immutable after init."""

    def __init__(
        self,
        models: Iterable[ServedModel],
        *,
        default: str | None = None,
        failed: Mapping[str, str] | None = None,
    ) -> None:
        """``default``: an explicit default name; None reads ``TITO_DEFAULT_MODEL``.
        ``failed``: folder name -> why it did not load (see the module docstring)."""
        self.failed: dict[str, str] = dict(failed or {})
        by_name: dict[str, ServedModel] = {}
        for model in models:
            other = by_name.get(model.name)
            if other is not None:
                raise ModelLoadError(
                    f"served model name {model.name!r} is used by both {other.path} and {model.path}"
                )
            by_name[model.name] = model
        if not by_name:
            reasons = "".join(f"\n  {reason}" for reason in self.failed.values())
            raise ModelLoadError(f"no models to serve{reasons}")
        self._models: dict[str, ServedModel] = dict(sorted(by_name.items()))
        if default is None:
            default = os.environ.get("TITO_DEFAULT_MODEL") or None
        if default and default not in self._models and default in self.failed:
            raise ModelLoadError(f"TITO_DEFAULT_MODEL={default!r} did not load: {self.failed[default]}")
        self.default_name: str = choose_default(self._models, default)

    @classmethod
    def from_dir(cls, *directories: str | Path, default: str | None = None) -> ModelRegistry:
        """Every model folder under the given directories (at least one model overall)."""
        models: list[ServedModel] = []
        failed: dict[str, str] = {}
        for directory in directories:
            models.extend(load_models_dir(directory, failed))
        if not models and not failed:
            raise ModelLoadError(
                f"no model folders (with {TOKENIZER_FILE}) under {', '.join(map(str, directories))}"
            )
        return cls(models, default=default, failed=failed)

    # -- lookup ------------------------------------------------------------------------------------

    def get(self, name: str | None = None) -> ServedModel:
        """The model a request names; None or "" -> the default; unknown -> ``NotFound`` (404)."""
        if not name:
            return self._models[self.default_name]
        model = self._models.get(name)
        if model is None:
            if name in self.failed:
                raise NotFound(
                    f"The model `{quote(name)}` failed to load (see the server log).", param="model"
                )
            raise NotFound(f"The model `{quote(name)}` does not exist.", param="model")
        return model

    @property
    def default(self) -> ServedModel:
        return self._models[self.default_name]

    def names(self) -> list[str]:
        """Served names, sorted."""
        return list(self._models)

    def __contains__(self, name: object) -> bool:
        return name in self._models

    def __iter__(self) -> Iterator[ServedModel]:
        return iter(self._models.values())

    def __len__(self) -> int:
        return len(self._models)

    def __repr__(self) -> str:
        return f"ModelRegistry(names={self.names()!r}, default={self.default_name!r})"

    # -- /v1/models --------------------------------------------------------------------------------

    def list_models(self) -> dict[str, Any]:
        """OpenAI/vLLM ``GET /v1/models`` body; the default model comes first.

        ``root`` is the served name (vLLM puts the model path there; a Lambda path says nothing
        useful to clients). ``permission`` mirrors vLLM's card with a stable id.
        """
        order = [self.default_name] + [n for n in self._models if n != self.default_name]
        return {"object": "list", "data": [_model_card(self._models[n]) for n in order]}


def _model_card(model: ServedModel) -> dict[str, Any]:
    return {
        "id": model.name,
        "object": "model",
        "created": model.created,
        "owned_by": OWNED_BY,
        "root": model.name,
        "parent": None,
        "max_model_len": model.max_model_len,
        "permission": [
            {
                "id": f"modelperm-{zlib.crc32(model.name.encode()):08x}",
                "object": "model_permission",
                "created": model.created,
                "allow_create_engine": False,
                "allow_sampling": True,
                "allow_logprobs": True,
                "allow_search_indices": False,
                "allow_view": True,
                "allow_fine_tuning": False,
                "organization": "*",
                "group": None,
                "is_blocking": False,
            }
        ],
    }


# -- process-wide registry ---------------------------------------------------------------------


def checkout_models_dir() -> Path:
    """``layers/tokenizer/models`` of the source tree this file lives in (src/tito/models/...)."""
    parents = Path(__file__).resolve().parents
    return (parents[3] if len(parents) > 3 else parents[-1]) / CHECKOUT_MODELS_SUBDIR


def models_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Local model directories to load (may be empty when only S3 is configured)."""
    env = os.environ if environ is None else environ
    configured = env.get("TITO_MODELS_DIR")
    if configured:
        dirs = [Path(p) for p in configured.split(os.pathsep) if p]
        for d in dirs:
            if not d.is_dir():
                raise ModelLoadError(f"TITO_MODELS_DIR: {d} does not exist or is not a directory")
        return dirs
    for candidate in (LAYER_MODELS_DIR, checkout_models_dir(), Path.cwd() / CHECKOUT_MODELS_SUBDIR):
        if candidate.is_dir():
            return [candidate]
    return []


def load_registry(environ: Mapping[str, str] | None = None) -> ModelRegistry:
    """Build a registry from the environment (no caching; see :func:`get_registry`)."""
    env = os.environ if environ is None else environ
    started = time.perf_counter()
    dirs = models_dirs(env)
    s3_uri = env.get("TITO_MODELS_S3_URI")
    if s3_uri:
        from tito.models import s3  # boto3 is imported only when S3 is configured

        dirs.append(s3.sync_models(s3_uri, environ=env).local_dir)
    if not dirs:
        raise ModelLoadError(
            "no models directory: set TITO_MODELS_DIR (or TITO_MODELS_S3_URI), or provide "
            f"{LAYER_MODELS_DIR}"
        )
    strict = flag(env.get("TITO_MODELS_STRICT"))
    models: list[ServedModel] = []
    failed: dict[str, str] = {}
    for d in dirs:
        models.extend(load_models_dir(d, None if strict else failed))
    if not models and not failed:
        raise ModelLoadError(f"no model folders (with {TOKENIZER_FILE}) under {', '.join(map(str, dirs))}")
    registry = ModelRegistry(models, default=env.get("TITO_DEFAULT_MODEL") or "", failed=failed)
    logger.info(
        "loaded models %s (default %s) from %s in %.2fs",
        registry.names(), registry.default_name, [str(d) for d in dirs], time.perf_counter() - started,
    )
    return registry


_registry: ModelRegistry | None = None
_lock = threading.Lock()


def get_registry() -> ModelRegistry:
    """The process-wide registry, built from the environment on first use, then reused."""
    global _registry
    registry = _registry
    if registry is None:
        with _lock:
            if _registry is None:
                _registry = load_registry()
            registry = _registry
    return registry


def reset_registry(registry: ModelRegistry | None = None) -> None:
    """Tests: forget the cached registry (next :func:`get_registry` reloads), or install one."""
    global _registry
    with _lock:
        _registry = registry
