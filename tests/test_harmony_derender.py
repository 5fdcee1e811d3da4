"""gpt-oss derender (harmony): vLLM 0.33 goldens, openai-harmony's parser, stream == batch.

References: ``tests/goldens/harmony.json`` (vLLM's ``HarmonyParser.parse`` outputs) and
openai-harmony's ``StreamableParser`` on generated outputs, routed with vLLM's table
(analysis -> reasoning, final / commentary without recipient -> content, functions.NAME -> call).
"""

from __future__ import annotations

import json
import pathlib

import pytest
from fastapi.testclient import TestClient
from helpers import split
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GOLDENS = json.loads(
    (pathlib.Path(__file__).parent / "goldens" / "harmony.json").read_text(encoding="utf-8")
)
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
         for n in ("get_weather", "search")]
RETURN, CALL, END, START, MESSAGE = 200002, 200012, 200007, 200006, 200008
EOS_TEXT = 199999  # <|endoftext|>: an EOS in gpt-oss's generation_config
MODELS = pathlib.Path(__file__).parents[1] / "layers" / "tokenizer" / "models"


@pytest.fixture(scope="module")
def client():
    from tito.adapters.app import create_app

    return TestClient(create_app())


def chat_request(**extra):
    return {"model": "gpt-oss", "messages": [{"role": "user", "content": "x"}], "tools": TOOLS,
            **extra}


def batch(client, ids, finish="stop", **extra):
    resp = client.post("/v1/chat/completions/derender", json={
        "model": "gpt-oss", "chat_request": chat_request(**extra),
        "generate_response": {"request_id": "chatcmpl-h", "choices": [
            {"index": 0, "token_ids": ids, "finish_reason": finish}]}})
    assert resp.status_code == 200, resp.text
    return resp.json()


def stream(client, ids, cuts, finish="stop", state_limit=2000, **extra):
    """Concatenated stream output: (reasoning, content, calls, finish_reason, usage)."""
    state = None
    reasoning = content = ""
    calls: dict[int, list[str]] = {}
    finish_reason = usage = None
    chunks = split(ids, cuts)
    for k, part in enumerate(chunks):
        last = k == len(chunks) - 1
        body = {"stream": True, "model": "gpt-oss", "stream_state": state,
                "generate_chunk": {"request_id": "chatcmpl-h", "choices": [
                    {"index": 0, "token_ids": part, "finish_reason": finish if last else None}],
                    **({"usage": {"prompt_tokens": 1, "completion_tokens": len(ids)}}
                       if last else {})}}
        if state is None:
            body["chat_request"] = chat_request(stream=True, **extra)
        resp = client.post("/v1/chat/completions/derender", json=body)
        assert resp.status_code == 200, resp.text
        out = resp.json()
        state = out["stream_state"]
        assert len(json.dumps(state)) < state_limit
        for choice in out["chunk"]["choices"]:
            delta = choice["delta"]
            reasoning += delta.get("reasoning") or ""
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                entry = calls.setdefault(tc["index"], ["", ""])
                entry[0] += (tc.get("function") or {}).get("name") or ""
                entry[1] += (tc.get("function") or {}).get("arguments") or ""
            finish_reason = choice["finish_reason"] or finish_reason
        usage = out["chunk"].get("usage") or usage
    return reasoning, content, [calls[i] for i in sorted(calls)], finish_reason, usage


def message_fields(resp):
    msg = resp["choices"][0]["message"]
    return (msg.get("reasoning") or "", msg.get("content") or "",
            [[c["function"]["name"], c["function"]["arguments"]] for c in msg.get("tool_calls") or []],
            resp["choices"][0]["finish_reason"])


@pytest.mark.parametrize("case", GOLDENS["derender"], ids=lambda c: c["output"][:30])
def test_batch_equals_vllm(client, case):
    reasoning, content, calls, finish = message_fields(batch(client, case["token_ids"]))
    assert reasoning == (case["reasoning"] or "")
    assert content == (case["content"] or "")
    # vLLM's batch re-serializes the arguments JSON; tito keeps the model's text (stream == batch)
    assert [[n, json.loads(a)] for n, a in calls] == [[n, json.loads(a)]
                                                      for n, a in case["tool_calls"]]
    assert finish == ("tool_calls" if case["tool_calls"] else "stop")


