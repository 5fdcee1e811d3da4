"""Stateless streaming derender (issue: O(1) state, O(new tokens) per call, byte-identical to batch)."""

from __future__ import annotations

import dataclasses
import json

import openai.types.chat as oac
import pytest
from fastapi.testclient import TestClient
from helpers import SAMPLE_TEXTS, generate_response, post, split, stream_chunk, validate_completion_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"
MODELS = ["qwen3", "mistral-v3", "gpt2"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender", "completions_derender"]), raise_server_exceptions=False)


def stream(client, path, model, chunks, *, prompt_ids=None, extra=None, finish="length",
           prompt_tokens=None, per_call=1):
    """Run a whole stream (one HTTP call per engine chunk, or ``per_call`` chunks per call)."""
    engine = [stream_chunk(c, finish_reason=finish if k == len(chunks) - 1 else None)
              for k, c in enumerate(chunks)]
    state = None
    outs = []
    for k in range(0, len(engine), per_call):
        group = engine[k:k + per_call]
        body = {"stream": True, "model": model, "stream_state": state,
                **({"prompt_token_ids": prompt_ids, "prompt_tokens": prompt_tokens}
                   if state is None else {}), **(extra or {})}
        if per_call == 1:
            body["generate_chunk"] = group[0]
        else:
            body["generate_chunks"] = group
        res = post(client, path, body)
        outs.extend(res["chunks"] if per_call > 1 else [res["chunk"]])
        state = json.loads(json.dumps(res["stream_state"]))
    return outs, state


def chat_text(chunks):
    return "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c["choices"])


def chat_reasoning(chunks):
    return "".join((c["choices"][0]["delta"].get("reasoning") or "") for c in chunks if c["choices"])


def finish_of(chunks):
    reasons = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    non_null = [r for r in reasons if r is not None]
    assert len(non_null) <= 1
    return non_null[0] if non_null else None


@given(data=st.data())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_chunking_equals_batch(client, vocabs, data):
    model = data.draw(st.sampled_from(MODELS))
    text = data.draw(st.sampled_from(SAMPLE_TEXTS))
    vocab = vocabs[model]
    prompt = vocab.encode("Prompt: ")
    # qwen3 thinks first, as the model does (its output before </think> is reasoning): both
    # sides of the parser are streamed, the markers split by the chunking too
    ids = vocab.encode(("<think>\nA thought 😀.\n</think>\n\n" if model == "qwen3" else "") + text)
    sizes = data.draw(st.lists(st.integers(0, 5), max_size=len(ids)))
    chunks = split(ids, sizes)
    per_call = data.draw(st.sampled_from([1, 1, 3]))
    path = data.draw(st.sampled_from([CHAT, COMPLETIONS]))
    batch_req = {"model": model}
    if path == CHAT:
        batch_req.update(prompt_token_ids=prompt, generate_response=generate_response(ids, finish_reason="length"))
        batch = post(client, CHAT, batch_req)
        expected = batch["choices"][0]["message"]["content"]
        expected_reasoning = batch["choices"][0]["message"]["reasoning"] or ""
        if model == "qwen3":
            assert expected_reasoning == "\nA thought 😀.\n" and expected.startswith("\n\n")
            assert expected.strip()  # the answer is content
    else:
        batch_req.update(prompt_token_ids=[prompt],
                         generate_responses=[generate_response(ids, finish_reason="length")])
        batch = post(client, COMPLETIONS, batch_req)
        expected = batch["choices"][0]["text"]
    outs, _ = stream(client, path, model, chunks, prompt_ids=prompt, per_call=per_call)
    if path == CHAT:
        streamed = chat_text(outs)
        assert chat_reasoning(outs) == expected_reasoning
        for c in outs:
            oac.ChatCompletionChunk.model_validate(c)
    else:
        streamed = "".join(c["choices"][0]["text"] for c in outs)
        for c in outs:
            validate_completion_chunk(c)
    assert streamed == expected
    assert "\ufffd" not in streamed or "\ufffd" in expected
    assert finish_of(outs) == "length"
    assert len({c["id"] for c in outs}) == 1 and len({c["created"] for c in outs}) == 1


def test_one_token_per_chunk_split_characters(client, vocabs):
    """Byte-fallback / multi-byte characters split over chunks: empty deltas, then the character."""
    vocab = vocabs["mistral-v3"]
    text = "㐀 emoji 👩‍👩‍👧 end"
    ids = vocab.encode(text)
    outs, state = stream(client, COMPLETIONS, "mistral-v3", [[i] for i in ids], finish="stop")
    texts = [c["choices"][0]["text"] for c in outs]
    assert "".join(texts) == vocab.tokenizer.decode(ids)
    assert "" in texts  # some chunks only held bytes back
    assert all("\ufffd" not in t for t in texts)


def test_role_once_usage_and_finish(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello there friend")
    chunks = [
        stream_chunk(ids[:1], usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}),
        stream_chunk(ids[1:], finish_reason="stop",
                     usage={"prompt_tokens": 3, "completion_tokens": len(ids), "total_tokens": 3 + len(ids)}),
        stream_chunk(None, usage={"prompt_tokens": 3, "completion_tokens": len(ids), "total_tokens": 3 + len(ids)}),
    ]
    state, outs = None, []
    for k, ch in enumerate(chunks):
        body = {"stream": True, "model": "gpt2", "generate_chunk": ch, "stream_state": state}
        if k == 0:
            body["prompt_tokens"] = 7
        res = post(client, CHAT, body)
        outs.append(res["chunk"])
        state = res["stream_state"]
    assert outs[0]["choices"][0]["delta"]["role"] == "assistant"
    assert outs[1]["choices"][0]["delta"]["role"] is None
    assert outs[1]["choices"][0]["finish_reason"] == "stop"
    assert outs[2]["choices"] == []
    # continuous usage passes through per chunk; prompt_tokens override from the first call
    assert outs[0]["usage"]["completion_tokens"] == 1
    assert outs[2]["usage"]["prompt_tokens"] == 7
    assert outs[2]["usage"]["total_tokens"] == 7 + len(ids)
    for c in outs:
        oac.ChatCompletionChunk.model_validate(c)


def test_later_calls_need_only_chunk_and_state(client, vocabs):
    """Flags captured on the first call ride in the state (skip_special_tokens=False kept)."""
    vocab = vocabs["gpt2"]
    ids = vocab.encode("a") + [50256] + vocab.encode(" b")
    first = {"stream": True, "model": "gpt2", "stream_state": None, "generate_chunk": stream_chunk(ids[:1]),
             "completion_request": {"model": "gpt2", "prompt": "x", "skip_special_tokens": False}}
    r1 = post(client, COMPLETIONS, first)
    r2 = post(client, COMPLETIONS, {"stream": True, "model": "gpt2", "stream_state": r1["stream_state"],
                                    "generate_chunk": stream_chunk(ids[1:], finish_reason="length")})
    assert r1["chunk"]["choices"][0]["text"] + r2["chunk"]["choices"][0]["text"] == "a<|endoftext|> b"


def test_state_size_bounded_over_100k_tokens(vocabs):
    """After 100,000 tokens the carried state is still under 1 KiB (no history is carried)."""
    from tito.models import get_registry
    from tito.protocol import DerenderChatStreamRequest, DerenderCompletionStreamRequest
    from tito.service.derender import derender_chat_stream, derender_completion_stream

    for model_name, cls, fn in [
        ("gpt2", DerenderCompletionStreamRequest, derender_completion_stream),
        ("qwen3", DerenderChatStreamRequest, derender_chat_stream),
    ]:
        base = get_registry().get(model_name)
        # a long-context copy of the model: the bound under test is the state, not max_model_len
        model = dataclasses.replace(
            base, config=base.config.model_copy(update={"max_model_len": 200_000}))
        unit = model.vocab.encode(" The quick brown fox 😀 jumps 中文 over")
        per_chunk = (unit * (200 // len(unit) + 1))[:200]
        state = None
        sizes = []
        for k in range(500):
            last = k == 499
            req = cls.model_validate({
                "stream": True, "model": model_name, "stream_state": state,
                "generate_chunk": stream_chunk(per_chunk, finish_reason="length" if last else None)})
            res = fn(model, req)
            state = res["stream_state"]
            sizes.append(len(json.dumps(state, ensure_ascii=False).encode()))
        # Every state after the first is under 1 KiB. The first response of a parser stream
        # also carries its own chunk's ids in vLLM's replay fields (for vLLM-shaped clients),
        # so it is bounded by that chunk, not by the generation.
        assert max(sizes[1:]) < 1024, (model_name, max(sizes[1:]))
        assert sizes[-1] < 1024


def test_generate_chunks_batching_equals_single(client, vocabs):
    vocab = vocabs["qwen3"]
    ids = vocab.encode("Batching several engine chunks per call 👍")
    chunks = [[i] for i in ids]
    a, _ = stream(client, CHAT, "qwen3", chunks, per_call=1)
    b, _ = stream(client, CHAT, "qwen3", chunks, per_call=4)
    assert chat_text(a) == chat_text(b)
    assert [c["choices"][0]["delta"] for c in a] == [c["choices"][0]["delta"] for c in b]


def test_vllm_shaped_client(client, vocabs):
    """A client that keeps only vLLM's state fields and re-sends the request every call."""
    from tito.protocol import DerenderStreamState

    vocab = vocabs["gpt2"]
    prompt = vocab.encode("Tell me:")
    ids = vocab.encode(" héllo wörld 😀 and more")
    full = {"model": "gpt2", "prompt": "Tell me:"}
    reference, _ = stream(client, COMPLETIONS, "gpt2", [[i] for i in ids], prompt_ids=prompt)
    state, outs = None, []
    for k, i in enumerate(ids):
        body = {"stream": True, "model": "gpt2", "prompt_token_ids": prompt, "completion_request": full,
                "stream_state": state,
                "generate_chunk": stream_chunk([i], finish_reason="length" if k == len(ids) - 1 else None)}
        res = post(client, COMPLETIONS, body)
        outs.append(res["chunk"])
        vllm_fields = set(DerenderStreamState.model_fields) - {"tito"}
        state = {k2: v for k2, v in res["stream_state"].items() if k2 in vllm_fields}
    assert [c["choices"][0]["text"] for c in outs] == [c["choices"][0]["text"] for c in reference]


# -- bad state: each a 400 in the error shape ----------------------------------------------------


def _first_state(client, model="gpt2"):
    res = post(client, COMPLETIONS, {"stream": True, "model": model, "stream_state": None,
                                     "generate_chunk": stream_chunk([15496])})
    return res["stream_state"]


def _post_state(client, state, model="gpt2", chunk=None):
    body = {"stream": True, "model": model, "stream_state": state,
            "generate_chunk": chunk or stream_chunk([11])}
    return client.post(COMPLETIONS, content=json.dumps(body), headers={"content-type": "application/json"})


def _bad(resp):
    assert resp.status_code == 400, resp.text
    err = resp.json()["error"]
    assert err["code"] == 400 and err["message"]
    return err


def test_negative_offsets(client):
    st_ = _first_state(client)
    st_["read_offset"] = -1
    _bad(_post_state(client, st_))


def test_window_too_long(client):
    st_ = _first_state(client)
    st_["prev_tokens"] = ["a"] * 1025
    _bad(_post_state(client, st_))
    st_["prev_tokens"] = ["a"] * 1024
    st_["prefix_offset"], st_["read_offset"] = 0, 1024
    assert _post_state(client, st_).status_code == 200


def test_offsets_past_window(client):
    st_ = _first_state(client)
    st_["read_offset"] = len(st_["prev_tokens"]) + 5
    _bad(_post_state(client, st_))


def test_wrong_version(client):
    st_ = _first_state(client)
    st_["tito"]["v"] = 99
    err = _bad(_post_state(client, st_))
    assert "version" in err["message"]


def test_other_models_state(client):
    st_ = _first_state(client, "gpt2")
    err = _bad(_post_state(client, st_, model="qwen3", chunk=stream_chunk([9707])))
    assert "model" in err["message"]


def test_signed_state(client, monkeypatch):
    monkeypatch.setenv("TITO_STATE_SECRET", "s3cret")
    st_ = _first_state(client)
    assert st_["tito"]["sig"]
    assert _post_state(client, st_).status_code == 200
    tampered = json.loads(json.dumps(st_))
    tampered["read_offset"] = 0
    tampered["prefix_offset"] = 0
    err = _bad(_post_state(client, tampered))
    assert "signature" in err["message"]
    unsigned = json.loads(json.dumps(st_))
    del unsigned["tito"]["sig"]
    _bad(_post_state(client, unsigned))
    monkeypatch.setenv("TITO_STATE_SECRET", "another-key")
    _bad(_post_state(client, st_))  # a state signed by another server


def test_two_choices_in_one_chunk(client):
    """vLLM 0.33's words: the chat route's pre-check counts the choices, the completions
    check (in its derenderer) does not (found by a derender probe)."""
    chunk = stream_chunk([1])
    chunk["choices"].append({**chunk["choices"][0], "index": 1})
    err = _bad(_post_state(client, None, chunk=chunk))
    assert err["message"] == "derender_completion_stream expects at most one choice per chunk"
    body = {"stream": True, "model": "qwen3", "generate_chunk": chunk, "prompt_token_ids": [1],
            "chat_request": {"model": "qwen3", "messages": [{"role": "user", "content": "hi"}]}}
    err = _bad(client.post(CHAT, content=json.dumps(body),
                           headers={"content-type": "application/json"}))
    assert err["message"] == "derender_chat_stream expects at most one choice per chunk (got 2)."


def test_malformed_tito_object(client):
    st_ = _first_state(client)
    st_["tito"]["cfg"] = {"bogus": 1}
    _bad(_post_state(client, st_))
    st_ = _first_state(client)
    st_["tito"] = "not an object"
    _bad(_post_state(client, st_))


def test_n2_one_state_per_index(client, vocabs):
    """Interleaved choices: each index carries its own state; mixing them up is a 400."""
    vocab = vocabs["gpt2"]
    a, b = vocab.encode("alpha beta"), vocab.encode("gamma delta")
    states = {0: None, 1: None}
    texts = {0: "", 1: ""}
    events = [(0, a[:1]), (1, b[:1]), (0, a[1:]), (1, b[1:])]
    for k, (idx, ids) in enumerate(events):
        res = post(client, COMPLETIONS, {"stream": True, "model": "gpt2", "stream_state": states[idx],
                                         "generate_chunk": stream_chunk(ids, index=idx, finish_reason="length" if k >= 2 else None)})
        texts[idx] += res["chunk"]["choices"][0]["text"]
        assert res["chunk"]["choices"][0]["index"] == idx
        states[idx] = res["stream_state"]
    assert texts == {0: "alpha beta", 1: "gamma delta"}
    mixed = _post_state(client, _first_state(client), chunk=stream_chunk([11], index=1))
    assert "choice" in _bad(mixed)["message"]


def test_expired_state(client, monkeypatch):
    st_ = _first_state(client)
    monkeypatch.setenv("TITO_STATE_TTL_SECONDS", "3600")
    assert _post_state(client, st_).status_code == 200
    st_["tito"]["created"] -= 7200
    assert "expired" in _bad(_post_state(client, st_))["message"]


#: vLLM 0.33's own DerenderStreamState fields (a client written for vLLM keeps only these)
_VLLM_FIELDS = ("prev_tokens", "prefix_offset", "read_offset", "role_sent",
                "logprob_context_token_ids", "logprob_text_offset", "output_token_ids",
                "output_chunk_lens", "tools_streamed", "last_tool_call_ids")


@pytest.mark.parametrize("finish_only", [True, False])
@pytest.mark.parametrize("vllm_client", [True, False])
def test_held_stop_token_survives_a_vllm_fields_client(client, vocabs, finish_only, vllm_client):
    """A stop-token id ending a chunk is held until the next chunk says whether it ended the
    output; a client keeping only vLLM's fields must not lose it (found by fuzz_derender)."""
    vocab = vocabs["gpt2"]
    nl = vocab.encode("\n")[0]
    ids = vocab.encode(" a") + [nl] + vocab.encode(" b") + [nl]
    req = {"model": "gpt2", "prompt": "x", "stop_token_ids": [nl]}
    batch = post(client, COMPLETIONS, {"model": "gpt2", "completion_request": req,
                                       "generate_responses": [generate_response(
                                           ids, finish_reason="stop")]})
    want = (batch["choices"][0]["text"], batch["choices"][0]["stop_reason"])
    assert want == (" a\n b", nl)
    chunks = [ids[:2], ids[2:]] if not finish_only else [ids[:2], ids[2:], []]
    state, text, stop_reason = None, "", None
    for k, part in enumerate(chunks):
        body = {"stream": True, "model": "gpt2", "stream_state": state, "completion_request": req,
                "generate_chunk": stream_chunk(part, finish_reason="stop"
                                               if k == len(chunks) - 1 else None)}
        res = post(client, COMPLETIONS, body)
        text += res["chunk"]["choices"][0]["text"]
        stop_reason = res["chunk"]["choices"][0]["stop_reason"] or stop_reason
        state = res["stream_state"]
        if vllm_client:
            state = {f: state[f] for f in _VLLM_FIELDS}
    assert (text, stop_reason) == want


def _batch_reasoning_tokens(client, req, ids, stop_reason, usage):
    """Batch derender's usage ``reasoning_tokens`` for ``ids`` ended by ``stop_reason``."""
    batch_choice = generate_response(ids, finish_reason="stop")
    batch_choice["choices"][0]["stop_reason"] = stop_reason
    batch_choice["usage"] = usage
    batch = post(client, CHAT, {"model": "qwen3", "prompt_token_ids": [1, 2, 3],
                                "chat_request": {k: v for k, v in req.items()
                                                 if k != "stream_options"},
                                "generate_response": batch_choice})
    return batch["usage"]["completion_tokens_details"]["reasoning_tokens"]


def _stream_usage_details(client, req, engine, vllm_client):
    """The stream's last ``completion_tokens_details``; ``vllm_client``: the state is cut to
    vLLM's fields between calls."""
    state, got = None, None
    for chunk in engine:
        res = post(client, CHAT, {"stream": True, "model": "qwen3", "stream_state": state,
                                  "chat_request": req, "prompt_token_ids": [1, 2, 3],
                                  "generate_chunk": chunk})
        got = (res["chunk"]["usage"] or {}).get("completion_tokens_details") or got
        state = res["stream_state"]
        if vllm_client:
            state = {f: state[f] for f in _VLLM_FIELDS}
    return got


@pytest.mark.parametrize("vllm_client", [True, False])
def test_unlisted_stop_id_is_no_reasoning_token_for_a_vllm_fields_client(client, vocabs,
                                                                          vllm_client):
    """An id the engine reports as its stop (a request that did not list it) is dropped, and a
    client keeping only vLLM's fields gets the same usage as the README's client and as batch:
    the replayed history must not read the dropped id (found by fuzz_derender, gpt-oss:34:53)."""
    vocab = vocabs["qwen3"]
    nl = vocab.encode("\n")[0]
    ids = [vocab.token_id("<think>")] + vocab.encode("think hard") + [nl]  # no </think>
    req = {"model": "qwen3", "messages": [{"role": "user", "content": "x"}], "stream": True,
           "stream_options": {"include_usage": True}}
    usage = {"prompt_tokens": 3, "completion_tokens": len(ids), "total_tokens": 3 + len(ids)}
    want = _batch_reasoning_tokens(client, req, ids, nl, usage)
    assert want in (len(ids) - 1, len(ids) - 2)  # the stop id is not counted
    engine = [stream_chunk([i], finish_reason="stop" if k == len(ids) - 1 else None)
              for k, i in enumerate(ids)] + [stream_chunk(None, usage=usage)]
    engine[-2]["choices"][0]["stop_reason"] = nl
    assert _stream_usage_details(client, req, engine, vllm_client) == {"reasoning_tokens": want}


@pytest.mark.parametrize("finish_only", [True, False])
@pytest.mark.parametrize("vllm_client", [True, False])
def test_listed_id_before_the_stop_id_counts_for_a_vllm_fields_client(client, vocabs,
                                                                      finish_only, vllm_client):
    """Reasoning that ends with a listed stop id as ordinary output ("." with stop_token_ids
    [".", " "]), then the stop id " ": usage's reasoning_tokens as in batch for both clients.
    The replay on the usage-only last chunk held the history's last "." back as a stop-id
    candidate (fuzz_derender qwen3:41:273), and a stop id followed by an empty finishing chunk
    was left in the replayed history (qwen3:38:67's shape)."""
    vocab = vocabs["qwen3"]
    dot, space = vocab.encode(".")[0], vocab.encode(" ")[0]
    ids = [vocab.token_id("<think>")] + vocab.encode("The weather") + [dot, space]
    req = {"model": "qwen3", "messages": [{"role": "user", "content": "x"}], "stream": True,
           "stream_options": {"include_usage": True}, "stop_token_ids": [dot, space]}
    usage = {"prompt_tokens": 3, "completion_tokens": len(ids), "total_tokens": 3 + len(ids)}
    want = _batch_reasoning_tokens(client, req, ids, space, usage)
    assert want == len(ids) - 2  # <think> and the stop id are not counted, "." is
    if finish_only:
        engine = [stream_chunk(ids), stream_chunk([], finish_reason="stop")]
    else:
        engine = [stream_chunk(ids[:-2]), stream_chunk(ids[-2:], finish_reason="stop")]
    engine[-1]["choices"][0]["stop_reason"] = space
    engine.append(stream_chunk(None, usage=usage))
    assert _stream_usage_details(client, req, engine, vllm_client) == {"reasoning_tokens": want}
