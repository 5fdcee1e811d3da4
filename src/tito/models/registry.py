"""The served-model registry: which models this process serves, each loaded once.

Why at init, and why only the default: loading a tokenizer takes 0.1-1 s, so it belongs in the
Lambda init phase (module scope, kept across invocations and captured by SnapStart), never in a
request that could avoid it. But a function pays its init CPU at every cold start, and most
requests name the default model: so the init reads every folder's small settings files (served
name, ``/v1/models`` card, every error those files can hold) and loads the **default** model's
tokenizer; any other model loads on the first request naming it (once, under a lock), and stays.
Render and derender are stateless, so one shared registry is safe to reuse.

Where models come from (all folders are indexed side by side; a served name may appear only once):

* ``TITO_MODELS_DIR`` (one directory, or several joined with ``os.pathsep``), else ``/opt/models``
  when it exists (the tokenizer Lambda layer), else ``layers/tokenizer/models`` of the source
  checkout this package runs from (``pip install -e .`` or ``PYTHONPATH=src``), else the same path
  under the current directory.
* ``TITO_MODELS_S3_URI`` (``s3://bucket/prefix``): model folders downloaded at cold start into
  ``TITO_MODELS_CACHE_DIR`` (see :mod:`tito.models.s3`), for models too big for a layer.

Every subfolder holding ``tokenizer.json`` or ``tito.json`` is a model folder (names starting with
``.`` are skipped). **A folder that does not load does not stop the others**: it is logged at
ERROR with its path and the reason (no traceback), kept in :attr:`ModelRegistry.failed`, and a
request naming it gets a 404 saying it failed to load. A broken settings file is found at init;
a broken tokenizer file of a non-default model when that model is first requested (the same log
line, reason and 404 then). The process still refuses to start when no folder loads, when
``TITO_DEFAULT_MODEL`` names a broken one, or with ``TITO_MODELS_STRICT=1`` (every folder is then
loaded at init and any broken one stops the start: for CI and deploy checks).

The default model (used when a request's ``model`` is missing or empty) is, in order:
``TITO_DEFAULT_MODEL``; else the only model; else ``qwen3`` when served (the embedded default);
else the first served name in sorted order (a folder that fails to load is skipped).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
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
    ModelSpec,
    ServedModel,
    build_model,
    load_model,
    read_model_spec,
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


def _model_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        raise ModelLoadError(f"models directory {root} does not exist or is not a directory")
    return [sub for sub in sorted(root.iterdir()) if is_model_folder(sub)]


def load_models_dir(
    directory: str | Path, failed: dict[str, str] | None = None
) -> list[ServedModel]:
    """Load every model folder directly under ``directory`` (sorted by folder name).

    ``failed``: when given, a folder that does not load is recorded there (folder name -> the
    reason) and logged instead of raising, so the other folders still load.
    """
    models: list[ServedModel] = []
    for sub in _model_folders(Path(directory)):
        try:
            models.append(load_model(sub))
        except ModelLoadError as exc:
            if failed is None:
                raise
            _record_failure(failed, sub, exc)
    return models


def read_models_dir(directory: str | Path, failed: dict[str, str]) -> list[ModelSpec]:
    """The settings of every model folder under ``directory``, tokenizers not loaded yet; a folder
    whose settings are broken is recorded in ``failed`` (and logged), like :func:`load_models_dir`."""
    specs: list[ModelSpec] = []
    for sub in _model_folders(Path(directory)):
        try:
            specs.append(read_model_spec(sub))
        except ModelLoadError as exc:
            _record_failure(failed, sub, exc)
    return specs


def _record_failure(failed: dict[str, str], folder: Path, exc: ModelLoadError) -> None:
    failed[folder.name] = str(exc)
    logger.error("model folder not served: %s", exc)


class ModelRegistry:
    """Served name -> :class:`ServedModel`, plus the default model (loaded at init).

    Entries given as :class:`ModelSpec` load on first use (:meth:`get`); given as
    :class:`ServedModel`, they are served as they are.
    """

    def __init__(
        self,
        models: Iterable[ServedModel | ModelSpec],
        *,
        default: str | None = None,
        failed: Mapping[str, str] | None = None,
    ) -> None:
        """``default``: an explicit default name; None reads ``TITO_DEFAULT_MODEL``.
        ``failed``: folder name -> why it did not load (see the module docstring)."""
        self.failed: dict[str, str] = dict(failed or {})
        self._failed_names: dict[str, str] = {}  # served name -> reason, for lazy failures
        self._lock = threading.Lock()
        # every served name of a model (its aliases, in their order) -> that model, the models
        # in name order
        by_name: dict[str, ServedModel | ModelSpec] = {}
        for model in sorted(models, key=lambda m: m.name):
            for alias in model.aliases:
                other = by_name.get(alias)
                if other is not None:
                    raise ModelLoadError(f"served model name {alias!r} is used by both "
                                         f"{other.path} and {model.path}")
                by_name[alias] = model
        self._specs: dict[str, ServedModel | ModelSpec] = by_name
        self._models: dict[str, ServedModel] = {
            name: m for name, m in self._specs.items() if isinstance(m, ServedModel)
        }
        if default is None:
            default = os.environ.get("TITO_DEFAULT_MODEL") or None
        if default and default not in self._specs and default in self.failed:
            raise ModelLoadError(f"TITO_DEFAULT_MODEL={default!r} did not load: {self.failed[default]}")
        while True:  # a default that fails to load is skipped, unless it was asked for
            if not self._specs:
                reasons = "".join(f"\n  {reason}" for reason in self.failed.values())
                raise ModelLoadError(f"no models to serve{reasons}")
            own = self._specs[default].name if default in self._specs else default
            name = choose_default(dict.fromkeys(m.name for m in self._specs.values()), own)
            if self._load(name) is not None:
                break
            if default:
                raise ModelLoadError(
                    f"TITO_DEFAULT_MODEL={default!r} did not load: {self._failed_names[name]}"
                )
        self.default_name: str = name

    @classmethod
    def from_dir(cls, *directories: str | Path, default: str | None = None) -> ModelRegistry:
        """Every model folder under the given directories (at least one model overall); only the
        default one is loaded now."""
        specs: list[ModelSpec] = []
        failed: dict[str, str] = {}
        for directory in directories:
            specs.extend(read_models_dir(directory, failed))
        if not specs and not failed:
            raise ModelLoadError(
                f"no model folders (with {TOKENIZER_FILE}) under {', '.join(map(str, directories))}"
            )
        return cls(specs, default=default, failed=failed)

    # -- loading -----------------------------------------------------------------------------------

    def _load(self, name: str) -> ServedModel | None:
        """The model ``name`` (an indexed name), loading it now if it is not yet; None (recorded
        in :attr:`failed` and logged) when it does not load."""
        model = self._models.get(name)
        if model is not None:
            return model
        with self._lock:
            model = self._models.get(name)
            spec = self._specs.get(name)
            if model is None and isinstance(spec, ModelSpec):
                try:
                    model = build_model(spec)
                except ModelLoadError as exc:
                    _record_failure(self.failed, spec.path, exc)
                    for alias in spec.aliases:
                        self._failed_names[alias] = str(exc)
                        del self._specs[alias]
                    return None
                for alias in spec.aliases:
                    self._models[alias] = model
            return model

    def load_all(self) -> ModelRegistry:
        """Load every model now (a long-running server's start: every failure reported up front)."""
        for name in list(self._specs):
            self._load(name)
        return self

    # -- lookup ------------------------------------------------------------------------------------

    def get(self, name: str | None = None) -> ServedModel:
        """The model a request names; None or "" -> the default; unknown -> ``NotFound`` (404)."""
        if not name:
            return self._models[self.default_name]
        model = self._models.get(name)
        if model is None:
            if name in self._specs:
                model = self._load(name)
                if model is not None:
                    return model
            if name in self.failed or name in self._failed_names:
                raise NotFound(
                    f"The model `{quote(name)}` failed to load (see the server log).", param="model"
                )
            raise NotFound(f"The model `{quote(name)}` does not exist. Valid aliases: "
                           f"{', '.join(self._specs)}.", param="model")  # vLLM's words
        return model

    def loaded(self) -> list[str]:
        """Names of the models loaded so far (the default is always one)."""
        return sorted(self._models)

    @property
    def default(self) -> ServedModel:
        return self._models[self.default_name]

    def names(self) -> list[str]:
        """Served names, sorted (loaded or not yet; without those found broken)."""
        return list(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ServedModel]:
        """Every model that loads (loading those not loaded yet), once whatever its aliases."""
        self.load_all()
        return iter(dict.fromkeys(self._models[n] for n in self._specs if n in self._models))

    def __len__(self) -> int:
        """The number of models (not of names)."""
        return len({id(m) for m in self._specs.values()})

    def __repr__(self) -> str:
        return f"ModelRegistry(names={self.names()!r}, default={self.default_name!r})"

    # -- /v1/models --------------------------------------------------------------------------------

    def list_models(self) -> dict[str, Any]:
        """OpenAI/vLLM ``GET /v1/models`` body; the default model comes first.

        ``root`` is the served name (vLLM puts the model path there; a Lambda path says nothing
        useful to clients). ``permission`` mirrors vLLM's card with a stable id of vLLM's shape
        (16 hex digits, as its ``random_uuid``; here a hash of the name). The cards come
        from the settings files: listing loads no model.
        """
        specs = dict(self._specs)
        first = specs[self.default_name].aliases  # (the default model's names, in their order)
        order = [*first, *(n for n in specs if n not in first)]
        return {"object": "list", "data": [_model_card(specs[n], n) for n in order]}


def _model_card(model: ServedModel | ModelSpec, name: str) -> dict[str, Any]:
    """One served name's card (an alias's ``root`` is the model's own name, as vLLM gives
    every alias the model's path)."""
    return {
        "id": name,
        "object": "model",
        "created": model.created,
        "owned_by": OWNED_BY,
        "root": model.name,
        "parent": None,
        "max_model_len": model.config.max_model_len,
        "permission": [
            {
                "id": f"modelperm-{hashlib.blake2b(name.encode(), digest_size=8).hexdigest()}",
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
    models: list[ServedModel | ModelSpec] = []
    failed: dict[str, str] = {}
    for d in dirs:  # strict: every folder loaded now, the first broken one raises
        models.extend(load_models_dir(d) if strict else read_models_dir(d, failed))
    if not models and not failed:
        raise ModelLoadError(f"no model folders (with {TOKENIZER_FILE}) under {', '.join(map(str, dirs))}")
    registry = ModelRegistry(models, default=env.get("TITO_DEFAULT_MODEL") or "", failed=failed)
    logger.info(
        "loaded models %s (default %s; %s on first use) from %s in %.2fs",
        registry.loaded(), registry.default_name,
        [n for n in registry.names() if n not in registry.loaded()], [str(d) for d in dirs],
        time.perf_counter() - started,
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