def test_issue_example_and_usage(client, gpt_oss, harmony_encoding):
    ids = harmony_encoding.encode(GOLDENS["derender"][0]["output"], allowed_special="all")
    resp = batch(client, ids)
    msg = resp["choices"][0]["message"]
    assert msg["reasoning"] == "The user greets. Reply briefly."
    assert msg["content"] == "Hello! 👋 How can I help?"
    n_reasoning = len(harmony_encoding.encode("The user greets. Reply briefly."))
    assert resp["usage"]["completion_tokens_details"]["reasoning_tokens"] == n_reasoning
    assert ids[-1] == RETURN and "<|return|>" not in json.dumps(resp)


def test_call_ends_with_tool_calls_and_stream_deltas(client, harmony_encoding):
    out = GOLDENS["derender"][1]["output"]
    ids = harmony_encoding.encode(out, allowed_special="all")
    assert ids[-1] == CALL
    r, c, calls, finish, usage = stream(client, ids, list(range(1, len(ids))))
    assert (r, c, finish) == ("Need weather.", "", "tool_calls")
    assert calls == [["get_weather", '{"location": "Paris"}']]
    # arguments tokens count as reasoning tokens (vLLM's _is_reasoning_token)
    args = len(harmony_encoding.encode('{"location": "Paris"}'))
    assert usage["completion_tokens_details"]["reasoning_tokens"] == (
        len(harmony_encoding.encode("Need weather.")) + args)


def test_no_tools_drops_calls_and_parallel_off_keeps_first(client, harmony_encoding):
    text = ("<|channel|>commentary to=functions.search json<|message|>{}<|call|>"
            "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
            "{\"a\":1}<|call|>")
    ids = harmony_encoding.encode(text, allowed_special="all")
    resp = batch(client, ids, tool_choice="none")
    assert message_fields(resp) == ("", "", [], "stop")
    resp = batch(client, ids, parallel_tool_calls=False)
    assert message_fields(resp)[2] == [["search", "{}"]]
    resp = batch(client, ids)
    assert message_fields(resp)[2] == [["search", "{}"], ["get_weather", '{"a":1}']]


# -- properties: openai-harmony's parser as reference, any chunking ----------------------------

