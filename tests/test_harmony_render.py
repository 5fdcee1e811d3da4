"""gpt-oss chat render (harmony) against vLLM 0.33 goldens and openai-harmony 0.0.8.

References: ``tests/goldens/harmony.json`` (ids recorded from vLLM's own harmony_utils, see
``tests/record_harmony_goldens.py``) and openai-harmony's ``render_conversation_for_completion``
(offline, see ``tests/harmony_ref.py``) on generated conversations and tool schemas.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from fastapi.testclient import TestClient
from harmony_ref import render_ids, vllm_conversation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.core.harmony import build_conversation, render_for_completion
from tito.core.harmony.encode import developer_text, encode_ordinary
from tito.core.harmony.schema import rust_lines

GOLDENS = json.loads(
    (pathlib.Path(__file__).parent / "goldens" / "harmony.json").read_text(encoding="utf-8")
)
DATE = GOLDENS["start_date"]
pytestmark = pytest.mark.filterwarnings("ignore")


def tito_ids(model, request: dict) -> list[int]:
    conv = build_conversation(
        request["messages"], tools=request.get("tools"),
        reasoning_effort=request.get("reasoning_effort"), start_date=DATE,
    )
    return render_for_completion(model.vocab, conv)


@pytest.mark.parametrize("case", GOLDENS["render"], ids=lambda c: str(len(c["prompt_token_ids"])))
def test_render_equals_vllm(gpt_oss, case):
    assert tito_ids(gpt_oss, case["request"]) == case["prompt_token_ids"]


@pytest.mark.parametrize("case", GOLDENS["render"], ids=lambda c: str(len(c["prompt_token_ids"])))
def test_reference_mirror_equals_vllm(harmony_encoding, case):
    """The openai-harmony mirror used by the property tests below is vLLM's behaviour."""
    req = case["request"]
    conv = vllm_conversation(req["messages"], req.get("tools"), req.get("reasoning_effort"), DATE)
    assert render_ids(harmony_encoding, conv) == case["prompt_token_ids"]


def test_render_endpoint(gpt_oss, monkeypatch):
    from tito.adapters.app import create_app

    monkeypatch.setenv("TITO_HARMONY_START_DATE", DATE)
    client = TestClient(create_app())
    for case in GOLDENS["render"]:
        body = {"model": "gpt-oss", **case["request"]}
        resp = client.post("/v1/chat/completions/render", json=body)
        assert resp.status_code == 200, resp.text
        assert resp.json()["token_ids"] == case["prompt_token_ids"]
    # default: today's date (vLLM: datetime.now() unless VLLM_SYSTEM_START_DATE)
    monkeypatch.delenv("TITO_HARMONY_START_DATE")
    import datetime

    resp = client.post("/v1/chat/completions/render",
                       json={"model": "gpt-oss", "messages": [{"role": "user", "content": "x"}]})
    text = gpt_oss.vocab.decode(resp.json()["token_ids"], skip_special_tokens=False)
    assert f"Current date: {datetime.date.today():%Y-%m-%d}\n" in text


@pytest.mark.parametrize("effort", ["none", "minimal", "xhigh", "max"])
def test_unsupported_reasoning_effort_is_400(effort):
    from tito.adapters.app import create_app

    client = TestClient(create_app())
    resp = client.post("/v1/chat/completions/render", json={
        "model": "gpt-oss", "messages": [{"role": "user", "content": "x"}],
        "reasoning_effort": effort})
    assert resp.status_code == 400, resp.text
    err = resp.json()["error"]
    assert err["param"] == "reasoning_effort" and effort in err["message"]


def test_completions_on_gpt_oss_stay_plain_text(gpt_oss):
    from tito.adapters.app import create_app

    client = TestClient(create_app())
    resp = client.post("/v1/completions/render",
                       json={"model": "gpt-oss", "prompt": "Once upon a time", "max_tokens": 5})
    assert resp.status_code == 200, resp.text
    ids = resp.json()[0]["token_ids"]
    assert ids == gpt_oss.vocab.encode("Once upon a time")
    out = client.post("/v1/completions/derender", json={
        "model": "gpt-oss", "generate_responses": [{"request_id": "cmpl-1", "choices": [
            {"index": 0, "token_ids": gpt_oss.vocab.encode(" there was"), "finish_reason": "length"}]}]})
    assert out.json()["choices"][0]["text"] == " there was"


# -- properties against openai-harmony ----------------------------------------------------------

PIECES = list("ab c\n\t\r") + ["<|end|>", "<|start|>", "é", "😀", "中", "\u2028", "\x0b",
                                  " to=", "'s", "123", "  ", '"', "\\"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
#: serde_json (no float_roundtrip feature) is not exactly rounded: it may read a long float, or
#: one with a large exponent (``2.11290277398e+139``), as a neighbouring double, where tito prints
#: Python's exact value (docs/harmony.md). The comparison uses floats that both read exactly:
#: up to 7 significant digits, magnitudes 1e-15 to 1e15 (and 0).
FLOATS = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False).map(
    lambda x: 0.0 if abs(x) < 1e-15 else float(f"{x:.7g}"))
