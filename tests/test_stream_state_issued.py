"""States this process issued, sent back, are taken as issued: the same answers, the same refusals.

``tito.service.stream_state_kept`` keeps the last states the codec encoded (``_remember``, by
their JSON bytes), so a stream's next chunk served by the same process skips decoding and
checking its state (``issued``). The reference is the decoder itself: every state kept decodes
to exactly the objects kept; whole streams in random chunkings (chat with reasoning and tools,
stop strings, logprobs, completions with echo, Responses, signed states) answer byte for byte
the same with and without the kept states; and a kept state changed in any way, sent under
another secret, expired, or sent to another model or endpoint is refused with the error it
always had.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from test_stream_state_fast import GPT2_OUT, QWEN_OUT, STREAMS

from tito.adapters.splice import dump_json
from tito.adapters.validation import parse_fast
from tito.errors import BadRequest
from tito.models import get_registry
from tito.protocol import (
    DerenderChatBody,
    DerenderCompletionBody,
    DerenderResponsesBody,
)
from tito.service import (
    derender,
    derender_stream,
    responses_derender,
    stream_state,
    stream_state_kept,
)

SECRET = "s" * 40
#: (kind, model, first call's settings, output): the codec's streams plus a Responses one
CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("completion" if model == "gpt2" else "chat", model, settings_, text)
    for model, settings_, text in STREAMS
] + [("responses", "qwen3", {}, QWEN_OUT), ("responses", "qwen3", {"top_logprobs": 2}, QWEN_OUT),
      ("completion", "gpt2", {"logprobs": 1}, GPT2_OUT)]


def _call(kind: str, body: dict[str, Any]) -> Any:
    """One call through the fast entry, the body as the app parses it."""
    data = parse_fast(json.dumps(body).encode())
    if kind == "responses":
        result = responses_derender.handle_stream_body(data)
    else:
        result = derender.handle_stream_body(data, completion=kind == "completion")
    if result is not None:
        return result[0]
    # a first call (its request's settings): the validated path, as the app takes it
    model, run = {"chat": (DerenderChatBody, derender.handle_chat),
                  "completion": (DerenderCompletionBody, derender.handle_completions),
                  "responses": (DerenderResponsesBody, responses_derender.handle_responses),
                  }[kind]
    return run(TypeAdapter(model).validate_python(data))


def _run(kind: str, model: str, settings_: dict[str, Any], text: str,
         cuts: list[int] | None = None, check: bool = False) -> list[str]:
    """The stream's answers (as JSON) in chunks ending at ``cuts``; ``check``: after each call,
    every kept state decodes to what was kept."""
    served = get_registry().get(model)
    ids = served.vocab.encode(text)
    bounds = sorted({c for c in (cuts or range(1, len(ids))) if 0 < c < len(ids)}) + [len(ids)]
    answers, state, start = [], None, 0
    logprobs = settings_.get("logprobs") or settings_.get("top_logprobs")
    for n, end in enumerate(bounds):
        chunk = ids[start:end]
        choice: dict[str, Any] = {"index": 0, "token_ids": chunk,
                                  "finish_reason": "stop" if end == len(ids) else None}
        if logprobs:
            choice["logprobs"] = {"content": [
                {"token_id": t, "logprob": -0.5, "top_logprobs": [{"token_id": t,
                                                                   "logprob": -0.5}]}
                for t in chunk]}
        body: dict[str, Any] = {"stream": True, "model": model, "stream_state": state,
                                "generate_chunk": {"request_id": f"generate-tokens-{model}",
                                                   "choices": [choice]}}
        if n == 0:
            if kind == "responses":
                body["responses_request"] = {"model": model, "input": "hi", **settings_}
            elif kind == "completion":
                body["completion_request"] = {"prompt": "Hi", **settings_}
            else:
                body["chat_request"] = {"messages": [{"role": "user", "content": "hi"}],
                                        **settings_}
            body["prompt_token_ids"] = served.vocab.encode("Hi")
        try:
            answer = _call(kind, body)
        except BadRequest as exc:  # (n > 1 chunked past a fired stop, etc.: the same either way)
            answers.append(json.dumps(["error", exc.message, exc.param]))
            break
        answers.append(dump_json(answer).decode())
        state = json.loads(answers[-1])["stream_state"]
        if check:
            _check_kept(model)
        start = end
        if state["stop_fired"]:
            break
    return answers


def _check_kept(model: str) -> None:
    vocab = get_registry().get(model).vocab
    for raw, (kept_vocab, _, meta, cfg, state, signed) in list(
            stream_state_kept._ISSUED.items()):
        if kept_vocab is not vocab:
            continue
        if signed is not None:  # a signed state's: kept by its sig, with its JSON without it
            wire = orjson.loads(signed)
            wire["tito"]["sig"] = raw
        else:
            wire = orjson.loads(raw)
        decoded = stream_state.decode(vocab, wire, model=meta.model)
        assert decoded is not None
        assert decoded == (meta, cfg, state), raw


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_state_kept, "_ISSUED", {})
    clock = SimpleNamespace(time=lambda: 1796160000.0)  # one ``created`` for every stream
    monkeypatch.setattr(derender_stream, "time", clock)
    monkeypatch.setattr(responses_derender, "time", clock)
    monkeypatch.delenv("TITO_STATE_SECRET", raising=False)
    monkeypatch.delenv("TITO_STATE_TTL_SECONDS", raising=False)


@pytest.mark.parametrize("secret", [None, SECRET])
def test_every_kept_state_decodes_to_what_was_kept(secret: str | None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if secret:
        monkeypatch.setenv("TITO_STATE_SECRET", secret)
    for case in CASES:
        _run(*case, check=True)
    assert len(stream_state_kept._ISSUED) > 20  # states were kept (and found: see below)


@pytest.mark.parametrize("secret", [None, SECRET])
def test_kept_states_are_found_by_the_next_call(secret: str | None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    if secret:  # (a signed state is kept by its signature, with its canonical JSON)
        monkeypatch.setenv("TITO_STATE_SECRET", secret)
    found = []
    real = stream_state.decode

    def spy(*args: Any, **kwargs: Any) -> Any:
        found.append(kwargs.get("issued") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(stream_state, "decode", spy)
    _run("chat", "qwen3", {}, QWEN_OUT)
    _run("completion", "gpt2", {}, GPT2_OUT)
    assert found and sum(found) >= len(found) - 2  # all but the first calls' (none) states


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(1, 60), max_size=12),
       signed=st.booleans())
def test_streams_answer_the_same_without_kept_states(case: Any, cuts: list[int],
                                                     signed: bool) -> None:
    with pytest.MonkeyPatch.context() as m:
        if signed:
            m.setenv("TITO_STATE_SECRET", SECRET)
        kept = _run(*case, cuts=cuts)
        m.setattr(stream_state, "_remember", lambda *args: None)
        m.setattr(stream_state_kept, "_ISSUED", {})
        assert _run(*case, cuts=cuts) == kept


def _issued_body(model: str = "qwen3") -> tuple[dict[str, Any], list[int]]:
    """A third call's body whose state was just issued (and kept: the first answer of a parser
    stream carries its ids in vLLM's replay fields, and such a state is not kept)."""
    served = get_registry().get(model)
    ids = served.vocab.encode(QWEN_OUT)
    body: dict[str, Any] = {"stream": True, "model": model, "chat_request": {
        "messages": [{"role": "user", "content": "hi"}]}}
    for start in (0, 3, 5):
        body["generate_chunk"] = {"request_id": "generate-tokens-x", "choices": [
            {"index": 0, "token_ids": ids[start:start + 2 + (start == 0)],
             "finish_reason": None}]}
        if start == 5:
            break
        state = json.loads(dump_json(_call("chat", body)))["stream_state"]
        body = {"stream": True, "model": model, "stream_state": state}
    assert stream_state_kept.issued(parse_fast(json.dumps(state).encode())) is not None
    return body, ids


