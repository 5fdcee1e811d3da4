"""The served-model registry (layer 2): model folders -> :class:`ServedModel`, once per process.

Why a package of its own: it is the only place that reads model files (and, optionally, S3), so
the core stays sans-I/O and every handler gets the same validated models. Typical use::

    from tito.models import get_registry
    model = get_registry().get(request.model)   # NotFound (404) for an unknown name
    model.vocab, model.chat_template, model.max_model_len, model.tool_parser

See :mod:`tito.models.registry` for where folders come from and how the default model is chosen,
:mod:`tito.models.s3` for the S3 source.
"""

from tito.models.config import ModelConfig
from tito.models.registry import (
    EMBEDDED_DEFAULT_MODEL,
    LAYER_MODELS_DIR,
    ModelRegistry,
    choose_default,
    get_registry,
    load_models_dir,
    load_registry,
    models_dirs,
    read_models_dir,
    reset_registry,
)
from tito.models.model_spec import ModelLoadError, ModelSpec, read_model_spec
from tito.models.served import ServedModel, build_model, load_model, token_content

__all__ = [
    "EMBEDDED_DEFAULT_MODEL",
    "LAYER_MODELS_DIR",
    "ModelConfig",
    "ModelLoadError",
    "ModelRegistry",
    "ModelSpec",
    "ServedModel",
    "build_model",
    "choose_default",
    "get_registry",
    "load_model",
    "load_models_dir",
    "load_registry",
    "models_dirs",
    "read_model_spec",
    "read_models_dir",
    "reset_registry",
    "token_content",
]
