"""The Responses tools' shapes (tito.protocol.responses_tool_types): the plain function tool's
shortcut gives what its shape gives, and the shapes are built only when a request needs them.
What vLLM 0.33 answers for each kind's fields is the ``render_responses_tool_shapes`` goldens'
(tests/test_conformance.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from tito.protocol import responses_tools
from tito.protocol.responses import ResponsesRequest

ROOT = Path(__file__).resolve().parents[1]

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=3),
                    st.just({"type": "object"}), st.just([1]), st.just("true"), st.just(1.5))


def _outcome(tool: dict) -> object:
    try:
        request = ResponsesRequest.model_validate({"model": "qwen3", "input": "hi",
                                                   "tools": [tool]})
    except ValidationError:
        return "refused"
    return request.tools[0].model_dump()


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["name", "description", "parameters", "strict"]),
                       _VALUES))
def test_the_plain_function_shortcut_is_its_shape(tool: dict) -> None:
    tool = {"type": "function", **tool}
    shortcut = _outcome(tool)
    with pytest.MonkeyPatch.context() as patch:  # every tool through its shape
        patch.setattr(responses_tools, "_plain_function", lambda data: False)
        assert _outcome(tool) == shortcut


@pytest.mark.parametrize(("tool", "ok"), [
    ({"type": "web_search_preview", "name": 5}, True),  # another kind's field: an extra
    ({"type": "web_search_preview", "search_context_size": "huge"}, False),
    ({"type": "function", "name": "f", "async": "x"}, False),
    ({"type": "function", "name": "f", "async_": "x"}, True),  # (the alias only)
    ({"type": "function", "name": "f", "strict": "true"}, True),
    ({"type": "mcp", "server_label": "s", "require_approval": {"never": {"read_only": True}}},
     True),
    ({"type": "code_interpreter", "container": {"type": "x"}}, False),
    ({"type": "bogus"}, False),
])
def test_each_kind_is_checked_against_its_shape(tool: dict, ok: bool) -> None:
    assert (_outcome(tool) != "refused") is ok
    if ok and tool.get("strict") == "true":
        assert _outcome(tool)["strict"] is True  # coerced as vLLM's model reads it


def test_the_shapes_are_built_only_for_tools_that_need_them() -> None:
    code = ("import json, sys\n"
            "from tito.protocol.responses import ResponsesRequest\n"
            "body = {'model': 'qwen3', 'input': 'hi', 'tools': [{'type': 'function', 'name': 'f',"
            " 'parameters': {}, 'strict': True, 'description': 'd'}]}\n"
            "ResponsesRequest.model_validate(body)\n"
            "first = 'tito.protocol.responses_tool_types' in sys.modules\n"
            "body['tools'].append({'type': 'web_search_preview'})\n"
            "ResponsesRequest.model_validate(body)\n"
            "print(json.dumps([first, 'tito.protocol.responses_tool_types' in sys.modules]))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                         text=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [False, True]
