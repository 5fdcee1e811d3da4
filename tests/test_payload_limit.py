"""The functions' 413s count a body as Lambda does: JSON-escaped inside the event (request) or
the proxy answer (response), at the boundary, on the real Qwen3 tokenizer.

The reference for the escaped size is the standard library: ``json.dumps`` of the body as a
string with ``ensure_ascii=False`` (what Lambda's Python 3.12+ runtime writes), less its quotes.
A body under the limit by its own size but over it once escaped is refused; one exactly at the
limit is served.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from tito.adapters import batch_split
from tito.adapters.asgi import DerenderApp
from tito.adapters.payload import MAX_EVENT_BODY_BYTES, event_bytes, over_limit

CHAT = "/v1/chat/completions/derender"
HEADERS = {"content-type": "application/json"}


def escaped(body: bytes) -> int:
    return len(json.dumps(body.decode("utf-8"), ensure_ascii=False).encode("utf-8")) - 2


@pytest.mark.parametrize("text", ['{"a": "b\\\\c"}', '{"a":\n\t"x"}\r\n', '{"é": "中文 😀"}',
                                  '{"q": "\\"quoted\\""}'])
def test_event_bytes_is_the_escaped_size(text: str) -> None:
    body = text.encode("utf-8")
    assert event_bytes(body) == escaped(body)
    assert over_limit(body, escaped(body)) is False and over_limit(body, escaped(body) - 1)


def _body(vocabs: Any, *, quotes: int = 0, top: int = 0) -> bytes:
    vocab = vocabs["qwen3"]
    ids = vocab.encode('He said "hi" and left. 中文 😀')
    lp = None
    if top:
        lp = {"content": [{"token_id": i, "logprob": -0.5, "top_logprobs": [
            {"token_id": (i + 7 * k) % vocab.size, "logprob": -1.0 - k} for k in range(top)]}
            for i in ids]}
    message = 'say "' + '\\"' * quotes + '"'  # the chat request is not echoed in the answer
    body = {"model": "qwen3", "chat_request": {"messages": [{"role": "user", "content": message}],
                                              "logprobs": bool(top), "top_logprobs": top or None},
            "generate_response": {"request_id": "limit", "choices": [
                {"index": 0, "token_ids": ids, "finish_reason": "length", "logprobs": lp}]}}
    return json.dumps(body).encode()


def _post(raw: bytes) -> Any:
    return TestClient(DerenderApp(["chat_derender"])).post(CHAT, content=raw, headers=HEADERS)


def test_a_request_over_the_limit_once_escaped_is_413(vocabs: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _body(vocabs, quotes=2000)
    size = escaped(raw)
    assert size > len(raw) + 4000
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(size))
    assert _post(raw).status_code == 200
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(size - 1))
    resp = _post(raw)  # the raw body (len(raw)) is ~4 kB under that limit
    assert resp.status_code == 413
    err = resp.json()["error"]
    assert err["type"] == "Request Entity Too Large" and err["message"].startswith(
        f"Request body too large: at most {size - 1} bytes")


def test_an_answer_over_the_limit_once_escaped_is_413(vocabs: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _body(vocabs, top=5)
    served = _post(raw)
    assert served.status_code == 200
    size = escaped(served.content)
    assert escaped(raw) < size - 1 and len(served.content) < size - 1
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(size))
    assert _post(raw).status_code == 200
    monkeypatch.setenv("TITO_MAX_BODY_BYTES", str(size - 1))
    resp = _post(raw)
    assert resp.status_code == 413
    message = resp.json()["error"]["message"]
    assert message.startswith(f"Response too large: {size} bytes") and f"{size - 1}-byte" in message


def test_the_client_and_the_functions_share_one_default_limit() -> None:
    """What the client sends whole by default is what the functions accept by default: Lambda's
    6 MiB less room for the rest of the event."""
    from tito.adapters.asgi import DEFAULT_MAX_BODY_BYTES

    assert batch_split.DEFAULT_MAX_PAYLOAD_BYTES == DEFAULT_MAX_BODY_BYTES == MAX_EVENT_BODY_BYTES
    assert MAX_EVENT_BODY_BYTES < 6 * 1024 * 1024