PIECES = ["a", " b", "\n", "é", "😀", "中文", "{", "}", '"k"', ":", "1", " to=", "<|constrain|>",
          "<|start|>", "<|channel|>"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
CHANNELS = st.sampled_from(["analysis", "final", "commentary"])
RECIPIENTS = st.sampled_from([None, None, "functions.get_weather", "functions.search", "python"])


@st.composite
def outputs(draw):
    """An assistant output: harmony messages, rendered by openai-harmony."""
    msgs = draw(st.lists(st.tuples(CHANNELS, RECIPIENTS, TEXT, st.sampled_from(
        [None, "json", "<|constrain|>json"]), st.booleans()), min_size=1, max_size=4))
    return msgs


def render_output(enc, msgs):
    from openai_harmony import Message, Role

    ids = []
    for channel, recipient, text, ctype, in_role in msgs:
        m = Message.from_role_and_content(Role.ASSISTANT, text).with_channel(channel)
        if recipient:
            m = m.with_recipient(recipient)
            if ctype:
                m = m.with_content_type(ctype)
        rendered = enc.render(m)
        if recipient and not in_role:  # the model may put the recipient after the channel
            head = enc.encode(f"<|start|>assistant<|channel|>{channel} to={recipient}",
                              allowed_special="all")
            body = rendered[rendered.index(MESSAGE) - (len(enc.encode(f" {ctype}"))
                                                       if ctype and "<|" not in ctype else 0):]
            if ctype and "<|" in ctype:
                body = rendered[rendered.index(200003) - 1:]
            rendered = head + body
        ids += rendered
    return ids[2:]  # the prompt already wrote <|start|>assistant


def reference(enc, ids, decode=None):
    """openai-harmony's messages routed with vLLM's table (tools offered, reasoning on);
    ``decode``: the tokenizer's decode of vLLM's recovery (default: openai-harmony's)."""
    from openai_harmony import HarmonyError, Role, StreamableParser

    parser = StreamableParser(enc, Role.ASSISTANT)
    current = []  # vLLM's _current_message_tokens: the ids since the last completed message
    for t in ids:
        done = len(parser.messages)
        try:
            parser.process(t)
        except HarmonyError:
            continue
        current = [] if len(parser.messages) > done else [*current, t]
    recovered = ""
    try:
        parser.process_eos()
    except HarmonyError:  # vLLM's recovery: the unfinished message's text, a final message
        recovered = (decode or enc.decode)(current)
    reasoning, content, calls = [], [], []
    for m in parser.messages:
        text = m.content[0].text if m.content else ""
        rec = m.recipient
        if m.author.role != Role.ASSISTANT:
            continue
        if rec and rec.startswith("functions.") and len(rec) > 10:
            calls.append([rec[10:], text])
        elif rec and not rec.startswith("<|") and rec != "assistant" \
                and rec.split(".")[0] not in ("python", "browser", "container"):
            calls.append([rec, text])
        elif m.channel == "analysis" and text:
            reasoning.append(text)
        elif (m.channel == "final" or (m.channel == "commentary" and rec is None)) and text:
            content.append(text)
    if recovered:
        content.append(recovered)
    return "\n".join(reasoning), "\n".join(content), calls


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(msgs=outputs(), data=st.data())
def test_parse_like_openai_harmony_any_chunking(client, harmony_encoding, msgs, data):
    ids = render_output(harmony_encoding, msgs)
    want = reference(harmony_encoding, ids)
    got = message_fields(batch(client, ids))
    assert got[:3] == want
    cuts = data.draw(st.lists(st.integers(1, max(1, len(ids) - 1)), max_size=6))
    streamed = stream(client, ids, cuts)
    assert streamed[:4] == got
    # a length cut anywhere: what was said so far in its channel; stream == batch
    cut = data.draw(st.integers(0, len(ids)))
    part = ids[:cut]
    got_cut = message_fields(batch(client, part, finish="length")) if part else None
    if got_cut is not None:
        assert stream(client, part, cuts, finish="length")[:4] == got_cut
        assert got_cut[:3] == reference(harmony_encoding, part)


#: ids of characters split across byte tokens (o200k: each of these is a partial UTF-8 run)
_SPLIT_TEXT = "🌧️ 日本語 ✓ 👍🏽 café 𝔘"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_special_and_padded_ids_inside_a_character_as_openai_harmony(
        client, harmony_encoding, data):
    """A special id, or an id past the tokenizer (up to gpt-oss's vocab_size 201,088), inside a
    character's bytes ends the character as openai-harmony reads a message (U+FFFD, the name,
    U+FFFD for the rest; vLLM 0.33: fuzz_derender gpt-oss:36:17 and :74), whatever
    skip_special_tokens, at any place in the message (an end token after cut bytes too);
    stream == batch."""
    body = harmony_encoding.encode(_SPLIT_TEXT)
    inserts = data.draw(st.lists(st.tuples(
        st.integers(0, len(body)),
        st.sampled_from([200527, 200196, 201087, 200013, 200018, 199999, 200019])), max_size=3))
    for at, tid in sorted(inserts, reverse=True):
        body = body[:at] + [tid] + body[at:]
    channel = data.draw(st.sampled_from(["analysis", "final"]))
    head = harmony_encoding.encode(f"<|channel|>{channel}<|message|>", allowed_special="all")
    end = data.draw(st.sampled_from([[END], [RETURN], [CALL], []]))
    ids = head + body + end
    skip = data.draw(st.booleans())
    want = reference(harmony_encoding, without_stop_token(ids))
    got = message_fields(batch(client, ids, skip_special_tokens=skip))
    assert got[:2] == want[:2]
    cuts = data.draw(st.lists(st.integers(1, 4), max_size=8))
    assert stream(client, ids, cuts, skip_special_tokens=skip)[:2] == got[:2]


def without_stop_token(ids):
    """The output as tito reads a ``stop`` finish: an ``<|endoftext|>`` (gpt-oss's EOS harmony
    ends no message on) that ended it is the stop token, left out as for every model (vLLM's
    harmony path keeps it as text: deviation ``stop_id_harmony``, docs/conformance.md)."""
    return ids[:-1] if ids and ids[-1] == EOS_TEXT else ids


@pytest.mark.parametrize("channel", ["analysis", "final"])
@pytest.mark.parametrize("skip", [True, False])
def test_endoftext_ending_the_output_is_the_stop_token(client, harmony_encoding, channel, skip):
    """<|endoftext|> as the last id of a ``stop`` finish (hypothesis found it in the test
    above): dropped as the stop token, whatever skip_special_tokens; the same id before the
    end is message text, its name, as openai-harmony reads it."""
    head = harmony_encoding.encode(f"<|channel|>{channel}<|message|>", allowed_special="all")
    body = harmony_encoding.encode(_SPLIT_TEXT)
    field = 0 if channel == "analysis" else 1
    ids = head + body + [EOS_TEXT]
    got = message_fields(batch(client, ids, skip_special_tokens=skip))
    assert got[field] == _SPLIT_TEXT
    assert stream(client, ids, [1, 3, 2], skip_special_tokens=skip)[field] == _SPLIT_TEXT
    inside = head + body + [EOS_TEXT] + harmony_encoding.encode(" more")
    got = message_fields(batch(client, inside, finish="length", skip_special_tokens=skip))
    assert got[field] == _SPLIT_TEXT + "<|endoftext|> more"
    assert got[:2] == reference(harmony_encoding, inside)[:2]


#: headers openai-harmony refuses at <|message|>: a padded id splitting the channel's word
#: (role "assistant<|reserved_200357|>ary": fuzz_derender gpt-oss:61:220), an empty channel;
#: and one that parses (recipient "two", content type "words")
_BROKEN_HEADERS = ["<|start|>assistant<|channel|>comment\x00ary", "<|start|>assistant<|channel|>",
                   "<|start|>assistant two words<|channel|>final"]  # (the last one parses)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_failed_headers_before_a_cut_header_as_vllm(client, harmony_encoding, gpt_oss, data):
    """A header openai-harmony refuses drops its message, but vLLM's recovery of an output
    ending inside a later header decodes every id the parser took since the last message
    ended: the refused headers (from their <|start|>) come out as content too."""
    def encode(text):
        ids = []
        for k, part in enumerate(text.split("\x00")):
            ids += ([200357] if k else []) + harmony_encoding.encode(part, allowed_special="all")
        return ids

    ids = harmony_encoding.encode("<|channel|>analysis<|message|>hm<|end|>", allowed_special="all")
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["broken", "broken", "good"]))
        if kind == "good":
            ids += encode("<|start|>assistant<|channel|>final<|message|>ok<|end|>")
        else:
            ids += encode(data.draw(st.sampled_from(_BROKEN_HEADERS)) + "<|message|>")
            ids += encode(data.draw(st.sampled_from(["", " today<|end|>", "x"])))
    ids += encode(data.draw(st.sampled_from(["<|start|>assistant<|channel|>", "<|start|>",
                                             "<|start|>assistant<|channel|>final<|message|>z"])))
    decode = lambda t: gpt_oss.vocab.decode(t, skip_special_tokens=False)  # noqa: E731
    want = reference(harmony_encoding, ids, decode)
    skip = data.draw(st.booleans())
    got = message_fields(batch(client, ids, finish="length", skip_special_tokens=skip))
    assert got[:3] == want
    cuts = data.draw(st.lists(st.integers(1, 5), max_size=8))
    assert stream(client, ids, cuts, finish="length", skip_special_tokens=skip)[:4] == got


