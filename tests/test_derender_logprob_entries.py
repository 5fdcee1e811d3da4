"""An engine's logprob list longer or shorter than its token ids (real tokenizers).

vLLM 0.33's derender reports every entry the engine sent, in batch and in each streamed chunk,
chat and completions (completions' ``text_offset`` running on past the text); goldens
``derender_logprob_entries`` / ``stream_logprob_entries``. tito cut the list to the ids. Its
stream stays the batch of the same chunks (the batch's entries are the chunks' entries, joined),
also when a stop string cuts the output: one entry dropped from the end per id cut away.
Responses pair each entry with its token, so entries past the ids belong to no item.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import generate_response, post, split, stream_chunk
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/derender"
COMPLETIONS = "/v1/completions/derender"
RESPONSES = "/v1/responses/derender"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["chat_derender", "completions_derender",
                                            "responses_derender"]))


def entry(token_id: int, logprob: float = -0.5) -> dict[str, Any]:
    return {"token_id": token_id, "logprob": logprob, "rank": 1,
            "top_logprobs": [{"token_id": token_id, "logprob": logprob, "rank": 1}]}


def settings(model: str, completion: bool, **extra: Any) -> dict[str, Any]:
    if completion:
        return {"completion_request": {"model": model, "prompt": "x", "logprobs": 1, **extra}}
    return {"chat_request": {"model": model, "messages": [{"role": "user", "content": "x"}],
                             "logprobs": True, "top_logprobs": 1,
                             "chat_template_kwargs": {"enable_thinking": False}, **extra}}


def batch(client: TestClient, model: str, ids: list[int], entries: list[dict[str, Any]],
          completion: bool, **extra: Any) -> dict[str, Any]:
    response = generate_response(ids, logprobs={"content": entries})
    body = {"model": model, "prompt_token_ids": [1, 2], **settings(model, completion, **extra)}
    if completion:
        body.update(prompt_token_ids=[[1, 2]], generate_responses=[response])
        return post(client, COMPLETIONS, body)["choices"][0]
    body["generate_response"] = response
    return post(client, CHAT, body)["choices"][0]


def stream(client: TestClient, model: str, chunks: list[tuple[list[int], list[dict[str, Any]]]],
           completion: bool, **extra: Any) -> list[dict[str, Any]]:
    """Each chunk's choice (the last one finishing with ``stop``)."""
    state, out = None, []
    for k, (ids, entries) in enumerate(chunks):
        body: dict[str, Any] = {"model": model, "stream": True, "stream_state": state,
                                "generate_chunk": stream_chunk(
                                    ids, logprobs={"content": entries},
                                    finish_reason="stop" if k == len(chunks) - 1 else None)}
        if state is None:
            body.update(prompt_token_ids=[1, 2], **settings(model, completion, **extra))
        answer = post(client, COMPLETIONS if completion else CHAT, body)
        state = answer["stream_state"]
        out += answer["chunk"]["choices"]
        if state.get("stop_fired"):
            break
    return out


def tokens(choice: dict[str, Any], completion: bool) -> list[str]:
    lp = choice["logprobs"]
    return lp["tokens"] if completion else [e["token"] for e in lp["content"]]


def test_every_entry_is_reported_as_vllm_does(client, vocabs):
    # vLLM 0.33 (goldens derender_logprob_entries): the engine's entries, all of them
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello world again") + [50256]
    extra = vocab.encode(" XY")
    entries = [entry(i) for i in ids] + [entry(i, -9.5) for i in extra]
    c = batch(client, "gpt2", ids, entries, completion=True)
    assert c["text"] == "Hello world again"
    assert c["logprobs"]["tokens"] == ["Hello", " world", " again", "<|endoftext|>", " XY"]
    assert c["logprobs"]["text_offset"] == [0, 5, 11, 17, 30]
    mid = [entries[0], *(entry(i, -9.5) for i in extra), *entries[1:len(ids)]]
    c = batch(client, "qwen3", vocabs["qwen3"].encode("Hello world") + [151645],
              [entry(i) for i in vocabs["qwen3"].encode(" XY Hello")], completion=False)
    assert tokens(c, False) == [" XY", " Hello"]
    assert tokens(batch(client, "gpt2", ids, mid, completion=False), False) == [
        "Hello", " XY", " world", " again", "<|endoftext|>"]
    assert tokens(batch(client, "gpt2", ids, entries[:1], completion=True), True) == ["Hello"]


