"""What keeps a function's cold start lean: lazy registries, deferred schemas, lazy imports.

The bench (``bench/bench_cold_start.py``) measures the CPU; these tests pin the behaviour the
laziness must not change: every registry name resolves to the same parser, unknown names fail
with the same errors, and a function's import leaves the formats (and frameworks) it does not
use unimported.
"""

from __future__ import annotations

import functools
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
    assert len(names) == len(T.TOOL_PARSERS) == 50
    for name in names:
        parser = T.TOOL_PARSERS[name]
        assert T.TOOL_PARSERS.get(name) is parser  # made once
        assert name in T.TOOL_PARSERS
        # a parser's own name is vLLM's name of the format (aliases share one class)
        alias = {"llama4_json": "llama3_json", "qwen3_xml": "qwen3_coder", "glm47": "glm45",
                 "qwen3_json": "hermes", "step3p5": "qwen3_coder", "step5": "qwen3_coder",
                 "musespark1x": "muse"}
        assert parser.name == alias.get(name, name)


def test_typed_tool_parsers_are_the_xml_formats() -> None:
    xml = {n for n, p in T.TOOL_PARSERS.items() if isinstance(p, XmlCallParser)}
    # kimi_k3's values carry their own type attribute: it reads no request schema
    assert T.TYPED_TOOL_PARSERS == xml - {"kimi_k3"}


def test_unknown_tool_parser_errors_unchanged() -> None:
    assert "nope" not in T.TOOL_PARSERS
    assert T.TOOL_PARSERS.get("nope") is None
    with pytest.raises(KeyError):
        T.TOOL_PARSERS["nope"]
    with pytest.raises(BadRequest) as err:
        T.make_tool_parser("nope", "auto")
    assert err.value.param == "tool_parser"
    assert str(err.value).startswith("unknown tool parser 'nope'; known: ['apertus', 'deepseek_v3', ")


