"""The defects of the adversarial run (issue 14), one test each: every one is a 4xx naming the
field (or an honest output), never a 500."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import post_raw, stream_chunk
from lambda_support import import_or_skip

from tito.adapters.app import create_app, lone_surrogate_path
from tito.errors import quote
from tito.settings import SettingsError, check_environment

CHAT_RENDER = "/v1/chat/completions/render"
COMPL_RENDER = "/v1/completions/render"
CHAT_DERENDER = "/v1/chat/completions/derender"
COMPL_DERENDER = "/v1/completions/derender"
LONE = '"\\ud800"'


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


def _error(resp: Any, status: int = 400) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    return resp.json()["error"]


# -- 1. lone surrogates ------------------------------------------------------------------------

SURROGATE_CASES = [
    (CHAT_RENDER, '{"model":"qwen3","messages":[{"role":"user","content":%s}]}', "messages.0.content"),
    (CHAT_RENDER, '{"model":%s,"messages":[{"role":"user","content":"x"}]}', "model"),
    (CHAT_RENDER, '{"model":"qwen3","stop":[%s],"messages":[{"role":"user","content":"x"}]}', "stop.0"),
    (CHAT_RENDER, '{"model":"qwen3","request_id":%s,"messages":[{"role":"user","content":"x"}]}',
     "request_id"),
    (CHAT_RENDER, '{"model":"qwen3","messages":[{"role":"user","content":"x"}],"tools":[{"type":'
     '"function","function":{"name":%s}}]}', "tools.0.function.name"),
    (COMPL_RENDER, '{"model":"gpt2","prompt":%s}', "prompt"),
    (CHAT_DERENDER, '{"stream":true,"model":"qwen3","generate_chunk":{"request_id":%s,"choices":'
     '[{"index":0,"token_ids":[1],"finish_reason":null}]}}', "generate_chunk.request_id"),
    (CHAT_DERENDER, '{"stream":true,"model":"qwen3","stream_state":{"prev_tokens":[%s]},'
     '"generate_chunk":{"request_id":"r","choices":[]}}', "stream_state.prev_tokens.0"),
    (COMPL_DERENDER, '{"model":%s,"generate_responses":[]}', "model"),
]


@pytest.mark.parametrize(("path", "template", "param"), SURROGATE_CASES)
def test_lone_surrogate_is_a_400_naming_the_field(client, path, template, param) -> None:
    error = _error(post_raw(client, path, template % LONE))
    assert error["param"] == param
    assert "surrogate" in error["message"]


def test_surrogate_pairs_and_escaped_backslashes_pass() -> None:
    assert lone_surrogate_path(b'{"a": "\\ud83d\\ude00"}') is None  # a valid pair: one emoji
    assert lone_surrogate_path(b'{"a": "\\\\ud800"}') is None  # an escaped backslash, then text
    assert lone_surrogate_path(b'{"a": ["x", {"\\udc00": 1}]}') == "a.1"  # a key


# -- 12. what errors quote ---------------------------------------------------------------------


def test_404_quotes_the_model_name_short_and_escaped(client) -> None:
    name = "\u202e\x1b[31m" + "x" * 100_000
    error = _error(post_raw(client, COMPL_RENDER, {"model": name, "prompt": "a"}), 404)
    assert len(error["message"]) < 200
    assert "\u202e" not in error["message"] and "\x1b" not in error["message"]
    assert "\\u202e" in error["message"] and "100006 characters" in error["message"]


def test_quote_escapes_controls_and_bidi() -> None:
    assert quote("a\nb\u200f") == "a\\nb\\u200f"
    assert quote("é中") == "é中"  # printable text stays readable


@pytest.mark.parametrize("where", ["header", "body"])
def test_request_ids_are_bounded(client, where) -> None:
    body: dict[str, Any] = {"model": "qwen3", "messages": [{"role": "user", "content": "x"}]}
    headers = {"content-type": "application/json"}
    if where == "header":
        headers["x-request-id"] = "h" * 257
    else:
        body["request_id"] = "b" * 257
    resp = client.post(CHAT_RENDER, content=json.dumps(body), headers=headers)
    error = _error(resp)
    assert error["param"] == ("x-request-id" if where == "header" else "request_id")
    ok = dict(body, request_id="b" * 256)
    assert post_raw(client, CHAT_RENDER, ok).json()["request_id"] == "chatcmpl-" + "b" * 256


def test_an_empty_request_id_header_is_no_id(client) -> None:
    """vLLM takes an empty ``X-Request-Id`` as the id (every such request ``chatcmpl-``, their
    engine requests colliding); tito takes the body's id, or a fresh one."""
    body: dict[str, Any] = {"model": "qwen3", "messages": [{"role": "user", "content": "x"}],
                            "request_id": "bodyid"}
    headers = {"content-type": "application/json", "x-request-id": ""}
    resp = client.post(CHAT_RENDER, content=json.dumps(body), headers=headers)
    assert resp.json()["request_id"] == "chatcmpl-bodyid"
    del body["request_id"]
    ids = {client.post(CHAT_RENDER, content=json.dumps(body), headers=headers).json()["request_id"]
           for _ in range(2)}
    assert len(ids) == 2 and all(len(i) > len("chatcmpl-") for i in ids)


