"""Stop strings, stop tokens, echo and n>1 through the derender endpoints (real tokenizers)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, split, stream_chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"
IM_END, ENDOFTEXT = 151645, 151643  # qwen3: primary EOS, generation-config extra EOS
#: how Qwen3 with thinking on starts its output (the conformance goldens' outputs): the answer
#: after it is content (with vLLM's rule, an output without </think> would all be reasoning)
THOUGHT = "<think>\nThe user wants weather.\n</think>\n\n"


def answer(vocab, text: str) -> list[int]:
    """The ids of a thinking Qwen3 output whose answer is ``text`` (content ``"\n\n" + text``)."""
    return vocab.encode(THOUGHT + text)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender", "completions_derender"]),
                      raise_server_exceptions=False)


def completion(client, ids, request, finish="stop", model="gpt2", prompt=None):
    body = {"model": model, "completion_request": {"model": model, "prompt": "x", **request},
            "generate_responses": [generate_response(ids, finish_reason=finish)]}
    if prompt is not None:
        body["prompt_token_ids"] = [prompt]
    return post(client, COMPLETIONS, body)["choices"][0]


def chat(client, ids, request, finish="stop", model="qwen3"):
    body = {"model": model, "chat_request": {"model": model, "messages": [{"role": "user", "content": "hi"}],
                                             **request},
            "generate_response": generate_response(ids, finish_reason=finish)}
    return post(client, CHAT, body)["choices"][0]


def test_stop_string_keeps_preceding_space(client, vocabs):
    ids = vocabs["gpt2"].encode("one two three four")
    c = completion(client, ids, {"stop": ["three"]}, finish="length")
    assert (c["text"], c["finish_reason"], c["stop_reason"]) == ("one two ", "stop", "three")


def test_include_stop_str_in_output(client, vocabs):
    ids = vocabs["gpt2"].encode("one two three four")
    c = completion(client, ids, {"stop": ["three"], "include_stop_str_in_output": True})
    assert (c["text"], c["stop_reason"]) == ("one two three", "three")


def test_finish_stop_alone_keeps_last_token(client, vocabs):
    ids = vocabs["gpt2"].encode("one two")
    c = completion(client, ids, {}, finish="stop")
    assert c["text"] == "one two" and c["stop_reason"] is None


def test_client_stop_token(client, vocabs):
    ids = vocabs["gpt2"].encode("one two")
    c = completion(client, ids, {"stop_token_ids": [ids[-1]]}, finish="stop")
    assert c["text"] == "one" and c["stop_reason"] == ids[-1]


def test_primary_eos_dropped(client, vocabs):
    ids = answer(vocabs["qwen3"], "Hello there") + [IM_END]
    c = chat(client, ids, {})
    assert c["message"]["content"] == "\n\nHello there"
    assert c["message"]["reasoning"] == "\nThe user wants weather.\n"
    assert c["finish_reason"] == "stop" and c["stop_reason"] is None


def test_generation_config_eos_dropped(client, vocabs):
    ids = answer(vocabs["qwen3"], "Hello there") + [ENDOFTEXT]
    c = chat(client, ids, {})
    assert c["message"]["content"] == "\n\nHello there" and c["stop_reason"] == ENDOFTEXT


def test_include_flag_keeps_stop_token(client, vocabs):
    """The stop token stays in the output ids; as a special token it is text only with
    ``skip_special_tokens: false``, also on the parser path (issue 10, item 2: qwen3 runs the
    reasoning parser, and vLLM keeps the request's flag when no tool parser needs the markers)."""
    ids = answer(vocabs["qwen3"], "Hello") + [IM_END]
    c = chat(client, ids, {"include_stop_str_in_output": True})
    assert c["message"]["content"] == "\n\nHello" and c["stop_reason"] is None
    c = chat(client, ids, {"include_stop_str_in_output": True, "skip_special_tokens": False})
    assert c["message"]["content"] == "\n\nHello<|im_end|>" and c["stop_reason"] is None
    # kept in the output, but a special token: skipped by the default skip_special_tokens
    c = chat(client, ids, {"include_stop_str_in_output": True})
    assert c["message"]["content"] == "\n\nHello" and c["stop_reason"] is None


def test_length_keeps_last_token(client, vocabs):
    ids = answer(vocabs["qwen3"], "Hello") + [IM_END]
    c = chat(client, ids, {}, finish="length")
    assert c["message"]["content"] == "\n\nHello" and c["finish_reason"] == "length"
    c = chat(client, ids, {"skip_special_tokens": False}, finish="length")
    assert c["message"]["content"] == "\n\nHello<|im_end|>" and c["finish_reason"] == "length"
    # vLLM 0.33 (conformance golden derender_chat/special_length_final_im_end): not stripped as
    # a stop token, but skipped as a special token with the default skip_special_tokens
    c = chat(client, ids, {}, finish="length")
    assert c["message"]["content"] == "\n\nHello" and c["finish_reason"] == "length"


def test_token_stop_before_string_scan(client, vocabs):
    """The stop token is dropped first; a stop string is then searched in what remains."""
    ids = answer(vocabs["qwen3"], "alpha beta") + [IM_END]
    c = chat(client, ids, {"stop": ["<|im_end|>"]})
    assert c["message"]["content"] == "\n\nalpha beta" and c["stop_reason"] is None
    c = chat(client, ids, {"stop": ["beta"]})
    assert c["message"]["content"] == "\n\nalpha " and c["stop_reason"] == "beta"


def test_chat_stop_string(client, vocabs):
    # thinking off (all content): a "\n" stop would cut a thinking output inside its <think>
    ids = vocabs["qwen3"].encode("First line.\nSecond line.") + [IM_END]
    c = chat(client, ids, {"stop": "\n", "chat_template_kwargs": {"enable_thinking": False}})
    assert c["message"]["content"] == "First line." and c["stop_reason"] == "\n"


def test_min_tokens(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("a b a b a b")
    c = completion(client, ids, {"stop": ["b"], "min_tokens": 3}, finish="length")
    # tokens: "a"," b"," a"," b",...: the first "b" ends inside token 2 (<= min_tokens)
    assert c["text"] == "a b a " and c["stop_reason"] == "b"


def _stream(client, model, chunks, first_extra, path=COMPLETIONS, finish="length"):
    state, outs, states = None, [], []
    for k, ids in enumerate(chunks):
        body = {"stream": True, "model": model, "stream_state": state,
                "generate_chunk": stream_chunk(ids, finish_reason=finish if k == len(chunks) - 1 else None)}
        if state is None:
            body.update(first_extra)
        res = post(client, path, body)
        outs.append(res["chunk"])
        state = json.loads(json.dumps(res["stream_state"]))
        states.append(state)
    return outs, states


def test_stream_stop_split_across_chunks_and_suppression(client, vocabs):
    vocab = vocabs["gpt2"]
    chunks = [vocab.encode("one two th"), vocab.encode("ree four"), vocab.encode(" five")]
    req = {"completion_request": {"model": "gpt2", "prompt": "x", "stop": ["three"]}}
    outs, states = _stream(client, "gpt2", chunks, req)
    texts = [o["choices"][0]["text"] for o in outs]
    assert texts == ["one two ", "", ""]
    assert states[0]["held_text"] == "th" and not states[0]["stop_fired"]
    assert outs[1]["choices"][0]["finish_reason"] == "stop"
    assert outs[1]["choices"][0]["stop_reason"] == "three"
    assert states[1]["stop_fired"] is True  # the caller may abort the engine request now
    assert outs[2]["choices"][0]["finish_reason"] is None  # finished once, nothing after


def test_stream_hold_back_released(client, vocabs):
    vocab = vocabs["gpt2"]
    chunks = [vocab.encode("one th"), vocab.encode("is"), vocab.encode(" end")]
    req = {"completion_request": {"model": "gpt2", "prompt": "x", "stop": ["three"]}}
    outs, states = _stream(client, "gpt2", chunks, req)
    assert [o["choices"][0]["text"] for o in outs] == ["one ", "this", " end"]
    assert outs[-1]["choices"][0]["finish_reason"] == "length"


@given(data=st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_property_stream_equals_batch_equals_cut(client, vocabs, data):
    vocab = vocabs["gpt2"]
    text = data.draw(st.text(alphabet=st.sampled_from(list("ab c\n😀é中")), min_size=1, max_size=40))
    ids = vocab.encode(text)
    assert vocab.decode(ids) == text
    n_stops = data.draw(st.integers(1, 3))
    stops = []
    for _ in range(n_stops):
        i = data.draw(st.integers(0, len(text) - 1))
        j = data.draw(st.integers(i + 1, min(len(text), i + 6)))
        stops.append(text[i:j])
    if data.draw(st.booleans()):
        stops.append("zzz")  # never present
    include = data.draw(st.booleans())
    sent = list(stops)
    for _ in range(data.draw(st.integers(0, 2))):  # empty stop strings change nothing (vLLM's
        sent.insert(data.draw(st.integers(0, len(sent))), "")  # derender ignores them)
    request = {"stop": sent, "include_stop_str_in_output": include}
    # expected: cut at the earliest-ending occurrence (ties by list order)
    best = None
    for s in stops:
        k = text.find(s)
        if k != -1 and (best is None or k + len(s) < best[1] + len(best[0])):
            best = (s, k)
    expected = text if best is None else text[: best[1] + (len(best[0]) if include else 0)]
    batch = completion(client, ids, request, finish="length")
    assert batch["text"] == expected
    assert batch["stop_reason"] == (best[0] if best else None)
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=len(ids)))
    chunks = split(ids, sizes)
    outs, states = _stream(client, "gpt2", chunks, {"completion_request": {"model": "gpt2", "prompt": "x", **request}})
    assert "".join(o["choices"][0]["text"] for o in outs) == expected
    longest = max(len(s) for s in stops)
    assert all(len(s_["held_text"]) <= longest - 1 for s_ in states)
    reasons = [o["choices"][0]["stop_reason"] for o in outs if o["choices"][0]["finish_reason"]]
    assert reasons == [best[0] if best else None]


def test_stop_limits_are_400(client, vocabs):
    ids = vocabs["gpt2"].encode("x")
    for request in ({"stop": ["s"] * 17}, {"stop": ["x" * 257]}):
        body = {"model": "gpt2", "completion_request": {"model": "gpt2", "prompt": "x", **request},
                "generate_responses": [generate_response(ids)]}
        resp = client.post(COMPLETIONS, content=json.dumps(body), headers={"content-type": "application/json"})
        assert resp.status_code == 400, resp.text
        assert resp.json()["error"]["param"] == "stop"


def test_echo_prepends_prompt(client, vocabs):
    vocab = vocabs["gpt2"]
    prompt = vocab.encode("Say:")
    ids = vocab.encode(" hello")
    c = completion(client, ids, {"echo": True, "prompt": "Say:"}, prompt=prompt, finish="length")
    assert c["text"] == "Say: hello"
    outs, _ = _stream(client, "gpt2", [ids[:1], ids[1:]],
                      {"prompt_token_ids": prompt, "completion_request": {"model": "gpt2", "prompt": "Say:", "echo": True}})
    assert "".join(o["choices"][0]["text"] for o in outs) == "Say: hello"


def test_echo_with_prompt_logprobs(client, vocabs):
    vocab = vocabs["gpt2"]
    prompt = vocab.encode("Say it")
    ids = vocab.encode(" now")
    resp = generate_response(ids, finish_reason="length", logprobs={"content": [
        {"token_id": i, "logprob": -0.5, "top_logprobs": [{"token_id": i, "logprob": -0.5}]} for i in ids]})
    resp["prompt_logprobs"] = [None] + [{str(t): {"logprob": -1.0, "rank": 1, "decoded_token": None}}
                                        for t in prompt[1:]]
    body = {"model": "gpt2", "prompt_token_ids": [prompt],
            "completion_request": {"model": "gpt2", "prompt": "Say it", "echo": True, "logprobs": 1},
            "generate_responses": [resp]}
    c = post(client, COMPLETIONS, body)["choices"][0]
    lp = c["logprobs"]
    assert lp["tokens"] == ["Say", " it", " now"]
    assert lp["token_logprobs"] == [None, -1.0, -0.5]
    assert lp["text_offset"] == [0, 3, 6]
    assert c["text"] == "Say it now"


def test_echo_prompt_logprobs_follow_the_requests_logprobs(client, vocabs):
    """The echoed prompt's candidates are cut as the output's: the engine's first
    ``logprobs + 1`` per position (vLLM's completions, ``completion_top_logprobs_limit``);
    all of them with ``logprobs: -1``; none without ``logprobs``."""
    vocab = vocabs["gpt2"]
    prompt = vocab.encode("Say it")
    ids = vocab.encode(" now")
    others = vocab.encode(" a b c d")
    resp = generate_response(ids, finish_reason="length", logprobs={"content": [
        {"token_id": i, "logprob": -0.5, "top_logprobs": [{"token_id": i, "logprob": -0.5}]}
        for i in ids]})
    resp["prompt_logprobs"] = [None] + [
        {str(t): {"logprob": -1.0, "rank": 2, "decoded_token": None},
         **{str(o): {"logprob": -1.0 - k, "rank": k + 1, "decoded_token": None}
            for k, o in enumerate(others)}} for t in prompt[1:]]
    cut = {}
    for logprobs in (1, -1, 0):
        body = {"model": "gpt2", "prompt_token_ids": [prompt],
                "completion_request": {"model": "gpt2", "prompt": "Say it", "echo": True,
                                       "logprobs": logprobs},
                "generate_responses": [resp]}
        cut[logprobs] = post(client, COMPLETIONS, body)["choices"][0]["logprobs"]["top_logprobs"]
    assert cut[1][0] is None and cut[-1][0] is None  # (the first position: never scored)
    assert cut[1][1] == {" it": -1.0, " a": -1.0}
    assert len(cut[-1][1]) == 5 and cut[-1][1][" d"] == -4.0
    assert cut[0][1] == {" it": -1.0}  # (logprobs 0: the first candidate alone)
    # without logprobs in the request: no logprobs at all, the prompt's included (vLLM's
    # completions write them only for a request's logprobs; fuzz_derender seed 401)
    resp.pop("logprobs", None)
    for choice in resp["choices"]:
        choice.pop("logprobs", None)
    body = {"model": "gpt2", "prompt_token_ids": [prompt],
            "completion_request": {"model": "gpt2", "prompt": "Say it", "echo": True},
            "generate_responses": [resp]}
    c = post(client, COMPLETIONS, body)["choices"][0]
    assert c["logprobs"] is None and c["text"] == "Say it now"


def test_suffix_is_not_derenders_business(client, vocabs):
    """vLLM 0.33's derender never reads ``suffix`` (render writes a FIM prompt for it on
    DeepSeek-V4, or refuses it): the answer is the output's, as without one."""
    ids = vocabs["gpt2"].encode(" the middle")
    answers = []
    for extra in ({}, {"suffix": " end"}):
        body = {"model": "gpt2", "completion_request": {"model": "gpt2", "prompt": "x", **extra},
                "generate_responses": [generate_response(ids)]}
        answers.append(post(client, COMPLETIONS, body)["choices"][0])
    assert answers[0]["text"] == answers[1]["text"] == " the middle"


def test_n2_batch_same_seed(client, vocabs):
    vocab = vocabs["mistral-v3"]
    prompt = vocab.encode("[INST] hi [/INST]", add_special_tokens=True)
    a, b = vocab.encode("Hello"), vocab.encode("World")
    resp = {"request_id": "r", "choices": [
        {"index": 0, "token_ids": a, "finish_reason": "length"},
        {"index": 1, "token_ids": b, "finish_reason": "length"}]}
    out = post(client, CHAT, {"model": "mistral-v3", "prompt_token_ids": prompt, "generate_response": resp})
    contents = [c["message"]["content"] for c in out["choices"]]
    # both seeded from the same prompt: each keeps the leading space DecodeStream gives
    assert contents == [" Hello", " World"]


@pytest.mark.parametrize(("finish", "reason"), [
    ("repetition", "repetition_detected"), ("length", 262), ("abort", "x"), (None, 11)])
def test_engine_stop_reason_passed_on_any_finish(client, vocabs, finish, reason):
    """The engine's ``stop_reason`` on a finish other than ``stop`` is passed on as it came,
    batch and stream, chat and completions: vLLM 0.33's engine finishes ``repetition`` with
    ``stop_reason`` "repetition_detected" (``check_stop``), and its derender's
    ``_drop_stop_token`` / ``_decode_output`` leave a non-stop finish's reason untouched (tito
    read it on ``stop`` alone and answered null). Only the ids are never cut then."""
    ids = vocabs["gpt2"].encode(" one two three")
    resp = generate_response(ids, finish_reason=finish)
    resp["choices"][0]["stop_reason"] = reason
    body = {"model": "gpt2", "completion_request": {"model": "gpt2", "prompt": "x"},
            "generate_responses": [resp]}
    c = post(client, COMPLETIONS, body)["choices"][0]
    assert (c["text"], c["finish_reason"], c["stop_reason"]) == (" one two three", finish, reason)
    if finish is None:
        return  # (a stream always finishes)
    chunk = stream_chunk(ids, finish_reason=finish)
    chunk["choices"][0]["stop_reason"] = reason
    s = post(client, COMPLETIONS, {"stream": True, "model": "gpt2", "generate_chunk": chunk,
                                   "completion_request": {"model": "gpt2", "prompt": "x"}})
    assert s["chunk"]["choices"][0]["stop_reason"] == reason
    qids = answer(vocabs["qwen3"], "Hi")
    qresp = generate_response(qids, finish_reason=finish)
    qresp["choices"][0]["stop_reason"] = reason
    body = {"model": "qwen3", "chat_request": {"model": "qwen3", "messages": [
        {"role": "user", "content": "hi"}]}, "generate_response": qresp}
    c = post(client, CHAT, body)["choices"][0]
    assert (c["message"]["content"], c["finish_reason"], c["stop_reason"]) == (
        "\n\nHi", finish, reason)


def test_echo_is_the_prompt_string_as_sent(client, vocabs):
    """A prompt sent as text is echoed as that text, as vLLM 0.33's completions echo it
    (``final_res.prompt``), not its ids decoded: a special token in it stays with
    ``skip_special_tokens`` (and no BOS a tokenizer adds shows without it: mistral-v3-hf,
    fuzz_derender mistral-v3-hf-cmpl:512:3, echoed "<s> x"); a list of strings, one per
    response; ids (or no text) are decoded as before."""
    gpt2 = vocabs["gpt2"]
    prompt = "Hi<|endoftext|> there"
    ids = gpt2.encode(prompt)
    assert 50256 in ids
    out = gpt2.encode(" one")
    c = completion(client, out, {"prompt": prompt, "echo": True}, finish="length", prompt=ids)
    assert c["text"] == prompt + " one"
    body = {"model": "gpt2", "completion_request": {"model": "gpt2", "prompt": [prompt, "x"],
                                                     "echo": True},
            "prompt_token_ids": [ids, gpt2.encode("x")],
            "generate_responses": [generate_response(out, finish_reason="length")] * 2}
    texts = [c["text"] for c in post(client, COMPLETIONS, body)["choices"]]
    assert texts == [prompt + " one", "x one"]
    body["completion_request"]["prompt"] = [ids, gpt2.encode("x")]
    texts = [c["text"] for c in post(client, COMPLETIONS, body)["choices"]]
    assert texts == ["Hi there one", "x one"]  # (ids: decoded, the special token skipped)
    s = post(client, COMPLETIONS, {
        "stream": True, "model": "gpt2", "prompt_token_ids": ids,
        "completion_request": {"model": "gpt2", "prompt": prompt, "echo": True},
        "generate_chunk": stream_chunk(out, finish_reason="length")})
    assert s["chunk"]["choices"][0]["text"] == prompt + " one"


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("model, stop_id", [("qwen3", ENDOFTEXT), ("gpt2", 13)])
def test_a_finish_only_chunk_reports_the_stop_token_of_the_chunk_before(client, vocabs, model,
                                                                       stop_id, include):
    """The stop token ends a chunk, a finish-only chunk follows: the stream reports it as the
    batch does, include_stop_str_in_output too (the stream lost it there: stop_reason null;
    fuzz seed 533 case 12, gpt-oss's <|call|>); with include it is text in both."""
    ids = vocabs[model].encode("Hello there") + [stop_id]
    request: dict = {"include_stop_str_in_output": include}
    if model == "gpt2":
        request["stop_token_ids"] = [stop_id]
        settings = {"completion_request": {"model": model, "prompt": "x", **request}}
        path = COMPLETIONS
        want = completion(client, ids, request)
    else:
        settings = {"chat_request": {"model": model, "messages": [{"role": "user", "content": "x"}],
                                     "chat_template_kwargs": {"enable_thinking": False},
                                     **request}}
        path = CHAT
        want = chat(client, ids, {"chat_template_kwargs": {"enable_thinking": False}, **request})
    state, text, finishes = None, "", []
    for chunk_ids, finish in ((ids[:2], None), (ids[2:], None), ([], "stop")):
        body = {"model": model, "stream": True, "stream_state": state,
                "generate_chunk": stream_chunk(chunk_ids, finish_reason=finish)}
        if state is None:
            body.update(settings)
        got = post(client, path, body)
        state = got["stream_state"]
        for c in got["chunk"]["choices"]:
            text += c.get("text") or (c.get("delta") or {}).get("content") or ""
            if c.get("finish_reason"):
                finishes.append((c["finish_reason"], c["stop_reason"]))
    assert finishes == [(want["finish_reason"], want["stop_reason"])] == [("stop", stop_id)]
    assert text == (want.get("text") or want["message"]["content"])
    assert text.endswith(vocabs[model].decode([stop_id], skip_special_tokens=False)) == (
        include and model == "gpt2")


@pytest.mark.parametrize("held", [False, True])
@pytest.mark.parametrize("eos", [50256, None])
def test_a_reported_stop_string_makes_the_last_eos_output(client, vocabs, held, eos):
    """An engine reports a stop string while its last id is an EOS (a step of several ids: its
    strings are checked on the text without the id it stopped on). vLLM 0.33 reads no stop
    token then: the EOS is output ("" when special tokens are skipped, text when not) and the
    stop_reason is the string, batch and stream (tito dropped it and reported null; goldens
    ``derender_stop_reason_eos``). ``eos`` None: the request's own stop id in its place."""
    stop_id = 13
    last = stop_id if eos is None else eos
    ids = vocabs["gpt2"].encode("Hello there") + [last]
    request = {"skip_special_tokens": False, **({"stop_token_ids": [stop_id]} if eos is None
                                                 else {})}
    resp = generate_response(ids)
    resp["choices"][0]["stop_reason"] = "zzz"
    body = {"model": "gpt2", "completion_request": {"model": "gpt2", "prompt": "x", **request},
            "generate_responses": [resp]}
    want = "Hello there" + vocabs["gpt2"].decode([last], skip_special_tokens=False)
    c = post(client, COMPLETIONS, body)["choices"][0]
    assert (c["text"], c["finish_reason"], c["stop_reason"]) == (want, "stop", "zzz")
    state, text, finishes = None, "", []
    parts = ((ids, None), ([], "stop")) if held else ((ids[:2], None), (ids[2:], "stop"))
    for chunk_ids, finish in parts:
        chunk = stream_chunk(chunk_ids, finish_reason=finish)
        if finish:
            chunk["choices"][0]["stop_reason"] = "zzz"
        body = {"model": "gpt2", "stream": True, "stream_state": state, "generate_chunk": chunk}
        if state is None:
            body["completion_request"] = {"model": "gpt2", "prompt": "x", **request}
        got = post(client, COMPLETIONS, body)
        state = got["stream_state"]
        for ch in got["chunk"]["choices"]:
            text += ch.get("text") or ""
            if ch.get("finish_reason"):
                finishes.append((ch["finish_reason"], ch["stop_reason"]))
    assert (text, finishes) == (want, [("stop", "zzz")])