@pytest.mark.parametrize("completion", [False, True])
@pytest.mark.parametrize("stop", [None, ["again"]])
def test_stream_is_the_batch_of_its_chunks(client, vocabs, completion, stop):
    """Each chunk with one entry more (or fewer) than its ids: the stream's entries are the
    batch's of the joined chunks; a stop string drops the entries of the ids it cut, from the
    end (the chunks after the firing one are never read: one entry an id there)."""
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello world and again more text") + [50256]
    x = vocab.encode(" XY")[0]
    chunks = [(ids[:2], [entry(ids[0]), entry(x, -9.5), entry(ids[1])]),
              (ids[2:3], []),
              (ids[3:5], [entry(ids[3]), entry(ids[4]), entry(x, -8.5)]),
              (ids[5:], [entry(i) for i in ids[5:]])]
    extra = {"stop": stop} if stop else {}
    whole = batch(client, "gpt2", ids, [e for _, es in chunks for e in es], completion, **extra)
    streamed = stream(client, "gpt2", chunks, completion, **extra)
    if completion:
        got = {k: [v for c in streamed for v in c["logprobs"][k]] for k in whole["logprobs"]}
        # the entry-less chunk moves the stream's offset by its text (vLLM 0.33's stream:
        # goldens stream_fuzz cmpl_lp_empty_chunk_offset); the batch has no such chunk
        shift = len(vocab.decode(ids[2:3]))
        want = {**whole["logprobs"], "text_offset": [
            o + (shift if k >= 3 else 0) for k, o in enumerate(whole["logprobs"]["text_offset"])]}
        assert shift == 4 and got == want
    else:
        assert [e for c in streamed for e in c["logprobs"]["content"]] == \
            whole["logprobs"]["content"]
    assert " XY" in tokens(whole, completion)
    if stop:  # the fire at " again" in the third chunk: three ids cut, three entries dropped
        assert tokens(whole, completion) == ["Hello", " XY", " world", " again", " more"]


def test_responses_pair_entries_with_their_tokens(client, vocabs):
    vocab = vocabs["gpt2"]
    ids = vocab.encode("Hello world") + [50256]
    body = {"model": "gpt2", "prompt_token_ids": [1, 2], "responses_request": {
        "model": "gpt2", "input": "x", "include": ["message.output_text.logprobs"],
        "top_logprobs": 1}}

    def logprobs(entries: list[dict[str, Any]]) -> list[Any]:
        got = post(client, RESPONSES, {**body, "generate_response": generate_response(
            ids, logprobs={"content": entries})})
        return [part.get("logprobs") for item in got["output"] if item["type"] == "message"
                for part in item["content"]]

    paired = [entry(i) for i in ids]
    assert len(logprobs(paired)[0]) == 3
    assert logprobs(paired + [entry(ids[0], -9.5)]) == logprobs(paired)


@pytest.mark.parametrize("completion", [False, True])
@pytest.mark.parametrize("mode", ["more", "fewer"])
def test_repair_context_is_the_entries_sampled_ids(client, vocabs, completion, mode):
    """A character split over byte tokens after a chunk with an entry more or fewer than its
    ids: its U+FFFD pieces are repaired with the entries' sampled ids, in the stream as in the
    batch (vLLM's batch; its stream reads the chunks' ids: goldens stream_logprob_entries
    ``*_repair_*``)."""
    vocab = vocabs["qwen3"]
    ids = vocab.encode("a\U0001fae0b") + [151645]
    assert len(ids) == 6  # a, the emoji's three byte tokens, b, EOS
    first = [entry(ids[0]), entry(ids[1])]
    first = first + [entry(vocab.encode(" XY")[0], -9.5)] if mode == "more" else first[:1]
    chunks = [(ids[:2], first), (ids[2:], [entry(i) for i in ids[2:]])]
    whole = batch(client, "qwen3", ids, [e for _, es in chunks for e in es], completion)
    streamed = stream(client, "qwen3", chunks, completion)
    got = [t for c in streamed for t in tokens(c, completion)]
    assert got == tokens(whole, completion)
    # vLLM 0.33's batch: the emoji's later byte tokens never follow its first in the entries
    # (an extra entry between them, or the first left out), so none completes it
    assert got == (["a", "", " XY", "", "", "b", "<|im_end|>"] if mode == "more"
                   else ["a", "", "", "b", "<|im_end|>"])