NAMES = st.text(alphabet="abcxyz_", min_size=1, max_size=8)
LEAF = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "number", "integer", "boolean", "null", ["string", "null"],
                              ["integer", "string"]])},
    optional={"description": TEXT, "default": st.one_of(TEXT, st.integers(-5, 10**20),
                                                        FLOATS,
                                                        st.booleans(), st.none()),
              "enum": st.lists(TEXT, max_size=3), "nullable": st.booleans(),
              "title": TEXT, "examples": st.lists(TEXT, max_size=2)},
)
SCHEMA = st.recursive(
    LEAF,
    lambda kids: st.one_of(
        st.fixed_dictionaries({"type": st.just("object"),
                               "properties": st.dictionaries(NAMES, kids, max_size=3)},
                              optional={"required": st.lists(NAMES, max_size=2),
                                        "description": TEXT, "default": st.dictionaries(
                                            NAMES, st.integers(-5, 10**20), max_size=2)}),
        st.fixed_dictionaries({"type": st.just("array")}, optional={"items": kids}),
        st.fixed_dictionaries({"oneOf": st.lists(kids, min_size=1, max_size=3)},
                              optional={"description": TEXT, "default": TEXT}),
    ),
    max_leaves=6,
)
TOOL = st.builds(
    lambda name, desc, params: {"type": "function", "function": {
        "name": name, "description": desc, **({} if params is None else {"parameters": params})}},
    NAMES, st.one_of(st.none(), TEXT), st.one_of(st.none(), SCHEMA),
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(tools=st.lists(TOOL, min_size=1, max_size=3), instructions=st.one_of(st.none(), TEXT))
def test_tool_schemas_render_like_openai_harmony(gpt_oss, harmony_encoding, tools, instructions):
    msgs = ([{"role": "developer", "content": instructions}] if instructions is not None else [])
    msgs.append({"role": "user", "content": "go"})
    ref = render_ids(harmony_encoding, vllm_conversation(msgs, tools, None, DATE))
    conv = build_conversation(msgs, tools=tools, start_date=DATE)
    assert render_for_completion(gpt_oss.vocab, conv) == ref


ROLE_MSG = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, TEXT),
    st.builds(lambda ts: {"role": "user", "content": [{"type": "text", "text": t} for t in ts]},
              st.lists(TEXT, max_size=3)),
    st.builds(lambda c, r: {"role": "assistant", "content": c, "reasoning": r},
              st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT)),
    st.builds(lambda t: {"role": "system", "content": t}, TEXT),
    st.builds(lambda c, r, args: {"role": "assistant", "content": c, "reasoning": r,
                                  "tool_calls": [{"id": f"id{i}", "type": "function",
                                                  "function": {"name": "f" if i % 2 else "g",
                                                               "arguments": a}}
                                                 for i, a in enumerate(args)]},
              st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT),
              st.lists(TEXT, min_size=1, max_size=3)),
    st.builds(lambda i, t: {"role": "tool", "tool_call_id": f"id{i}", "content": t},
              st.integers(0, 3), TEXT),
)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(msgs=st.lists(ROLE_MSG, min_size=1, max_size=6),
       effort=st.sampled_from([None, "low", "medium", "high"]),
       with_tools=st.booleans())
def test_conversations_render_like_openai_harmony(gpt_oss, harmony_encoding, msgs, effort,
                                                  with_tools):
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    tools = tools if with_tools else None
    ref = render_ids(harmony_encoding, vllm_conversation(msgs, tools, effort, DATE))
    conv = build_conversation(msgs, tools=tools, reasoning_effort=effort, start_date=DATE)
    assert render_for_completion(gpt_oss.vocab, conv) == ref


@settings(max_examples=80, deadline=None)
@given(text=TEXT)
def test_text_encodes_like_tiktoken_encode_ordinary(gpt_oss, harmony_encoding, text):
    assert encode_ordinary(gpt_oss.vocab, text) == harmony_encoding.encode(text,
                                                                           disallowed_special=())


def test_developer_text_layout():
    """The shape gpt-oss was trained on, spelled out once (the property tests check the rest)."""
    from tito.core.harmony import DeveloperContent, ToolDescription

    dev = DeveloperContent(instructions="Be nice", tools=(ToolDescription(
        "get_weather", "Get weather", {"type": "object", "properties": {
            "location": {"type": "string", "description": "City"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "opt": {"type": ["string", "null"]},
            "nested": {"type": "object", "properties": {"a": {"type": "integer"}},
                       "required": ["a"]}},
            "required": ["location"]}),))
    assert developer_text(dev) == (
        "# Instructions\n\nBe nice\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n"
        "// Get weather\ntype get_weather = (_: {\n// City\nlocation: string,\n"
        'unit?: "c" | "f", // default: c\nopt?: string | null,\nnested?: {\n    a: number,\n'
        "    },\n}) => any;\n\n} // namespace functions"
    )


def test_rust_lines():
    assert rust_lines("") == []
    assert rust_lines("a\n") == ["a"]
    assert rust_lines("a\r\nb\x0bc\u2028d\n\n") == ["a", "b\x0bc\u2028d", ""]
    assert rust_lines("a\r") == ["a\r"]


@pytest.mark.parametrize("case", GOLDENS["structured"], ids=lambda c: next(iter(c["request"])))
def test_structured_outputs_constrain_the_final_channel_like_vllm(case):
    from tito.adapters.app import create_app

    client = TestClient(create_app())
    resp = client.post("/v1/chat/completions/render", json={
        "model": "gpt-oss", "messages": [{"role": "user", "content": "x"}], **case["request"]})
    assert resp.status_code == 200, resp.text
    so = resp.json()["sampling_params"]["structured_outputs"]
    assert json.loads(so["structural_tag"]) == json.loads(case["structural_tag"])
    assert so["structural_tag"] == case["structural_tag"]  # the same text vLLM sends
    assert not {"json", "regex", "choice", "json_object"} & {k for k, v in so.items() if v}