# -- 5. long stream request ids ----------------------------------------------------------------


def test_long_stream_request_id_is_a_400(client) -> None:
    body = {"stream": True, "model": "qwen3",
            "generate_chunk": stream_chunk([9707], request_id="r" * 513)}
    assert _error(post_raw(client, CHAT_DERENDER, body))["param"] == "generate_chunk.request_id"
    body["generate_chunk"] = stream_chunk([9707], request_id="r" * 300)
    resp = post_raw(client, CHAT_DERENDER, body)
    assert resp.status_code == 200 and resp.json()["chunk"]["id"] == "r" * 300


# -- 6, 7, 10. render bounds -------------------------------------------------------------------


def test_deeply_nested_tool_arguments_are_a_400(client) -> None:
    args = "[" * 10_000 + "]" * 10_000
    body = {"model": "qwen3", "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": args}}]}]}
    error = _error(post_raw(client, CHAT_RENDER, body))
    assert error["param"].endswith("function.arguments") and "deeply" in error["message"]


@pytest.mark.parametrize(("path", "extra"), [
    (CHAT_RENDER, {"messages": [{"role": "user", "content": "x"}], "model": "qwen3"}),
    (COMPL_RENDER, {"prompt": "x", "model": "gpt2"}),
])
@pytest.mark.parametrize("n", [2**63, 16385, 0])
def test_n_is_bounded_as_vllm(client, path, extra, n) -> None:
    error = _error(post_raw(client, path, {**extra, "n": n}))
    assert error["param"] == "n"
    assert post_raw(client, path, {**extra, "n": 16384}).status_code == 200


@pytest.mark.parametrize(("path", "key", "request_body"), [
    (CHAT_DERENDER, "chat_request", {"model": "qwen3", "messages": [{"role": "user", "content": "x"}]}),
    (COMPL_DERENDER, "completion_request", {"model": "gpt2", "prompt": "0"}),
])
@pytest.mark.parametrize("n", [2**63, 16385])
def test_n_is_bounded_on_a_first_stream_call(client, path, key, request_body, n) -> None:
    """Found by the long schemathesis run: a first streaming call whose request asks for more
    choices than any render allows was a 500 (the stream meta refused it)."""
    chunk = {"request_id": "r", "choices": [{"index": 0, "token_ids": [15], "finish_reason": None}]}
    body = {"model": request_body["model"], "stream": True, key: {**request_body, "n": n},
            "generate_chunk": chunk}
    error = _error(post_raw(client, path, body))
    assert error["param"] == f"{key}.n" and "16384" in error["message"]
    body[key]["n"] = 2
    assert post_raw(client, path, body).status_code == 200


def test_prompt_embeds_are_a_400(client) -> None:
    error = _error(post_raw(client, COMPL_RENDER, {"model": "gpt2", "prompt_embeds": "AAAA"}))
    assert error["param"] == "prompt_embeds" and "not accepted" in error["message"]


# -- 4, 8. tampered unsigned states ------------------------------------------------------------

