"""What the native-encoding render tests share (DeepSeek-V3.2 / V4 / V4.1, Inkling).

Why one module: each of them serves the folder its golden was recorded on
(:func:`conformance.corpus.native_folder`, the recorder's folder too) as the only model of
tito's app; written once here, so the tests differ only in their cases and deviations.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from conformance.corpus import native_folder  # noqa: E402

__all__ = ["check_answer", "load_native", "native_folder", "read_counter", "same_error",
           "served_alone"]


def load_native(name: str, into: Path) -> Any:
    """``name``'s recorded folder (built under ``into``) loaded as tito loads a model."""
    from tito.models import registry

    return registry.load_model(native_folder(name, into / name))


def served_alone(model: Any, renderer: str) -> Iterator[TestClient]:
    """A client of tito's app serving only ``model``, which must be rendered by ``renderer``
    without a chat template; the registry is put back afterwards (a module fixture's body:
    ``yield from served_alone(...)``)."""
    from tito.adapters.app import create_app
    from tito.models import registry

    assert model.config.native_renderer == renderer and model.chat_template is None
    saved = registry._registry
    registry.reset_registry(registry.ModelRegistry([model], default=""))
    try:
        yield TestClient(create_app(), raise_server_exceptions=False)
    finally:
        registry.reset_registry(saved)


def same_error(got: dict[str, Any], want: dict[str, Any]) -> None:
    """vLLM's error type and words, but for the message dicts and task lists it quotes
    (Python's repr of its own dicts; a set's order)."""
    assert got["type"] == want["type"]
    cut = (lambda m: m.split("`")[0].split("{")[0].split("[")[0])
    if want["type"] == "BadRequestError":
        assert cut(got["message"]) == cut(want["message"])


def check_answer(r: Any, case: dict[str, Any], ids: str) -> None:
    """tito's answer ``r`` against vLLM's recorded ``case``: the same ``ids`` field (of each
    prompt's request, for a completions render's list), or the same error; where vLLM's encoder
    crashed (500, its assert), tito's 400 with vLLM's words."""
    if case["status"] == 500:
        assert r.status_code == 400, r.text
        same_error(r.json()["error"], {**case["error"], "type": "BadRequestError"})
        return
    assert r.status_code == case["status"], r.text
    if case["status"] == 200:
        got = r.json()
        assert ([each[ids] for each in got] if isinstance(got, list) else got[ids]) == case[ids]
    else:
        same_error(r.json()["error"], case["error"])


def read_counter() -> type[dict[str, Any]]:
    """A ``dict`` class counting its ``get`` calls in its class attribute ``reads`` (a new class
    per call): messages built of it show how often an encoding reads them, so a test can tell a
    linear encoding from one that scans back per message."""

    class Counted(dict[str, Any]):
        reads = 0

        def get(self, key: str, default: Any = None) -> Any:
            type(self).reads += 1
            return super().get(key, default)

    return Counted