@pytest.mark.parametrize("skip", [False, True])
def test_a_held_stop_candidate_moves_the_offset_in_the_chunk_it_came_in(client, vocabs, skip):
    """An EOS mid-output ending an entry-less chunk waits for the next chunk (it may be the
    stop token); vLLM 0.33's stream shows its text in that chunk, so its next ``text_offset``
    moves by it there (goldens stream_fuzz ``cmpl_lp_held_eos_offset``, fuzz seed 558
    ``gpt2:558:10``: tito's next chunk started 13 characters early)."""
    vocab = vocabs["gpt2"]
    head, tail = vocab.encode("ab\n\n ab"), vocab.encode("c today")
    chunks = [(head, [entry(head[0])]), ([50256], []),
              (tail + [50256], [entry(i) for i in tail])]
    streamed = stream(client, "gpt2", chunks, True, include_stop_str_in_output=True,
                      skip_special_tokens=skip)
    eos = 0 if skip else len("<|endoftext|>")
    assert [c["logprobs"]["text_offset"] for c in streamed] == [[0], [], [2 + eos, 3 + eos]]
    shown = "" if skip else "<|endoftext|>"
    assert "".join(c["text"] for c in streamed) == f"ab\n\n ab{shown}c today{shown}"


@pytest.mark.parametrize(("first", "want"), [([], 15), ([0], 1)])
def test_a_held_stop_token_dropped_at_the_finish_moves_no_offset(client, vocabs, first, want):
    """An EOS ending a chunk (kept text: ``skip_special_tokens`` false) waits for the next
    chunk; a finish-only ``stop`` chunk then drops it. vLLM 0.33's stream showed its text in the
    chunk it came in and moves its ``text_offset`` by nothing at the finish (probed: states 15,
    15, 15 after an entry-less first chunk, 1, 1, 1 after one with fewer entries than ids;
    goldens stream_fuzz ``empty_final_chunk_lp_fewer_eos_offset``). tito took the held text
    back there although a chunk with entries never counted it: -12, and the usage-only chunk
    after the finish was refused (400, fuzz seed 1587, ``gpt2:1587:21``)."""
    vocab = vocabs["gpt2"]
    ids = vocab.encode("a") + vocab.encode("b") + [50256]  # (the ids of the probe)
    assert ids == [64, 65, 50256]
    lp = [entry(ids[k]) for k in first]
    chunks = [stream_chunk(ids, logprobs={"content": lp}),
              stream_chunk([], logprobs={"content": []}, finish_reason="stop"),
              stream_chunk(None, usage={"prompt_tokens": 2, "completion_tokens": 3,
                                        "total_tokens": 5})]
    state, texts, offsets = None, [], []
    for chunk in chunks:
        body: dict[str, Any] = {"model": "gpt2", "stream": True, "stream_state": state,
                                "generate_chunk": chunk}
        if state is None:
            body.update(prompt_token_ids=[1, 2],
                        **settings("gpt2", True, skip_special_tokens=False))
        answer = post(client, COMPLETIONS, body)
        state = answer["stream_state"]
        texts += [c["text"] for c in answer["chunk"]["choices"]]
        offsets.append(state["logprob_text_offset"])
    assert offsets == [want] * 3
    # stream == batch: the EOS the engine stopped on is dropped from both
    whole = batch(client, "gpt2", ids, lp, True, skip_special_tokens=False)
    assert "".join(texts) == whole["text"] == "ab"


