"""Hypothesis over Lambda events and over stream states (unsigned and signed).

Properties: a mutated Lambda event is answered (never raises, never a 5xx); a mutated unsigned
stream state is a 200 or a 4xx, never a 5xx; a mutated signed state is always a 400 (the
signature covers every field). ``fuzz/fuzz_api.py`` runs these with many more examples.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lambda_support import import_or_skip

from tito.adapters.app import create_app

EVENTS = Path(__file__).parent.parent / "events"
DERENDER = "/v1/chat/completions/derender"

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (the root included)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def mutate(obj: Any, path: tuple, value: Any, delete: bool) -> Any:
    """``obj`` with the value at ``path`` replaced (or deleted)."""
    obj = copy.deepcopy(obj)
    if not path:
        return value
    target = obj
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return obj


def mutation(obj: Any, *, root: bool = True) -> st.SearchStrategy[Any]:
    """A strategy of ``obj`` with one value replaced by junk or removed (``root=False``: never
    the whole of ``obj``)."""
    all_paths = paths(obj) if root else paths(obj)[1:]
    return st.tuples(st.sampled_from(all_paths), JUNK, st.booleans()).map(
        lambda t: mutate(obj, t[0], t[1], t[2] and bool(t[0]))
    )


# -- Lambda events -----------------------------------------------------------------------------

_EVENT = json.loads((EVENTS / "chat_derender.json").read_text())


@pytest.fixture(scope="module")
def handler() -> Any:
    import_or_skip("tito.adapters.routes_derender")
    from tito.handlers._lambda import make_handler

    return make_handler(["chat_derender"], load_models=False)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(event=mutation(_EVENT))
def test_mutated_lambda_event_is_answered(handler, lambda_context, event) -> None:
    response = handler(event, lambda_context)
    assert 200 <= response["statusCode"] < 500, response


@pytest.mark.parametrize("key", ["method", "path", "sourceIp"])
@pytest.mark.parametrize("junk", [["/v1/chat/completions/derender"], None, 7])
def test_requestcontext_http_fields_of_the_wrong_type_are_a_400(handler, lambda_context, key,
                                                                 junk) -> None:
    """Mangum's scope takes requestContext.http's method, path and sourceIp as they are: a list
    there was a TypeError in the app's route lookup (a 500, found by the mutation test above)."""
    event = json.loads(json.dumps(_EVENT))
    event["requestContext"]["http"][key] = junk
    response = handler(event, lambda_context)
    assert response["statusCode"] == 400, response
    assert f"requestContext.http.{key} must be a string" in json.loads(response["body"])["error"]["message"]


# -- stream states -----------------------------------------------------------------------------

FIRST = {"stream": True, "model": "qwen3", "prompt_token_ids": [151644, 77091, 198],
         "chat_request": {"messages": [{"role": "user", "content": "x"}], "stop": ["zz"],
                          "tools": [{"type": "function", "function": {"name": "f"}}]},
         "generate_chunk": stream_chunk([151667, 198, 785, 151668, 271, 151657, 198, 4913])}
NEXT_CHUNK = stream_chunk([606, 788, 330, 69, 1, 151658, 151645], finish_reason="stop")


def _mid_stream_state(client: TestClient) -> dict[str, Any]:
    resp = client.post(DERENDER, json=FIRST)
    assert resp.status_code == 200, resp.text
    return resp.json()["stream_state"]


def _continue(client: TestClient, state: Any) -> Any:
    return client.post(DERENDER, json={"stream": True, "model": "qwen3", "stream_state": state,
                                       "generate_chunk": NEXT_CHUNK})


@pytest.fixture(scope="module")
def unsigned() -> tuple[TestClient, dict[str, Any]]:
    client = TestClient(create_app(), raise_server_exceptions=False)
    return client, _mid_stream_state(client)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_unsigned_state_is_never_a_500(unsigned, data) -> None:
    client, state = unsigned
    tampered = data.draw(mutation(state, root=False))
    resp = _continue(client, tampered)
    assert resp.status_code < 500, resp.text


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_signed_state_is_always_refused(monkeypatch_module, data) -> None:
    client, state, honest = monkeypatch_module
    tampered = data.draw(mutation(state, root=False).filter(lambda s: s != state))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TITO_STATE_SECRET", SECRET)
        resp = _continue(client, tampered)
    # a change the wire model normalises away (1.0 for 1, a default removed) is no change
    assert resp.status_code == 400 or resp.json() == honest, resp.text


SECRET = "fuzz-secret-" + "k" * 20


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    """A signed mid-stream state. The secret is set only while this module's calls run: under
    xdist, other modules' tests run in between on the same worker, with unsigned states."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TITO_STATE_SECRET", SECRET)
        client = TestClient(create_app(), raise_server_exceptions=False)
        state = _mid_stream_state(client)
        honest = _continue(client, state).json()
    return client, state, honest
