"""What keeps a function's cold start lean: lazy registries, deferred schemas, lazy imports.

The bench (``bench/bench_cold_start.py``) measures the CPU; these tests pin the behaviour the
laziness must not change: every registry name resolves to the same parser, unknown names fail
with the same errors, and a function's import leaves the formats (and frameworks) it does not
use unimported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tito.core.parsers import tools as T
from tito.core.parsers.tools._xml import XmlCallParser
from tito.errors import BadRequest

ROOT = Path(__file__).resolve().parents[1]


def test_every_tool_parser_name_resolves_to_its_format() -> None:
    names = list(T.TOOL_PARSERS)
    assert len(names) == len(T.TOOL_PARSERS) == 19
    for name in names:
        parser = T.TOOL_PARSERS[name]
        assert T.TOOL_PARSERS.get(name) is parser  # made once
        assert name in T.TOOL_PARSERS
        # a parser's own name is vLLM's name of the format (aliases share one class)
        alias = {"llama4_json": "llama3_json", "qwen3_xml": "qwen3_coder", "glm47": "glm45"}
        assert parser.name == alias.get(name, name)


def test_typed_tool_parsers_are_the_xml_formats() -> None:
    xml = {n for n, p in T.TOOL_PARSERS.items() if isinstance(p, XmlCallParser)}
    assert T.TYPED_TOOL_PARSERS == xml


def test_unknown_tool_parser_errors_unchanged() -> None:
    assert "nope" not in T.TOOL_PARSERS
    assert T.TOOL_PARSERS.get("nope") is None
    with pytest.raises(KeyError):
        T.TOOL_PARSERS["nope"]
    with pytest.raises(BadRequest) as err:
        T.make_tool_parser("nope", "auto")
    assert err.value.param == "tool_parser"
    assert str(err.value).startswith("unknown tool parser 'nope'; known: ['deepseek_v3', ")


def _imported_by(module: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TITO_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["TITO_MODELS_DIR"] = str(ROOT / "layers" / "tokenizer" / "models")
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.parametrize("function", ["chat_derender", "chat_render"])
def test_a_function_imports_only_the_formats_its_model_uses(function: str) -> None:
    # the default model (qwen3) uses hermes tool calls
    mods = _imported_by(f"tito.handlers.{function}")
    formats = {m.rsplit(".", 1)[1] for m in mods if m.startswith("tito.core.parsers.tools.")}
    assert not formats & {"mistral", "pythonic", "llama4_pythonic", "granite", "kimi_k2",
                          "deepseek_v3", "deepseek_v32", "qwen3_coder", "glm45", "minimax_m2"}


def test_a_derender_function_imports_no_framework_nor_other_services() -> None:
    mods = _imported_by("tito.handlers.chat_derender")
    assert not mods & {"fastapi", "starlette", "jinja2", "tito.service.responses_derender",
                       "tito.service.render", "tito.core.template"}


def test_wire_models_build_their_schemas_on_first_use() -> None:
    code = ("import json, tito.protocol as P\n"
            "built = lambda: sorted(n for n in P.__all__ if isinstance(getattr(P, n), type)\n"
            "    and '__pydantic_complete__' in vars(getattr(P, n))\n"
            "    and getattr(P, n).__pydantic_complete__)\n"
            "before = built()\n"
            "P.ErrorResponse.model_validate({'error': {'message': 'm', 'type': 't', 'code': 400}})\n"
            "print(json.dumps([before, built()]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    before, after = json.loads(out.strip().splitlines()[-1])
    assert before == []
    assert after == ["ErrorResponse"]


def test_protocol_names_resolve_lazily_to_their_submodules() -> None:
    import importlib

    import tito.protocol as P

    files = {f.stem for f in (ROOT / "src" / "tito" / "protocol").glob("*.py")} - {"__init__"}
    assert set(P._SUBMODULES) == files  # a new submodule must be listed to be found
    subs = [importlib.import_module(f"tito.protocol.{s}") for s in P._SUBMODULES]
    expected = {n: getattr(m, n) for m in subs for n in m.__all__}
    assert P.__all__ == sorted(expected)
    for name, obj in expected.items():
        assert getattr(P, name) is obj
    assert set(P.__all__) <= set(dir(P))
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        P.Nope  # noqa: B018
    namespace: dict[str, object] = {}
    exec("from tito.protocol import *", namespace)  # noqa: S102
    assert namespace["ChatCompletionRequest"] is expected["ChatCompletionRequest"]


def test_a_chat_derender_function_leaves_responses_and_tokenize_models_unimported() -> None:
    mods = _imported_by("tito.handlers.chat_derender")
    assert "tito.protocol.derender" in mods
    assert not mods & {"tito.protocol.responses", "tito.protocol.tokenize"}


def test_a_render_function_imports_only_its_own_service() -> None:
    mods = _imported_by("tito.handlers.completions_render")
    assert "tito.service.render" in mods
    assert not mods & {"tito.service.tokenize", "tito.service.responses", "fastapi", "jinja2"}