QWEN_TOOL_REQ = {"messages": [{"role": "user", "content": "x"}],
                 "tools": [{"type": "function", "function": {"name": "f"}}]}


def _first_state(client: TestClient) -> dict[str, Any]:
    body = {"stream": True, "model": "qwen3", "prompt_token_ids": [151644, 77091, 198],
            "chat_request": QWEN_TOOL_REQ, "generate_chunk": stream_chunk([151657, 198])}
    resp = post_raw(client, CHAT_DERENDER, body)
    assert resp.status_code == 200, resp.text
    return resp.json()["stream_state"]


def _next(client: TestClient, state: dict[str, Any], path: str = CHAT_DERENDER) -> Any:
    model = "qwen3" if path == CHAT_DERENDER else state["tito"]["model"]
    return post_raw(client, path, {"stream": True, "model": model, "stream_state": state,
                                "generate_chunk": stream_chunk([515, 1, 151658])})


@pytest.mark.parametrize(("mutate", "param"), [
    (lambda t: t["st"]["tools"].__setitem__("phase", "bogus"), "stream_state.tito.st.tools.phase"),
    (lambda t: t["st"]["tools"].__setitem__("phase", "__init__"), "stream_state.tito.st.tools.phase"),
    (lambda t: t["cfg"].__setitem__("tool_parser", "pythonic"), "stream_state.tito.cfg.tool_parser"),
    (lambda t: t["cfg"].__setitem__("reasoning_parser", "deepseek_r1"),
     "stream_state.tito.cfg.reasoning_parser"),
    (lambda t: t["cfg"].__setitem__("completion", True), "stream_state.tito.cfg.completion"),
    (lambda t: t["st"].__setitem__("pending", 10**9), "stream_state.tito.st.pending"),
    # the reasoning markers: single ids, id sequences, the call start that ends the block
    (lambda t: t["st"]["reasoning"].__setitem__("end_id", 13), "stream_state.tito.st.reasoning"),
    (lambda t: t["st"]["reasoning"].__setitem__("end_ids", [13, 14]),
     "stream_state.tito.st.reasoning"),
    (lambda t: t["st"]["reasoning"].__setitem__("start_ids", [151667, 13]),
     "stream_state.tito.st.reasoning"),
    (lambda t: t["st"]["reasoning"].__setitem__("implicit_end_id", 13),
     "stream_state.tito.st.reasoning"),
    (lambda t: t["st"]["reasoning"].__setitem__("implicit_end", "x"),
     "stream_state.tito.st.reasoning"),
])
def test_tampered_unsigned_state_is_a_400(client, mutate, param) -> None:
    state = _first_state(client)
    mutate(state["tito"])
    assert _error(_next(client, state))["param"] == param


def test_inconsistent_unsigned_state_is_a_400_not_a_500(client) -> None:
    state = _first_state(client)
    state["tito"]["st"]["tools"].update(phase="args", calls=0, name_sent=True)
    resp = _next(client, state)
    assert resp.status_code in (200, 400), resp.text


def test_chat_state_is_refused_on_completions(client) -> None:
    state = _first_state(client)
    state["tito"]["model"] = "qwen3"
    resp = post_raw(client, COMPL_DERENDER, {"stream": True, "model": "qwen3", "stream_state": state,
                                          "generate_chunk": stream_chunk([9707])})
    assert _error(resp)["param"] == "stream_state.tito.cfg.completion"


# -- 9. Lambda events --------------------------------------------------------------------------


def _event() -> dict[str, Any]:
    from pathlib import Path

    return json.loads((Path(__file__).parent.parent / "events" / "chat_render.json").read_text())


BAD_EVENTS = [
    ("base64", lambda e: e.update(isBase64Encoded=True, body="!!!notbase64")),
    ("headers null", lambda e: e.update(headers=None)),
    ("no requestContext", lambda e: e.pop("requestContext")),
    ("http null", lambda e: e["requestContext"].update(http=None)),
    ("body int", lambda e: e.update(body=5)),
    ("header int", lambda e: e.update(headers={"a": 1})),
    ("query null", lambda e: e.update(rawQueryString=None)),
    ("unknown version", lambda e: e.update(version="3.0")),
]


