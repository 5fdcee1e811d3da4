"""The seeded mutation fuzzer of conformance/fuzz_hard.py, a few examples per CI run, and the
bugs it found as regression cases.

Why: the plain apps' fast paths (orjson parsing, the streamed body check, the render wire
dicts) bypass pydantic; whatever a body holds, they must answer < 500, in OpenAI's error shape,
and byte for byte as the validated path does.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import fuzz_hard
from tito.models.registry import get_registry


@pytest.fixture(scope="module")
def apps() -> fuzz_hard.Apps:
    return fuzz_hard.Apps()


@pytest.fixture(scope="module")
def pool(apps: fuzz_hard.Apps) -> list[tuple[str, Any]]:
    seeds = fuzz_hard.seeds()
    return seeds + fuzz_hard.streamed_seeds(apps, seeds)


CHAT = "/v1/chat/completions/render"


def _findings(apps: fuzz_hard.Apps, path: str, raw: bytes,
              ctype: str = "application/json") -> list[tuple[str, str]]:
    """What the fuzzer's check finds, but "slow": a worker's first request for a model loads
    its tokenizer (which test comes first depends on how xdist shares the tests out)."""
    return [f for f in apps.check(path, raw, ctype) if not f[0].startswith("slow")]


@pytest.mark.parametrize(("path", "raw"), [
    # raw surrogate bytes (invalid UTF-8 that json.loads of bytes lets through): the tokenizer
    # raised TypeError (500), an error message quoting one raised UnicodeEncodeError (an empty 500)
    (CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": "Hi\xed\xa0\x80"}]}'),
    (CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": [{"type": "x\xed\xa0\x80"}]}]}'),
    (CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "x\xed\xb0\x80": 1}'),
    ("/v1/chat/completions/derender", b'{"model": "qwen3", "x\xed\xa0\x80": 1}'),
    # a Responses input item whose type is an object: a set lookup of an unhashable (a 500;
    # CI's test_mutated_seeds at stop 25)
    ("/v1/responses/render", b'{"model": "gpt-oss", "input": [{"role": "user", "content": "Hi"}, '
                             b'{"type": {"a": [0]}}]}'),
    ("/v1/responses/render", b'{"model": "gpt-oss", "input": [{"type": ["message"]}]}'),
    # gpt-oss: a function_call's call_id that is an object or a list (harmony's check kept
    # the call ids in a set: a 500; fuzz_hard seed 101)
    ("/v1/responses/render", b'{"model": "gpt-oss", "input": [{"role": "user", "content": "Hi"}, '
                             b'{"type": "function_call", "call_id": {"a": 1}, "name": "f", '
                             b'"arguments": "{}"}, {"type": "function_call_output", "call_id": 1, '
                             b'"output": "x"}]}'),
    ("/v1/responses/render", b'{"model": "gpt-oss", "input": [{"role": "user", "content": "Hi"}, '
                             b'{"type": "function_call", "call_id": ["c"], "name": "f", '
                             b'"arguments": "{}"}, {"type": "function_call_output", '
                             b'"call_id": ["c"], "output": "x"}]}'),
    # a Messages tool_result whose text part holds a list (vLLM's join TypeError, its 400; tito
    # raised it: a 500) or whose image source is not an object (fuzz_hard seed 104)
    ("/v1/messages/render", b'{"model": "qwen3", "max_tokens": 8, "messages": [{"role": "user", '
                            b'"content": [{"type": "tool_result", "tool_use_id": "t", "content": '
                            b'[{"type": "text", "text": "18 C"}, {"type": "text", "text": []}]}]}]}'),
    ("/v1/messages/render", b'{"model": "qwen3", "max_tokens": 8, "messages": [{"role": "user", '
                            b'"content": [{"type": "tool_result", "tool_use_id": "t", "content": '
                            b'[{"type": "image", "source": "x"}]}]}]}'),
    # JSON nested past the interpreter's stack (orjson stops at 1,024, json.loads then raised
    # RecursionError: the plain apps' 500)
    (CHAT, b'{"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "x": '
           + b"[" * 5000 + b"]" * 5000 + b"}"),
    # a Responses tool whose type is 990 levels deep: its error message's repr ran out of stack
    # (RecursionError, a 500; fuzz_hard seed 340 case 1993); the reference's json.loads runs out
    # first ("error parsing the body")
    pytest.param("/v1/responses/render", b'{"model": "qwen3", "input": "hi", "tools": '
                 b'[{"type": ' + b'{"a": [' * 495 + b"0" + b"]}" * 495 + b"}]}",
                 id="responses-tool-type-990-deep"),
])
def test_found_cases(apps: fuzz_hard.Apps, path: str, raw: bytes) -> None:
    assert _findings(apps, path, raw) == []
    assert apps.ref.post(path, content=raw, headers={"content-type": "application/json"}
                         ).status_code == 400


@pytest.mark.parametrize(("model", "call", "eos"), [
    ("qwen3", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
     151645),
    # Mistral's 9-alphanumeric ids, derived from the same random id (seed 909 case 728)
    ("mistral-v3", '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]', 2),
])
def test_random_tool_call_ids_are_normalized(apps: fuzz_hard.Apps, model: str, call: str,
                                             eos: int) -> None:
    """A batch derender without ``request_id`` has a random response id and tool-call ids
    derived from it (``chatcmpl-tool-`` + 24 hex digits, or Mistral's 9 alphanumerics): the
    fuzzer replaced only 16 hex digits, so the two apps' equal answers diverged (seed 189 case
    990)."""
    vocab = get_registry().get(model).vocab
    body = {"model": model, "chat_request": {
        "model": model, "messages": [{"role": "user", "content": "Weather?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}}}}]},
        "generate_response": {"choices": [{"index": 0, "token_ids": vocab.encode(call) + [eos],
                                           "finish_reason": "stop"}]}}
    raw = json.dumps(body).encode()
    assert _findings(apps, "/v1/chat/completions/derender", raw) == []
    answer = apps.derender.post("/v1/chat/completions/derender", content=raw,
                                headers={"content-type": "application/json"}).json()
    assert answer["choices"][0]["finish_reason"] == "tool_calls"


def test_deep_template_kwargs_are_rendered(apps: fuzz_hard.Apps) -> None:
    """A request value nested past pydantic's JSON-mode guard (~200) travels back in the
    ``derender_context``: a 200 on both apps, as vLLM (the FastAPI app's to_wire was a 500).
    254 containers at most: vLLM's ``ParseContext`` refuses deeper template kwargs (400,
    ``render_json_values`` goldens)."""
    deep: Any = "x"
    for _ in range(127):
        deep = {"a": [deep]}
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
            "chat_template_kwargs": {"enable_thinking": False, "x": deep}}
    import json

    raw = json.dumps(body).encode()
    assert _findings(apps, CHAT, raw) == []
    answer = apps.ref.post(CHAT, content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 200
    assert answer.json()["derender_context"]["chat_template_kwargs"]["x"] == deep


def test_deep_json_schema_is_rendered(apps: fuzz_hard.Apps) -> None:
    """A response_format schema nested past pydantic's JSON-mode guard: the sampling params'
    structured_outputs dump was a 500 on both apps (fuzz_hard seed 108); vLLM 0.33 answers 200
    with the schema as sent."""
    deep: Any = "string"
    for i in range(300):
        deep = [deep] if i % 2 else {"a": deep}
    schema = {"type": "object", "properties": {"t": {"type": deep}}}
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}],
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "w", "schema": schema}}}
    import json

    raw = json.dumps(body).encode()
    assert _findings(apps, CHAT, raw) == []
    answer = apps.ref.post(CHAT, content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 200
    assert answer.json()["sampling_params"]["structured_outputs"]["json"] == schema


def test_nesting_at_the_stack_limit_is_no_divergence(apps: fuzz_hard.Apps) -> None:
    """A body nested 990 levels: the FastAPI reference's ``json.loads`` runs out of stack under
    its own frames ("error parsing the body"), tito's parser (orjson, 1,024 levels) reads it and
    answers the request's own 400. Where the reference's stack ends is no rule of the body, so
    the fuzzer does not report it (seed 132 case 1432); both answers are still 400s."""
    deep: Any = 0
    for i in range(990):
        deep = [deep] if i % 2 else {"a": deep}
    body = {"model": "gpt2", "prompt": "Once", "stream_options": {"include_usage": deep}}
    raw = fuzz_hard._dumps(body, True).encode()
    path, headers = "/v1/completions/render", {"content-type": "application/json"}
    assert _findings(apps, path, raw) == []
    ref, lean = (client.post(path, content=raw, headers=headers) for client in (apps.ref, apps.render))
    assert (ref.status_code, lean.status_code) == (400, 400)
    assert ref.json()["error"]["message"] == "There was an error parsing the body"
    assert lean.json()["error"]["param"] == "stream_options"


@given(seed=st.integers(0, 2**32))
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_seeds(apps: fuzz_hard.Apps, pool: list[tuple[str, Any]], seed: int) -> None:
    """40 fixed mutations (derandomized: a gate must not fail on the run that first draws a new
    bug; ``python -m conformance.fuzz_hard --seed N`` explores, its finds become found cases)."""
    rng = random.Random(seed)
    path, body = rng.choice(pool)
    raw, ctype = fuzz_hard._encode(rng, fuzz_hard.mutate(rng, body))
    findings = _findings(apps, path, raw, ctype)
    assert findings == [], (path, raw[:2000], ctype)


def test_paths_of_a_value_deeper_than_the_stack() -> None:
    """Two deep mutations inside each other (500 levels each) nest past the interpreter's stack:
    the next mutation's walk of the body's paths ended seed 303 in a RecursionError. The walk
    keeps its depth-first order (the empty path first), so earlier seeds draw as before."""
    nested: Any = 0
    for _ in range(3000):
        nested = [{"a": nested}]
    assert len(fuzz_hard.paths(nested)) == 6001
    body = {"a": [1, {"b": 2, "c": [3]}, []], "d": {}}
    assert fuzz_hard.paths(body) == [(), ("a",), ("a", 0), ("a", 1), ("a", 1, "b"),
                                     ("a", 1, "c"), ("a", 1, "c", 0), ("a", 2), ("d",)]


def _deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("path", ["/v1/completions/derender", "/v1/chat/completions/derender"])
def test_deep_stream_state_is_a_400(apps: fuzz_hard.Apps, path: str) -> None:
    """A stream_state holding a value nested 300 deep: its model_dump hit pydantic's recursion
    guard (a 500; found by test_mutated_seeds once the structural goldens grew)."""
    import json

    model = "gpt2" if "/v1/completions" in path else "qwen3"
    body = {"stream": True, "model": model, "stream_state": {"tito": {"x": _deep(300)}},
            "generate_chunk": {"request_id": "generate-tokens-1",
                               "choices": [{"index": 0, "token_ids": [15496]}]}}
    raw = json.dumps(body).encode()
    assert _findings(apps, path, raw) == []
    assert apps.ref.post(path, content=raw, headers={"content-type": "application/json"}
                         ).status_code == 400


@pytest.mark.parametrize("body", [
    # a free-form value nested 300 deep: pydantic's serializer (the FastAPI route's model_dump)
    # hit its recursion guard (a 500) where the plain app answered
    {"model": "qwen3", "messages": [{"role": "user", "content": "hi"}], "tools": [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
                                                                     "x": _deep(300)}}}]},
])
def test_deep_free_form_values(apps: fuzz_hard.Apps, body: dict[str, Any]) -> None:
    import json

    raw = json.dumps(body).encode()
    assert _findings(apps, CHAT, raw) == []
    assert apps.ref.post(CHAT, content=raw, headers={"content-type": "application/json"}
                         ).status_code == 200