@functools.cache
def _imported_by(module: str) -> frozenset[str]:
    """The modules a fresh interpreter holds after importing ``module`` (the shipped models, the
    default qwen3: hermes tools, qwen3 reasoning)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TITO_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["TITO_MODELS_DIR"] = str(ROOT / "layers" / "tokenizer" / "models")
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return frozenset(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.parametrize("function", ["chat_derender", "chat_render"])
def test_a_function_imports_only_the_formats_its_model_uses(function: str) -> None:
    # the default model (qwen3) uses hermes tool calls
    mods = _imported_by(f"tito.handlers.{function}")
    formats = {m.rsplit(".", 1)[1] for m in mods if m.startswith("tito.core.parsers.tools.")}
    assert not formats & {"mistral", "pythonic", "llama4_pythonic", "granite", "kimi_k2",
                          "deepseek_v3", "deepseek_v32", "qwen3_coder", "glm45", "minimax_m2"}


#: what no function imports: frameworks of ``tito serve``, openai-harmony (tito encodes harmony
#: itself), the Messages models (only their function)
_NEVER = {"fastapi", "starlette", "openai_harmony", "tito.protocol.anthropic",
          "tito.service.messages", "tito.core.anthropic"}
#: gpt-oss's render side, for functions whose default model (qwen3) is not harmony
_HARMONY_RENDER = {"tito.core.harmony", "tito.core.harmony.conversation",
                   "tito.core.harmony.encode", "tito.core.harmony.structured"}
#: the derender side: service, pipeline, stream state (a render function never derenders)
_DERENDER = {"tito.service.derender", "tito.service.stream_state", "tito.service.stream_body",
             "tito.core.pipeline", "tito.core.detokenizer", "tito.protocol.derender",
             "tito.protocol.generate_response", "tito.protocol.responses_derender",
             "tito.protocol.derender_completion"}
_RENDER = {"tito.service.render", "tito.service.responses_render", "tito.core.template",
           "tito.core.render", "jinja2"}
#: gpt-oss's output parser (a qwen3 choice needs only its state's class: harmony_state)
_HARMONY_PARSER = {"tito.core.parsers.harmony"}

#: function -> modules its handler import leaves unimported (beyond :data:`_NEVER`); a derender
#: function renders nothing (:data:`_RENDER`, the Responses render side)
UNSERVED: dict[str, set[str]] = {
    "chat_derender": _RENDER | _HARMONY_RENDER | _HARMONY_PARSER | {
        "tito.service.harmony", "tito.service.responses_derender", "tito.protocol.responses",
        "tito.protocol.tokenize", "tito.protocol.generate_request", "tito.protocol.completion",
        "tito.protocol.derender_completion"},
    "completions_derender": _RENDER | _HARMONY_RENDER | _HARMONY_PARSER | {
        "tito.service.responses_derender", "tito.protocol.responses", "tito.protocol.tokenize",
        "tito.protocol.generate_request"},
    "responses_derender": _RENDER | _HARMONY_RENDER | _HARMONY_PARSER | {"tito.protocol.tokenize",
                                                    "tito.protocol.generate_request"},
    # qwen3 only: not even harmony's output parser
    "chat_render": _DERENDER | _HARMONY_RENDER | {
        "tito.protocol.chat_response",
        "tito.core.parsers.harmony", "tito.protocol.completion", "tito.protocol.responses",
        "tito.protocol.tokenize", "tito.service.responses", "tito.service.responses_render",
        "tito.service.tokenize"},
    "completions_render": _DERENDER | _HARMONY_RENDER | {
        "tito.protocol.chat_response",
        "tito.core.parsers.harmony", "tito.core.template", "jinja2", "tito.protocol.chat",
        "tito.protocol.responses",
        "tito.protocol.tokenize", "tito.service.responses", "tito.service.responses_render",
        "tito.service.tokenize"},
    "responses_render": _DERENDER | _HARMONY_RENDER | {
        "tito.protocol.chat_response",
        "tito.core.parsers.harmony", "tito.protocol.completion", "tito.protocol.tokenize",
        "tito.service.tokenize"},
    "tokenize": _DERENDER | _HARMONY_RENDER | {
        "tito.protocol.chat_response",
        "tito.core.parsers.harmony", "tito.protocol.completion", "tito.protocol.responses",
        "tito.service.responses", "tito.service.responses_render"},
}


@pytest.mark.parametrize("function", sorted(UNSERVED))
def test_a_function_imports_nothing_it_does_not_serve(function: str) -> None:
    mods = _imported_by(f"tito.handlers.{function}")
    assert f"tito.handlers.{function}" in mods
    assert not mods & (UNSERVED[function] | _NEVER)


def test_the_functions_import_what_they_serve() -> None:
    """The sets above are not vacuous: each function holds its own service and models."""
    assert {"tito.service.derender", "tito.protocol.derender", "tito.core.pipeline"} <= \
        _imported_by("tito.handlers.chat_derender")
    assert {"tito.service.render", "tito.core.template", "tito.protocol.chat"} <= \
        _imported_by("tito.handlers.chat_render")
    assert {"tito.service.responses_derender", "tito.protocol.responses"} <= \
        _imported_by("tito.handlers.responses_derender")
    assert {"tito.service.tokenize", "tito.protocol.tokenize"} <= \
        _imported_by("tito.handlers.tokenize")


def test_a_protocol_name_imports_only_its_own_submodule() -> None:
    code = ("import json, sys\n"
            "from tito.protocol import TokenizeCompletionRequest, ErrorResponse\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tito.protocol.'))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    # tokenize builds on chat's tool model, common's base and the raw-body rules both check
    # before their fields: nothing else is imported
    assert json.loads(out.strip().splitlines()[-1]) == [
        "tito.protocol.chat", "tito.protocol.common", "tito.protocol.raw_rules",
        "tito.protocol.tokenize"]


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
    # a new submodule must be listed to be found; engine only re-exports generate_* (old paths)
    assert set(P._EXPORTS) == files - {"engine"}
    engine = importlib.import_module("tito.protocol.engine")
    assert all(getattr(P, n) is getattr(engine, n) for n in engine.__all__)
    subs = {s: importlib.import_module(f"tito.protocol.{s}") for s in P._EXPORTS}
    for sub, module in subs.items():  # the table is each submodule's __all__
        assert sorted(P._EXPORTS[sub]) == sorted(module.__all__), sub
    chat = subs["chat"]  # the response models' old home still gives them (lazily)
    assert chat._RESPONSE_NAMES == set(subs["chat_response"].__all__)
    assert all(getattr(chat, n) is getattr(subs["chat_response"], n) for n in chat._RESPONSE_NAMES)
    expected = {n: getattr(m, n) for m in subs.values() for n in m.__all__}
    assert len(expected) == sum(len(m.__all__) for m in subs.values())  # each name in one home
    assert P.__all__ == sorted(expected)
    for name, obj in expected.items():
        assert getattr(P, name) is obj
    assert set(P.__all__) <= set(dir(P))
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        P.Nope  # noqa: B018
    namespace: dict[str, object] = {}
    exec("from tito.protocol import *", namespace)  # noqa: S102
    assert namespace["ChatCompletionRequest"] is expected["ChatCompletionRequest"]


def test_shipped_state_code_is_current_and_used() -> None:
    """tito.core._state_code holds every State class's generated methods (no compile at cold
    start), exactly as the classes generate them now; regenerate with the command it prints."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env["TITO_MODELS_DIR"] = str(ROOT / "layers" / "tokenizer" / "models")
    check = subprocess.run([sys.executable, "-m", "tito.core.state_codegen", "--check"], env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    from tito.core.pipeline import ChoiceState
    from tito.core.state import GENERATED, State

    assert ChoiceState.__init__.__code__.co_filename.endswith("_state_code.py")

    class Local(State):  # not in the shipped file: compiled at definition, as before
        a: int = 1

    assert Local(a=2).model_dump() == {"a": 2}
    assert Local.__init__.__code__.co_filename == "<string>"
    assert any(key.startswith("Local_") for key in GENERATED)



def test_render_traits_are_the_parsers_attributes() -> None:
    """Render reads a format's traits from a table (no format module imported): each is the
    parser's own class attribute."""
    assert set(T.RENDER_TRAITS) == set(T.TOOL_PARSERS)
    for name, traits in T.RENDER_TRAITS.items():
        parser = T.TOOL_PARSERS[name]
        for attr in T.RenderTraits.__slots__:
            assert getattr(traits, attr) == getattr(parser, attr), (name, attr)


@functools.cache
def _first_request_imports(function: str) -> frozenset[str]:
    """The modules a fresh interpreter holds after its function's import and first request
    (``events/<function>.json``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TITO_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["TITO_MODELS_DIR"] = str(ROOT / "layers" / "tokenizer" / "models")
    code = ("import json, sys, types\n"
            f"import tito.handlers.{function} as m\n"
            "ctx = types.SimpleNamespace(function_name='f', memory_limit_in_mb=1024, "
            "invoked_function_arn='arn:aws:lambda:us-east-1:1:function:f', aws_request_id='r', "
            "log_group_name='g', log_stream_name='s', function_version='1', "
            "get_remaining_time_in_millis=lambda: 10000)\n"
            f"event = json.loads(open({str(ROOT / 'events' / (function + '.json'))!r}).read())\n"
            "assert m.handler(event, ctx)['statusCode'] == 200\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return frozenset(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.parametrize("function", ["chat_derender", "responses_derender"])
def test_a_qwen3_derender_never_imports_the_harmony_parser(function: str) -> None:
    assert "tito.core.parsers.harmony_state" in _first_request_imports(function)
    assert not _first_request_imports(function) & (_HARMONY_PARSER | _HARMONY_RENDER)


@pytest.mark.parametrize("function", ["chat_render", "responses_render", "tokenize"])
def test_a_render_function_never_imports_a_tool_format(function: str) -> None:
    # render reads the format's traits (RENDER_TRAITS), never its parser: not even hermes
    mods = _first_request_imports(function)
    assert not {m for m in mods if m.startswith("tito.core.parsers.tools.")} - {
        "tito.core.parsers.tools._base", "tito.core.parsers.tools.choice",
        "tito.core.parsers.tools.structural", "tito.core.parsers.tools.structural_dump",
        "tito.core.parsers.tools.structural_formats", "tito.core.parsers.tools.structural_nodes",
        "tito.core.parsers.tools._schema"}