@pytest.mark.parametrize(("name", "mutate"), BAD_EVENTS, ids=[b[0] for b in BAD_EVENTS])
def test_malformed_lambda_event_is_a_400(name, mutate, lambda_context) -> None:
    import_or_skip("tito.adapters.routes_render")
    from tito.handlers._lambda import make_handler

    handler = make_handler(["chat_render"], load_models=False)
    event = copy.deepcopy(_event())
    mutate(event)
    response = handler(event, lambda_context)
    assert response["statusCode"] == 400
    assert json.loads(response["body"])["error"]["message"].startswith("Malformed Lambda event")


# -- 11. settings ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value"), [
    ("TITO_STATE_TTL_SECONDS", "abc"), ("TITO_STATE_TTL_SECONDS", "-5"),
    ("TITO_MAX_BODY_BYTES", "6MB"), ("TITO_TEMPLATE_MAX_SECONDS", "nan"),
    ("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "maybe"), ("TITO_MODELS_S3_URI", "bucket/x"),
    ("TITO_API_BASE_PATH", "dev"),
])
def test_bad_setting_refuses_to_start(name, value) -> None:
    with pytest.raises(SettingsError, match=name):
        check_environment({name: value})


def test_good_settings_start() -> None:
    check_environment({"TITO_STATE_TTL_SECONDS": "60", "TITO_TRUST_REQUEST_CHAT_TEMPLATE": "1",
                       "TITO_TEMPLATE_MAX_SECONDS": "2.5", "TITO_API_BASE_PATH": "/dev",
                       "TITO_UNKNOWN_THING": "x", "TITO_MODELS_DIR": ""})


def test_app_refuses_a_bad_setting(monkeypatch) -> None:
    monkeypatch.setenv("TITO_STATE_TTL_SECONDS", "soon")
    with pytest.raises(SettingsError, match="TITO_STATE_TTL_SECONDS='soon' must be a positive"):
        create_app()


# -- 2. hostile trusted templates --------------------------------------------------------------

HOSTILE_TEMPLATES = {
    "tower of powers": "{{ (((2**256)**256)**256)**256 }}",
    "repeated squaring": "{% set ns = namespace(x=3) %}{% for i in range(100) %}"
                         "{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x }}",
    "lipsum": "{{ lipsum(n=7999999) }}",
    "sum of lists": "{{ ([[1] * 9000] * 1000) | sum(start=[]) | length }}",
    "accumulation": "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}"
                    "{% set ns.l = ns.l + ['a' * 7999990 ~ i] %}{% endfor %}{{ ns.l | length }}",
    "batch": "{{ ('a' * 7999999) | batch(1) | list | length }}",
    "sort": "{{ (['a'] * 7999999) | sort | length }}",
    "split": "{{ ('a ' * 3999999).split() | length }}",
    "title": "{{ ('a b ' * 2000000) | title | length }}",
    "wordwrap": "{{ ('a ' * 3999999) | wordwrap(1) | length }}",
    "nested if": "{% if 1 %}" * 5000 + "x" + "{% endif %}" * 5000,
    "nested brackets": "{{ " + "(" * 20000 + "1" + ")" * 20000 + " }}",
    "operator chain": "{{ " + "+".join(["1"] * 20000) + " }}",
    "not chain": "{{ " + "not " * 5000 + "1 }}",
    "nested loops": "{% for a in [1] %}" * 30 + "x" + "{% endfor %}" * 30,
    "huge source": "{# " + "x" * 3_500_000 + " #}",
}