def test_a_stop_string_stream_counts_only_the_text_it_shows(client, vocabs):
    """With stop strings (tito's alone: vLLM 0.33 refuses them in a stream) a completions
    stream's ``text_offset`` counts the text it shows: a held EOS that a stop string then cuts
    was never shown, so nothing of it is taken back. tito took the held text back as vLLM's
    stream (which shows it where it came) would, and the state's offset went negative (-8):
    the usage-only chunk after the finish was a 400 (session-53 probe of such streams)."""
    vocab = vocabs["gpt2"]
    assert vocab.decode([24762, 65]) == " ✓b"
    chunks = [([24762, 65], [entry(24762), entry(65)], None), ([], [], None), ([13], [], None),
              ([65, 50256], [entry(65)], None), ([], [], "length")]
    state, texts, offsets = None, [], []
    for ids, entries, finish in [*chunks, (None, [], None)]:  # (the usage-only chunk last)
        chunk = (stream_chunk(None, usage={"prompt_tokens": 2, "completion_tokens": 5,
                                           "total_tokens": 7}) if ids is None else
                 stream_chunk(ids, logprobs={"content": entries}, finish_reason=finish))
        body: dict[str, Any] = {"model": "gpt2", "stream": True, "stream_state": state,
                                "generate_chunk": chunk}
        if state is None:
            body.update(prompt_token_ids=[1, 2], **settings(
                "gpt2", True, stop=["<|endoftext|>"], skip_special_tokens=False))
        answer = post(client, COMPLETIONS, body)
        state = answer["stream_state"]
        texts += [c["text"] for c in answer["chunk"]["choices"]]
        offsets.append(state["logprob_text_offset"])
    shown = "".join(texts)
    assert shown == " ✓b.b"
    # entries move the offset to their end (" ✓b" 0..3, "b" 4..5), entry-less chunks by the
    # text they show ("." 3..4), the cut EOS by nothing
    assert offsets == [3, 3, 4, 5, 5, 5]


@given(data=st.data())
@hsettings(max_examples=40, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_property_a_completions_stream_offset_never_runs_back(client, vocabs, data):
    """Any chunking of EOS-bearing output, any entries per chunk (all, a prefix, none), stop
    strings or none, any finish: every call answers (the usage-only chunk after the finish
    too), and the state's ``logprob_text_offset`` never decreases. With stop strings and no
    entry anywhere it is the length of the text shown."""
    vocab = vocabs["gpt2"]
    pieces = data.draw(st.lists(st.sampled_from([" a", "b", ".", " ✓", None]), min_size=1,
                                max_size=8))
    ids = [i for p in pieces for i in ([50256] if p is None else vocab.encode(p))]
    stop = data.draw(st.sampled_from([[], ["<|endoftext|>"], ["b."], ["<|endoftext|> a"]]))
    sizes = data.draw(st.lists(st.integers(0, 3), max_size=len(ids)))
    chunks = split(ids, sizes)
    covers = [data.draw(st.sampled_from(["all", "prefix", "none"])) for _ in chunks]
    finish = data.draw(st.sampled_from(["length", "stop"]))
    state, texts, offsets = None, [], []
    for k, part in enumerate([*chunks, None]):
        if part is None:
            chunk = stream_chunk(None, usage={"prompt_tokens": 2, "completion_tokens": len(ids),
                                              "total_tokens": 2 + len(ids)})
        else:
            keep = {"all": len(part), "prefix": len(part) // 2, "none": 0}[covers[k]]
            chunk = stream_chunk(part, logprobs={"content": [entry(i) for i in part[:keep]]},
                                 finish_reason=finish if k == len(chunks) - 1 else None)
        body: dict[str, Any] = {"model": "gpt2", "stream": True, "stream_state": state,
                                "generate_chunk": chunk}
        if state is None:
            body.update(prompt_token_ids=[1, 2], **settings(
                "gpt2", True, stop=stop, skip_special_tokens=False))
        answer = post(client, COMPLETIONS, body)  # (asserts 200)
        state = answer["stream_state"]
        texts += [c["text"] for c in answer["chunk"]["choices"]]
        offsets.append(state["logprob_text_offset"])
        if state.get("stop_fired"):
            break
    assert offsets == sorted(offsets)
    if stop and set(covers) == {"none"}:
        assert offsets[-1] == len("".join(texts))