def _outcome(kind: str, body: dict[str, Any]) -> Any:
    try:
        return ("ok", dump_json(_call(kind, body)))
    except BadRequest as exc:
        return ("error", exc.message, exc.param)


def _without_kept(kind: str, body: dict[str, Any]) -> Any:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(stream_state_kept, "_ISSUED", {})
        return _outcome(kind, body)


@pytest.mark.parametrize("change", [
    lambda b: b["stream_state"]["tito"].__setitem__("model", "gpt2"),
    lambda b: b["stream_state"]["tito"]["st"]["reasoning"].__setitem__("end_id", 5),
    lambda b: b["stream_state"]["tito"]["cfg"].__setitem__("reasoning_parser", None),
    lambda b: b["stream_state"].__setitem__("role_sent", False),
    lambda b: b["stream_state"]["prev_tokens"].append("Ġhello"),
    lambda b: b["generate_chunk"].__setitem__("request_id", "generate-tokens-other"),
    lambda b: b.__setitem__("stream_state", dict(reversed(list(b["stream_state"].items())))),
])
@pytest.mark.parametrize("secret", [None, SECRET])
def test_a_changed_kept_state_is_decoded_as_any_other(
        change: Any, secret: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if secret:  # (signed: a changed value is a signature mismatch, kept state or not)
        monkeypatch.setenv("TITO_STATE_SECRET", secret)
    body, _ = _issued_body()
    change(body)
    assert _outcome("chat", body) == _without_kept("chat", body)


def test_a_kept_state_elsewhere_or_later_is_refused_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    body, _ = _issued_body()
    # sent to the completions endpoint: a chat state
    outcome = _outcome("completion", body)
    assert outcome[0] == "error" and outcome == _without_kept("completion", body)
    # a secret configured since it was issued (unsigned): refused, not taken as kept
    monkeypatch.setenv("TITO_STATE_SECRET", SECRET)
    outcome = _outcome("chat", body)
    assert outcome[0] == "error" and "signature" in outcome[1]
    assert outcome == _without_kept("chat", body)
    # issued signed, then the secret rotated: a signature mismatch
    body, _ = _issued_body()
    monkeypatch.setenv("TITO_STATE_SECRET", "t" * 40)
    outcome = _outcome("chat", body)
    assert outcome[0] == "error" and "signature" in outcome[1]
    # expired
    monkeypatch.delenv("TITO_STATE_SECRET")
    body, _ = _issued_body()
    monkeypatch.setenv("TITO_STATE_TTL_SECONDS", "1")
    monkeypatch.setattr(stream_state.time, "time", lambda: 10.0**10)
    outcome = _outcome("chat", body)
    assert outcome[0] == "error" and "expired" in outcome[1]


@pytest.mark.parametrize("secret", [SECRET, "k" * 100, "ключ" * 10])
def test_signatures_are_hmac_sha256_of_the_canonical_json(
        secret: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented signature (stream_state's header): HMAC-SHA256 with the secret over the
    state without ``sig`` as ``json.dumps(sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)`` in UTF-8, hex; the standard library's, computed here, for every state
    of a stream (and two secrets in turn). Signatures over the escaped form (``ensure_ascii``,
    what tito signed before) verify too, and a changed state is refused under either form."""
    import hashlib
    import hmac

    monkeypatch.setenv("TITO_STATE_SECRET", secret)
    answers = _run("chat", "qwen3", {"tools": [{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object"}}}]}, QWEN_OUT)
    monkeypatch.setenv("TITO_STATE_SECRET", secret + "2")
    answers += _run("responses", "qwen3", {}, QWEN_OUT)[:5]
    for k, answer in enumerate(answers):
        state = json.loads(answer)["stream_state"]
        sig = state["tito"].pop("sig")
        canonical = json.dumps(state, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False).encode()
        key = (secret if k < len(answers) - 5 else secret + "2").encode()
        assert sig == hmac.new(key, canonical, hashlib.sha256).hexdigest()
    assert any(not answer.isascii() for answer in answers)  # (the two forms differ)
    # the escaped form's signature, as tito made it before: the same state verifies, a
    # changed one does not (each decoded as a state this process did not issue)
    vocab = get_registry().get("qwen3").vocab
    for answer in answers[-5:]:
        state = json.loads(answer)["stream_state"]
        state["tito"].pop("sig")
        escaped = json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
        state["tito"]["sig"] = hmac.new((secret + "2").encode(), escaped,
                                        hashlib.sha256).hexdigest()
        assert stream_state.decode(vocab, state, model="qwen3") is not None
        state["tito"]["created"] += 1
        with pytest.raises(BadRequest, match="signature mismatch"):
            stream_state.decode(vocab, state, model="qwen3")