@pytest.mark.parametrize("source", HOSTILE_TEMPLATES.values(), ids=HOSTILE_TEMPLATES.keys())
def test_hostile_template_is_a_400_quickly(monkeypatch, source) -> None:
    import time

    monkeypatch.setenv("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "1")
    client = TestClient(create_app(), raise_server_exceptions=False)
    start = time.process_time()
    body = {"model": "qwen3", "chat_template": source,
            "messages": [{"role": "user", "content": "x"}]}
    error = _error(post_raw(client, CHAT_RENDER, body))
    assert error["param"] in ("chat_template", "messages")
    assert time.process_time() - start < 5


# -- 3. a prompt certainly too long fails before it is tokenized whole ---------------------------


@pytest.mark.parametrize(("path", "body"), [
    (CHAT_RENDER, {"model": "qwen3", "messages": [{"role": "user", "content": "hello world " * 500_000}]}),
    (COMPL_RENDER, {"model": "gpt2", "prompt": "中文测试" * 200_000}),
])
def test_prompt_far_too_long_fails_fast(client, path, body) -> None:
    import time

    start = time.process_time()
    error = _error(post_raw(client, path, body))
    assert "more than" in error["message"] and "max_model_len" in error["message"]
    assert time.process_time() - start < 3  # whole tokenization takes over 10 s


def test_lower_bound_is_below_the_real_count(vocabs) -> None:
    from tito.core.render import prompt_tokens_lower_bound

    text = ("Sphinx of black quartz, judge my vow. 中文测试 👩‍👩‍👧 <|im_start|>x\n" * 3000)
    exact = len(vocabs["qwen3"].tokenizer.encode(text, add_special_tokens=False).ids)
    bound = prompt_tokens_lower_bound(vocabs["qwen3"], text, 10**9)
    assert exact - 20 * (len(text) // 16000 + 1) <= bound <= exact


# -- 8. states bound to their stream -----------------------------------------------------------


@pytest.mark.parametrize("secret", [None, "k" * 32])
def test_state_of_another_stream_is_refused(monkeypatch, secret) -> None:
    if secret:
        monkeypatch.setenv("TITO_STATE_SECRET", secret)
    client = TestClient(create_app(), raise_server_exceptions=False)
    first = post_raw(client, CHAT_DERENDER, {"stream": True, "model": "qwen3",
                                          "generate_chunk": stream_chunk([9707], request_id="A")})
    state = first.json()["stream_state"]
    other = {"stream": True, "model": "qwen3", "stream_state": state,
             "generate_chunk": stream_chunk([11], request_id="B")}
    assert _error(post_raw(client, CHAT_DERENDER, other))["param"] == "generate_chunk.request_id"
    same = dict(other, generate_chunk=stream_chunk([11], request_id="A"))
    assert post_raw(client, CHAT_DERENDER, same).json()["chunk"]["id"] == "A"


@pytest.mark.parametrize("name", ["gpt2", "qwen3", "mistral-v3"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_truncating_a_long_prompt_tokenizes_only_what_it_keeps(vocabs, name, side) -> None:
    """The kept ids and offsets equal those of the whole text's tokenization (the reference)."""
    from tito.core.render import tokenize_prompt

    text = "Sphinx of black quartz, judge my vow.\n 中文 👩‍👩‍👧  tabs\t\there " * 4000
    full = vocabs[name].tokenizer.encode(text, add_special_tokens=True)
    window = slice(-700, None) if side == "left" else slice(0, 700)
    got = tokenize_prompt(vocabs[name], text, add_special_tokens=True, truncate_to=700,
                          truncation_side=side, with_offsets=True)
    assert got.token_ids == full.ids[window]
    assert got.token_offsets == [tuple(o) for o in full.offsets[window]]


# -- body encodings: what json.loads reads (vLLM's FastAPI), UTF-8 for every later rule ---------

ENCODINGS = ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]
_RENDER_BODY = {"model": "qwen3", "messages": [{"role": "user", "content": "hi é 😀"}]}
_DERENDER_BODY = {"stream": True, "model": "qwen3", "generate_chunk": {
    "request_id": "r", "choices": [{"index": 0, "token_ids": [9707, 3958], "finish_reason": None}]}}


def _encoded(body: dict[str, Any], encoding: str, lone: bool = False) -> bytes:
    text = json.dumps(body, ensure_ascii=False)
    if lone:
        text = text.replace("hi", "hi \\ud800", 1)
    return text.encode(encoding)


def _lambda_call(name: str, path: str, raw: bytes, lambda_context: Any) -> tuple[int, Any]:
    """The function's handler, the body as API Gateway sends one that is not UTF-8 text."""
    import base64

    from lambda_support import handler_or_skip

    event = _event()
    event.update(rawPath=path, body=base64.b64encode(raw).decode(), isBase64Encoded=True)
    event["requestContext"]["http"]["path"] = path
    event["headers"] = {"content-type": "application/json", "content-length": str(len(raw))}
    response = handler_or_skip(name)(event, lambda_context)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_json_body_in_another_encoding_reads_as_utf8(client, encoding, lambda_context) -> None:
    """A BOM, UTF-16 or UTF-32 body renders and derenders as its UTF-8 twin (vLLM's FastAPI
    reads all of them with json.loads; found by an HTTP probe of vLLM 0.33: tito refused the
    BOM and big-endian forms with 400)."""
    for path, body, handler in ((CHAT_RENDER, _RENDER_BODY, "chat_render"),
                                (CHAT_DERENDER, _DERENDER_BODY, "chat_derender")):
        want = post_raw(client, path, body).json()
        resp = client.post(path, content=_encoded(body, encoding),
                           headers={"content-type": "application/json"})
        assert resp.status_code == 200, resp.text
        got = resp.json()
        status, via_lambda = _lambda_call(handler, path, _encoded(body, encoding), lambda_context)
        assert status == 200, via_lambda
        if path == CHAT_RENDER:
            assert got["token_ids"] == want["token_ids"] == via_lambda["token_ids"]
        else:
            text = want["chunk"]["choices"][0]["delta"]
            assert got["chunk"]["choices"][0]["delta"] == text
            assert via_lambda["chunk"]["choices"][0]["delta"] == text


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-le", "utf-16", "utf-8-sig"])
def test_a_lone_surrogate_in_another_encoding_is_a_400(client, encoding, lambda_context) -> None:
    """Found by the same probe: a UTF-16 body's lone surrogate escape slipped past the search
    (its bytes are not UTF-8's) and failed in the tokenizer as a 500."""
    raw = _encoded(_RENDER_BODY, encoding, lone=True)
    resp = client.post(CHAT_RENDER, content=raw, headers={"content-type": "application/json"})
    error = _error(resp)
    assert error["param"] == "messages.0.content" and "surrogate" in error["message"]
    status, answer = _lambda_call("chat_render", CHAT_RENDER, raw, lambda_context)
    assert status == 400 and answer["error"]["param"] == "messages.0.content"


def test_a_body_its_encoding_cannot_decode_is_a_400(client) -> None:
    for raw in (b"\xef\xbb\xbf{\"model\": \"q\xff\"}", b"\xff\xfe{\x00\x00\xd8"):
        resp = client.post(CHAT_RENDER, content=raw, headers={"content-type": "application/json"})
        assert resp.status_code == 400, resp.text


def test_a_batch_generate_response_without_request_id_gets_vllms_default(client) -> None:
    """vLLM's generate response defaults its ``request_id`` (``vllm.utils.random_uuid``: 16
    hex digits, the first 8-b); the answer's id is it. A stream chunk still needs its own:
    its state is bound to its stream's id (vLLM would draw a new one per chunk)."""
    import re

    choice = {"index": 0, "token_ids": [9707], "finish_reason": "stop"}
    ids = set()
    for path, body in ((CHAT_DERENDER, {"model": "qwen3", "generate_response": {
                            "choices": [choice]}}),
                       (COMPL_DERENDER, {"model": "qwen3", "generate_responses": [
                            {"choices": [choice]}]})):
        resp = post_raw(client, path, body)
        assert resp.status_code == 200, resp.text
        ids.add(resp.json()["id"])
    assert len(ids) == 2 and all(re.fullmatch("[89ab][0-9a-f]{15}", i) for i in ids), ids
    render = post_raw(client, CHAT_RENDER, {"model": "qwen3", "messages": [
        {"role": "user", "content": "x"}]}).json()
    assert re.fullmatch("chatcmpl-[89ab][0-9a-f]{15}", render["request_id"])
    chunk = {"stream": True, "model": "qwen3", "generate_chunk": {"choices": [
        {"index": 0, "token_ids": [9707], "finish_reason": None}]}}
    assert _error(post_raw(client, CHAT_DERENDER, chunk))["param"] == "body.generate_chunk.request_id"