#: ids past the tokenizer (below vocab_size) that the engine may emit inside a character's bytes
_PADS = [200903, 200019, 201087]
_WORDS = ["🌧️", " 日本語", " café", " plain words", " 👍🏽", "\n", " 𝔘"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_padded_ids_in_text_that_is_no_harmony_as_vllm(client, harmony_encoding, data):
    """Text that is no harmony message is vLLM's recovery, the tokenizer's decode of its ids:
    there an id past the tokenizer is nothing, so a character whose bytes it splits stays whole
    (derender fuzz gpt-oss:674:35), unlike inside a message. An output with no harmony framing
    (short, or past the 256-character header limit, the padded id before or after it), a header
    cut by the end after a message and a refused header before it all read so. And a header
    whose bytes are no UTF-8 (a split or unfinished character) is refused, as openai-harmony
    refuses it ("could not decode header"); stream == batch."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(MODELS / "gpt-oss" / "tokenizer.json"))
    shape = data.draw(st.sampled_from(["plain", "long", "cut", "refused", "unfinished"]))
    words = data.draw(st.lists(st.sampled_from(_WORDS), min_size=1,
                               max_size=150 if shape == "long" else 6))
    body = harmony_encoding.encode("".join(words))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(body)))
        body = body[:at] + [data.draw(st.sampled_from(_PADS))] + body[at:]
    after = harmony_encoding.encode("<|channel|>final<|message|>ok<|end|><|start|>",
                                    allowed_special="all")
    head, tail = {
        "plain": ("", ""), "long": ("", ""), "cut": ("x", ""),
        "refused": ("assistant", " two words<|message|>gone<|start|>assistant<|chan"),
        # 64364: the first three bytes of a character, unfinished at <|message|>
        "unfinished": ("assistant<|channel|>commentary to=functions.get_weather", "\x00"),
    }[shape]
    ids = ((after if head else []) + harmony_encoding.encode(head, allowed_special="all")
           + body)
    if tail == "\x00":
        ids += [64364] + harmony_encoding.encode("<|message|>{}<|call|>", allowed_special="all")
    elif tail:
        ids += harmony_encoding.encode(tail, allowed_special="all")
    decode = lambda t: tok.decode(t, skip_special_tokens=False)  # noqa: E731
    want = reference(harmony_encoding, ids, decode)
    got = message_fields(batch(client, ids, finish="length"))
    assert got[:3] == want
    cuts = data.draw(st.lists(st.integers(1, 7), max_size=12))
    assert stream(client, ids, cuts, finish="length", state_limit=4000)[:4] == got


def test_padded_id_splitting_a_character_at_the_header_limit(client, harmony_encoding):
    """A plain output whose padded id splits a character just where the first header passes
    its 256-character limit: the character stays whole (the tokenizer's decode of every id,
    vLLM's recovery), in batch and in every two-chunk stream."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(MODELS / "gpt-oss" / "tokenizer.json"))
    for fill in (238, 240, 250, 255):
        ids = (harmony_encoding.encode("x" * fill) + [64364, 200903, 100]
               + harmony_encoding.encode(" after 🌧 the limit."))
        want = tok.decode(ids, skip_special_tokens=False)
        assert "🌧" in want[fill:fill + 2]
        got = message_fields(batch(client, ids, finish="length"))
        assert got[1] == want
        for cut in range(1, len(ids)):
            assert stream(client, ids, [cut], finish="length", state_limit=4000)[1] == want


@pytest.mark.parametrize(("ids", "status"), [
    (["x"], 400), ([1] * 400, 400), ({"a": 1}, 400),  # not a bounded list of ints: refused
    ([-5, 10**12, 201087, 64364], 200),  # ints out of the vocabulary: nothing, never a 500
])
def test_tampered_header_ids_are_a_400_or_harmless(client, ids, status):
    """An unsigned stream state whose harmony ``header_ids`` is tampered with: a 400 in
    OpenAI's error shape when it is no bounded list of ints, else ids out of the vocabulary
    decode to nothing (the header and its refusal as for any other ids), never a 500."""
    body = {"stream": True, "model": "gpt-oss", "chat_request": chat_request(stream=True),
            "generate_chunk": {"request_id": "chatcmpl-h", "choices": [
                {"index": 0, "token_ids": [9048, 40909], "finish_reason": None}]}}
    state = client.post("/v1/chat/completions/derender", json=body).json()["stream_state"]
    state["tito"]["st"]["harmony"]["header_ids"] = ids
    resp = client.post("/v1/chat/completions/derender", json={
        "stream": True, "model": "gpt-oss", "stream_state": state,
        "generate_chunk": {"request_id": "chatcmpl-h", "choices": [
            {"index": 0, "token_ids": [200008, 12194, RETURN], "finish_reason": "stop"}]}})
    assert resp.status_code == status, resp.text
    if status == 400:
        err = resp.json()["error"]
        assert err["code"] == 400 and err["param"] == "stream_state", err
        assert "header_ids" in err["message"], err


def test_refused_headers_kept_are_bounded(client, harmony_encoding):
    """Hundreds of refused headers before a cut header: the state stays small (the refused
    headers' text is kept up to 1,024 characters, the first ones); stream == batch."""
    def enc(text):
        return harmony_encoding.encode(text, allowed_special="all")

    broken = enc("<|start|>assistant<|channel|>comment") + [200357] + enc("ary<|message|>")
    ids = enc("<|channel|>final<|message|>ok<|end|>") + broken * 300 + enc("<|start|>")
    got = message_fields(batch(client, ids, finish="length"))
    head = "<|start|>assistant<|channel|>commentary"
    assert got[1].startswith("ok\n" + head * 20) and len(got[1]) == 3 + 1024 + len("<|start|>")
    assert stream(client, ids, [97, 211], finish="length")[:4] == got


ANY_IDS = st.lists(st.one_of(st.sampled_from([START, MESSAGE, END, CALL, RETURN, 200005, 200003,
                                              199999, 200018, 173781, 35644, 17196, 12606]),
                             st.integers(0, 200018)), max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(ids=ANY_IDS, data=st.data())
def test_any_ids_never_fail_and_stream_equals_batch(client, ids, data):
    """Malformed output (any ids, any order) is a 200 with stream == batch; stop strings too."""
    finish = data.draw(st.sampled_from(["stop", "length"]))
    extra = data.draw(st.sampled_from([{}, {"stop": ["a", "<|channel|>"]},
                                       {"parallel_tool_calls": False}, {"tool_choice": "none"},
                                       {"include_reasoning": False}]))
    cuts = data.draw(st.lists(st.integers(1, 5), max_size=8))
    got = message_fields(batch(client, ids, finish=finish, **extra))
    assert stream(client, ids, cuts, finish=finish, **extra)[:4] == got


def test_state_stays_small_on_long_outputs(client, harmony_encoding):
    body = " ".join(f"w{i}" for i in range(3000))
    ids = harmony_encoding.encode(f"<|channel|>analysis<|message|>{body}<|end|><|start|>assistant"
                                  f"<|channel|>final<|message|>{body}", allowed_special="all")
    sizes = []
    state = None
    for k in range(0, len(ids), 500):
        resp = client.post("/v1/chat/completions/derender", json={
            "stream": True, "model": "gpt-oss", "stream_state": state,
            **({"chat_request": chat_request(stream=True)} if state is None else {}),
            "generate_chunk": {"request_id": "chatcmpl-h", "choices": [
                {"index": 0, "token_ids": ids[k:k + 500], "finish_reason": None}]}})
        state = resp.json()["stream_state"]
        sizes.append(len(json.dumps(state)))
    # (the first answer also carries its chunk's ids in vLLM's replay fields, see README)
    assert max(sizes[1:]) < 1000 and max(sizes[1:]) - min(sizes[1:]) < 64, sizes


# -- ids past the tokenizer (vocab_size 201,088) and special ids inside a message --------------

RESERVED = [200000, 200013, 200018, 200019, 200500, 201087]  # openai-harmony: <|reserved_N|>


def test_vocab_size_is_gpt_oss_config(gpt_oss):
    # gpt-oss-20b/120b config.json: vocab_size 201088 (the tokenizer has 200,019 ids)
    assert (gpt_oss.vocab.size, gpt_oss.vocab_size) == (200019, 201088)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(TEXT, min_size=1, max_size=4), data=st.data())
def test_reserved_and_special_ids_read_as_openai_harmony(client, harmony_encoding, texts, data):
    """Inside analysis and final messages, every special id and every id past the tokenizer is
    its openai-harmony name, whatever skip_special_tokens (vLLM 0.33 recorded the same:
    conformance goldens derender_chat_gptoss reserved_*); any chunking gives the batch answer."""
    body: list[int] = []
    for text in texts:
        body += harmony_encoding.encode(text, allowed_special="all")
        body.append(data.draw(st.sampled_from(RESERVED)))
    analysis = harmony_encoding.encode("<|channel|>analysis<|message|>", allowed_special="all")
    final = harmony_encoding.encode("<|end|><|start|>assistant<|channel|>final<|message|>",
                                    allowed_special="all")
    ids = analysis + body + final + body + [RETURN]
    want = reference(harmony_encoding, ids)
    assert "<|reserved_" in want[1]  # the reference decodes them by name
    skip = data.draw(st.booleans())
    got = message_fields(batch(client, ids, skip_special_tokens=skip))
    assert got[:3] == want
    cuts = data.draw(st.lists(st.integers(1, max(1, len(ids) - 1)), max_size=5))
    assert stream(client, ids, cuts, skip_special_tokens=skip)[:4] == got


def test_padded_ids_in_a_logprobs_stream(client):
    """A padded id in the logprob context of a stream state is valid (bytes null, as vLLM)."""
    ids = [200005, 17196, 200008, 12194, 201087, 1354, RETURN]
    lps = {"content": [{"token_id": i, "logprob": -0.1, "top_logprobs": [
        {"token_id": i, "logprob": -0.1}]} for i in ids]}
    state, content, entries = None, "", []
    for k in range(len(ids)):
        last = k == len(ids) - 1
        body = {"stream": True, "model": "gpt-oss", "stream_state": state,
                "generate_chunk": {"request_id": "chatcmpl-h", "choices": [{
                    "index": 0, "token_ids": [ids[k]], "finish_reason": "stop" if last else None,
                    "logprobs": {"content": [lps["content"][k]]}}]}}
        if state is None:
            body["chat_request"] = chat_request(stream=True, logprobs=True, top_logprobs=1)
        resp = client.post("/v1/chat/completions/derender", json=body)
        assert resp.status_code == 200, resp.text
        state = resp.json()["stream_state"]
        for choice in resp.json()["chunk"]["choices"]:
            content += choice["delta"].get("content") or ""
            entries += (choice.get("logprobs") or {}).get("content") or []
    assert content == "Hi<|reserved_201087|> there"
    assert [(e["token"], e["bytes"]) for e in entries][4] == ("", None)


@pytest.mark.parametrize("bad", [201088, 300000, -1])
def test_ids_past_vocab_size_are_refused(client, bad):
    resp = client.post("/v1/chat/completions/derender", json={
        "model": "gpt-oss", "chat_request": chat_request(),
        "generate_response": {"request_id": "chatcmpl-h", "choices": [
            {"index": 0, "token_ids": [200005, 17196, 200008, bad, RETURN],
             "finish_reason": "stop"}]}})
    assert resp.status_code == 400  # -1: the schema's (a token id is >= 0), else the vocab's
    assert "201088" in resp.json()["error"]["message"] or bad < 0


def test_detokenize_padded_ids_as_vllm(client):
    # vLLM 0.33 (conformance goldens tokens_gptoss): "" for ids the tokenizer lacks
    resp = client.post("/detokenize", json={"model": "gpt-oss",
                                            "tokens": [13225, 200019, 201087, 201088, 300000]})
    assert resp.status_code == 200 and resp.json() == {"prompt": "Hello"}
