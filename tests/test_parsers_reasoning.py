"""Reasoning parsers (``tito.core.parsers.reasoning``): real Qwen3 ids and prompts, vLLM's qwen3 vs
deepseek_r1 semantics, peers' bug classes as named cases, bounds, and the master property:
any chunking (with a JSON round trip of the state between calls) equals the batch result.
"""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tito.core.parsers import reasoning as reasoning_parser
from tito.core.parsers import reasoning_count
from tito.core.parsers.reasoning import (
    PROMPT_TAIL_IDS,
    REASONING_PARSERS,
    ReasoningState,
    get_reasoning_parser,
    initial,
    step,
)
from tito.errors import BadRequest

MODELS = pathlib.Path(__file__).resolve().parents[1] / "layers" / "tokenizer" / "models"
THINK, END_THINK = 151667, 151668  # Qwen3 <think> / </think>: added, not special
QWEN3 = REASONING_PARSERS["qwen3"]
R1 = REASONING_PARSERS["deepseek_r1"]

OUTPUT = (
    "<think>\nOkay, the user wants 中文 and an emoji 😀. Let me think: 2 < 3 and </thin is no "
    "tag.\n"
    "</think>\n\nThe answer is 42 — 你好 👩‍👩‍👧."
)


# -- helpers ----------------------------------------------------------------------------------


def token_deltas(vocab, ids: Sequence[int]) -> list[str]:
    """Per-token text deltas as an incremental detokenizer emits them (skip_special_tokens=False):
    a token whose prefix decode ends in U+FFFD emits "" and its text comes with a later token."""
    out, emitted = [], ""
    for i in range(len(ids)):
        text = vocab.decode(ids[: i + 1], skip_special_tokens=False)
        if text.endswith("\ufffd") or not text.startswith(emitted):
            out.append("")
            continue
        out.append(text[len(emitted) :])
        emitted = text
    full = vocab.decode(ids, skip_special_tokens=False)
    out[-1] += full[len(emitted) :]
    return out


def drive(parser, state: ReasoningState, chunks: Sequence[tuple[str, Sequence[int]]]):
    """Run every chunk with a JSON round trip of the state: (reasoning, content, state, deltas)."""
    reasoning, content, deltas = [], [], []
    for k, (text, ids) in enumerate(chunks):
        state = ReasoningState.model_validate(json.loads(json.dumps(state.model_dump(mode="json"))))
        state, r, c = step(parser, state, text, ids, final=k == len(chunks) - 1)
        reasoning.append(r)
        content.append(c)
        deltas.append((r, c))
    return "".join(reasoning), "".join(content), state, deltas


def split(text: str, cuts: Sequence[int]) -> list[tuple[str, list[int]]]:
    """``text`` cut at ``cuts`` (clamped, deduplicated), as chunks without ids."""
    bounds = sorted({min(c, len(text)) for c in cuts})
    chunks, prev = [], 0
    for b in [*bounds, len(text)]:
        chunks.append((text[prev:b], []))
        prev = b
    return chunks


def per_token(vocab, ids):
    return list(zip(token_deltas(vocab, ids), [[i] for i in ids], strict=True))


def qwen3_prompt(messages, **kwargs) -> str:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    cfg = json.loads((MODELS / "qwen3" / "tokenizer_config.json").read_text())
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda v, **_: json.dumps(v, ensure_ascii=False)
    return env.from_string(cfg["chat_template"]).render(
        messages=messages, add_generation_prompt=True, **kwargs
    )


@pytest.fixture(scope="module")
def qwen(vocabs):
    return vocabs["qwen3"]


# -- prompt tail: which phase the output starts in --------------------------------------------


def test_prompt_tail_from_the_real_qwen3_template(qwen):
    user = [{"role": "user", "content": "hi"}]
    on = qwen.encode(qwen3_prompt(user))
    off = qwen.encode(qwen3_prompt(user, enable_thinking=False))
    assert qwen.decode(off[-6:], skip_special_tokens=False) == "assistant\n<think>\n\n</think>\n\n"
    # vLLM 0.33's qwen3 grammar starts in reasoning; a turn the prompt closed starts in content,
    # where a stray </think> is still absorbed (post)
    assert initial(QWEN3, qwen, on[-PROMPT_TAIL_IDS:]).phase == "think"
    assert initial(QWEN3, qwen, off[-PROMPT_TAIL_IDS:]).phase == "post"
    assert initial(QWEN3, qwen, off[-PROMPT_TAIL_IDS:], enabled=False).phase == "done"
    assert initial(R1, qwen, off[-PROMPT_TAIL_IDS:]).phase == "done"
    assert initial(R1, qwen, on[-PROMPT_TAIL_IDS:]).phase == "think"


def test_prompt_open_think_block_deepseek_r1_template(qwen):
    tail = qwen.encode("<|im_start|>assistant\n<think>\n")  # R1 / Qwen3-thinking templates
    assert initial(R1, qwen, tail).phase == "think"
    assert initial(QWEN3, qwen, tail).phase == "think"
    ids = qwen.encode("step one</think>\n\nanswer")
    r, c, state, _ = drive(QWEN3, initial(QWEN3, qwen, tail), per_token(qwen, ids))
    assert (r, c) == ("step one", "\n\nanswer")
    assert state.reasoning_tokens == len(qwen.encode("step one"))


def test_closed_block_of_an_earlier_turn_does_not_disable_reasoning(qwen):
    """Multi-step tool calling: the history has <think>..</think>; this turn starts fresh.
    tito's scan stops at the turn's <|im_start|> (as vLLM 0.33's qwen3 grammar, whose scan stops
    at the ChatML turn boundaries; older whole-prompt scans said "reasoning ended")."""
    msgs = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "think",
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
        },
        {"role": "tool", "content": "sunny"},
    ]
    prompt = qwen.encode(qwen3_prompt(msgs))
    assert END_THINK in prompt
    assert initial(QWEN3, qwen, prompt).phase == "think"
    assert initial(R1, qwen, prompt).phase == "think"


def test_enabled_flag_and_template_kwargs(qwen):
    assert QWEN3.enabled_from_kwargs({"enable_thinking": False}) is False
    assert QWEN3.enabled_from_kwargs({"enable_thinking": True}) is True
    assert QWEN3.enabled_from_kwargs(None) is True
    assert R1.enabled_from_kwargs({"enable_thinking": False}) is True  # vLLM's r1 ignores it
    state = initial(QWEN3, qwen, [], enabled=False)
    r, c, state, _ = drive(QWEN3, state, [("<think>x</think>y", [THINK, 1, END_THINK, 2])])
    assert (r, c, state.reasoning_tokens) == ("", "<think>x</think>y", 0)


def test_unknown_parser_is_a_400():
    with pytest.raises(BadRequest, match="unknown reasoning parser"):
        get_reasoning_parser("nope")


# -- real Qwen3 ids, one token per chunk and other chunkings ----------------------------------


def test_qwen3_real_output_every_chunking(qwen):
    ids = qwen.encode(OUTPUT)
    assert ids[0] == THINK and END_THINK in ids
    want_r = (
        "\nOkay, the user wants 中文 and an emoji 😀. Let me think: 2 < 3 and </thin is no tag.\n"
    )
    want_c = "\n\nThe answer is 42 — 你好 👩‍👩‍👧."
    inside = ids.index(END_THINK) - 1  # ids strictly between the markers
    tokens = per_token(qwen, ids)
    for chunks in (
        [(OUTPUT, ids)],
        tokens,
        [
            (
                tokens[i][0] + tokens[i + 1][0] if i + 1 < len(tokens) else tokens[i][0],
                ids[i : i + 2],
            )
            for i in range(0, len(tokens), 2)
        ],
    ):
        r, c, state, _ = drive(QWEN3, initial(QWEN3, qwen, []), chunks)
        assert (r, c) == (want_r, want_c)
        assert state.reasoning_tokens == inside
        assert "\ufffd" not in r + c


def test_reasoning_never_leaks_into_content_at_one_token_per_chunk(qwen):
    ids = qwen.encode(OUTPUT)
    _, _, _, deltas = drive(QWEN3, initial(QWEN3, qwen, []), per_token(qwen, ids))
    end = ids.index(END_THINK)
    assert all(c == "" for _, c in deltas[: end + 1])
    assert all(r == "" for r, _ in deltas[end + 1 :])
    assert not any("think>" in r or "think>" in c for r, c in deltas)


def test_cjk_and_emoji_split_across_token_boundaries(qwen):
    text = "<think>𝔘 中文 👩‍👩‍👧 日本語</think>한국어 😀"
    ids = qwen.encode(text)
    deltas = token_deltas(qwen, ids)
    assert "" in deltas  # some characters really span two tokens
    r, c, _, _ = drive(QWEN3, initial(QWEN3, qwen, []), per_token(qwen, ids))
    assert (r, c) == ("𝔘 中文 👩‍👩‍👧 日本語", "한국어 😀")


# -- vLLM semantics: qwen3 vs deepseek_r1 -----------------------------------------------------


def test_qwen3_output_before_end_is_reasoning_without_think(qwen):
    """vLLM 0.33's qwen3 grammar starts in reasoning: everything before </think> is reasoning,
    <think> or not (recorded: tests/goldens qwen3/no_start)."""
    ids = qwen.encode("Just an answer </think> here.")
    r, c, state, _ = drive(QWEN3, initial(QWEN3, qwen, []), per_token(qwen, ids))
    assert (r, c) == ("Just an answer ", " here.")
    assert state.reasoning_tokens == ids.index(END_THINK) == 4


def test_deepseek_r1_output_before_end_is_reasoning_without_think(qwen):
    ids = qwen.encode("I reason</think>I answer")
    r, c, state, _ = drive(R1, initial(R1, qwen, []), per_token(qwen, ids))
    assert (r, c) == ("I reason", "I answer")
    # vLLM's count (BaseThinkingReasoningParser's depth counter) reads no start marker in the
    # output: 0 (recorded: tests/goldens/reasoning_tokens_vllm.json step5/fuzz_no_start, the
    # same class)
    assert state.reasoning_tokens == 0


def test_deepseek_r1_strips_one_think_marker(qwen):
    ids = qwen.encode("<think>a<think>b</think>c")
    r, c, _, _ = drive(R1, initial(R1, qwen, []), per_token(qwen, ids))
    assert (r, c) == ("a<think>b", "c")


def test_text_before_think_is_reasoning_for_qwen3(qwen):
    """vLLM 0.33's qwen3 grammar: the output starts in reasoning and a <think> inside the block
    is absorbed (recorded: tests/goldens qwen3/text_before_think)."""
    ids = qwen.encode("Hello <think>why</think> bye")
    r, c, _, _ = drive(QWEN3, initial(QWEN3, qwen, []), per_token(qwen, ids))
    assert (r, c) == ("Hello why", " bye")


def test_never_closed_block_at_finish_is_all_reasoning(qwen):
    ids = qwen.encode("<think>still thinking when max_tokens hit </thi")
    for parser in (QWEN3, R1):
        r, c, state, _ = drive(parser, initial(parser, qwen, []), per_token(qwen, ids))
        assert (r, c) == ("still thinking when max_tokens hit </thi", "")
        assert state.phase == "think" and state.held == ""


def test_end_marker_split_inside_a_chunk_and_across_chunks():
    state0 = ReasoningState(phase="think", id_phase="think")
    text = "abc</think>def"
    for cut in range(len(text) + 1):
        r, c, _, _ = drive(R1, state0, [(text[:cut], []), (text[cut:], [])])
        assert (r, c) == ("abc", "def"), cut


def test_second_block_after_close_is_content():
    state0 = ReasoningState(phase="think", id_phase="think")
    r, c, _, _ = drive(R1, state0, [("a</think>b<think>c</think>d", [])])
    assert (r, c) == ("a", "b<think>c</think>d")


# -- hold-back: minimal and bounded -----------------------------------------------------------


def test_hold_back_is_only_a_possible_marker_prefix():
    state = ReasoningState(phase="think", id_phase="think")
    state, r, c = step(R1, state, "2 < 3 </th", [], final=False)
    assert (r, c, state.held) == ("2 < 3 ", "", "</th")
    state, r, c = step(R1, state, "ing", [], final=False)
    assert (r, c, state.held) == ("</thing", "", "")
    pre = ReasoningState()
    pre, r, c = step(QWEN3, pre, "a <thi", [], final=False)
    assert (r, c, pre.held) == ("", "a ", "<thi")
    pre, r, c = step(QWEN3, pre, "s", [], final=False)
    assert (r, c, pre.held) == ("", "<this", "")


def test_marker_prefix_repeated_forever_keeps_the_state_small():
    state = ReasoningState(phase="think", id_phase="think")
    out = []
    for _ in range(5000):
        state, r, _ = step(R1, state, "</thin", [7], final=False)
        out.append(r)
        assert len(state.held) <= 7
    state, r, _ = step(R1, state, "", [], final=True)
    out.append(r)
    assert "".join(out) == "</thin" * 5000
    assert len(state.model_dump_json()) < 430  # (every field, the wire leaves out defaults)


def test_100k_reasoning_tokens_state_stays_small():
    state = ReasoningState(phase="think", id_phase="pre", id_depth=1, start_id=THINK,
                           end_id=END_THINK)  # (deepseek_r1's count: a start marker read)
    for _ in range(1000):
        state, _, _ = step(R1, state, "word " * 100, [42] * 100, final=False)
    assert state.reasoning_tokens == 100_000
    assert len(state.model_dump_json()) < 430  # (every field, the wire leaves out defaults)


# -- reasoning tokens: counted on ids, independent of chunking -------------------------------


def test_reasoning_tokens_count_ids_strictly_inside_the_block(qwen):
    ids = [1, THINK, 5, 6, 7, END_THINK, 8, THINK, 9]
    # qwen3 starts in the block: id 1 before <think> is reasoning, <think> is not counted, and
    # nothing after </think> is (the second <think> is content: no reopening); deepseek_r1
    # counts as vLLM's BaseThinkingReasoningParser: only inside the output's start markers
    # (5, 6, 7 and 9, after the second <think>)
    for parser in (QWEN3, R1):
        state = initial(parser, qwen, [])
        for cut in range(len(ids) + 1):
            s1, _, _ = step(parser, state, "", ids[:cut], final=False)
            s2, _, _ = step(parser, s1, "", ids[cut:], final=True)
            assert s2.reasoning_tokens == 4
    # a block opened by the output in pre (a parser that starts there) counts only its inside
    pre = ReasoningState(phase="pre", id_phase="pre", start_id=THINK, end_id=END_THINK)
    for cut in range(len(ids) + 1):
        s1, _, _ = step(QWEN3, pre, "", ids[:cut], final=False)
        s2, _, _ = step(QWEN3, s1, "", ids[cut:], final=True)
        assert s2.reasoning_tokens == 3


# -- the master property ----------------------------------------------------------------------

_PIECES = [
    "<think>",
    "</think>",
    "<thi",
    "</th",
    "<",
    ">",
    "think",
    "a",
    " ",
    "\n",
    "中",
    "😀",
    "x<",
]


def reference(parser, phase: str, text: str) -> tuple[str, str]:
    """The result by definition (module header rules), with plain string searches."""
    if phase == "done":
        return "", text
    if parser.absorb:  # vLLM's grammars (qwen3): repeated markers dropped, no reopening
        reasoning, content = [], []
        for piece in re.split(f"({re.escape(parser.start)}|{re.escape(parser.end)})", text):
            if piece == parser.start and phase in ("pre", "think"):
                phase = "think"
            elif piece == parser.end and phase == "think":
                phase = "post"
            elif piece != parser.end:  # an end outside the block is absorbed
                (reasoning if phase == "think" else content).append(piece)
        return "".join(reasoning), "".join(content)
    content = ""
    opened = False
    if phase == "pre":
        i = text.find(parser.start)
        if i == -1:
            return "", text
        content, text, opened = text[:i], text[i + len(parser.start) :], True
    if not opened:
        i, j = text.find(parser.start), text.find(parser.end)
        if i != -1 and (j == -1 or i < j):
            text = text[:i] + text[i + len(parser.start) :]
    j = text.find(parser.end)
    if j == -1:
        return text, content
    return text[:j], content + text[j + len(parser.end) :]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=25),
    name=st.sampled_from(["qwen3", "deepseek_r1"]),
    phase=st.sampled_from(["pre", "think", "done"]),
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_any_chunking_equals_batch_and_the_definition(pieces, name, phase, cuts):
    parser = REASONING_PARSERS[name]
    text = "".join(pieces)
    state0 = ReasoningState(phase=phase, id_phase=phase)
    batch = drive(parser, state0, [(text, [])])[:2]
    assert batch == reference(parser, phase, text)
    assert drive(parser, state0, split(text, cuts))[:2] == batch
    one_char = [(ch, []) for ch in text] + [("", [])]
    r, c, state, _ = drive(parser, state0, one_char)
    assert (r, c) == batch
    assert state.held == ""


_MARKERS_OF = sorted({
    m for p in REASONING_PARSERS.values()
    for m in (*p.starts, *p.ends, p.content_end, p.implicit_end) if m
})
_ANY_PIECES = [*_MARKERS_OF, *(m[: len(m) // 2] for m in _MARKERS_OF), "a", " ", "\n", "中", "  \n"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(_ANY_PIECES), max_size=25),
    name=st.sampled_from(sorted(REASONING_PARSERS)),
    phase=st.sampled_from(["pre", "think", "done"]),
    cuts=st.lists(st.integers(0, 300), max_size=8),
)
def test_every_parser_any_chunking_equals_batch(pieces, name, phase, cuts):
    """Every format (with its implicit end, absorbed repeats, held trailing whitespace): any split
    of the text, one character per call and the whole text give the same reasoning and content."""
    parser = REASONING_PARSERS[name]
    implicit = parser.implicit_end
    text = "".join(pieces)
    state0 = ReasoningState(phase=phase, id_phase=phase, implicit_end=implicit)
    batch = drive(parser, state0, [(text, [])])[:2]
    assert drive(parser, state0, split(text, cuts))[:2] == batch
    r, c, state, _ = drive(parser, state0, [(ch, []) for ch in text] + [("", [])])
    assert (r, c) == batch
    assert state.held == "" and state.ws == ""
    if implicit and phase != "done" and implicit not in parser.content_drop:
        # the call start always reaches the content (tool parser); kimi_k3's implicit end is
        # its response channel's opener, a content marker that is dropped
        assert c.count(implicit) >= min(1, text.count(implicit))


def test_mistral_tool_call_ends_reasoning_and_repeats_are_absorbed():
    """vLLM 0.33's Mistral grammar (recorded cases in tests/goldens: mistral+mistral/*)."""
    m = REASONING_PARSERS["mistral"]
    st0 = ReasoningState(phase="pre", id_phase="pre", implicit_end="[TOOL_CALLS]")
    call = '[TOOL_CALLS]f[ARGS]{"x": "[THINK] [/THINK]"}'
    assert drive(m, st0, [("[THINK]plan  \n" + call, [])])[:2] == ("plan", call)
    assert drive(m, st0, [("a[/THINK]b[THINK]c[THINK]d[/THINK]e[/THINK]f", [])])[:2] == ("cd", "abef")
    assert drive(m, st0, [("x" + call, [])])[:2] == ("", "x" + call)  # no block: nothing opens
    no_tools = ReasoningState(phase="pre", id_phase="pre")
    plain = '[TOOL_CALLS]f[ARGS]{"x": 1}'
    assert drive(m, no_tools, [("[THINK]plan" + plain, [])])[:2] == ("plan" + plain, "")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(st.sampled_from([*"ab  \n\nH中<[/", "</think>", "<think>", "[THINK]", "[/THINK]",
                                   "<tool_call>"]), max_size=12).map("".join),
    name=st.sampled_from(sorted(REASONING_PARSERS)),
    phase=st.sampled_from(["pre", "think", "post", "done"]),
    opened=st.booleans(),
    answered=st.booleans(),
    held=st.sampled_from(["", "", "", "<", "</thi"]),
    ws=st.sampled_from(["", " ", "\n\n"]),
    final=st.sampled_from([False, False, False, True]),
)
@example(text="a ", name="mistral", phase="think", opened=False, answered=False, held="", ws="",
         final=False)
@example(text="b", name="deepseek_v4", phase="pre", opened=True, answered=False, held="", ws=" ",
         final=False)
@example(text="b\n</answer>", name="hunyuan_a13b", phase="done", opened=True, answered=False,
         held="", ws="", final=False)
def test_per_token_shortcut_equals_the_scan(text, name, phase, opened, answered, held, ws,
                                            final):
    """step's shortcut (no marker's first character in the text) gives what the general scan
    gives: the same reasoning, content and state, for every format, phase and carried state."""
    parser = REASONING_PARSERS[name]
    state0 = ReasoningState(phase=phase, id_phase=phase, opened=opened, answered=answered,
                            held=held, ws=ws, implicit_end=parser.implicit_end)
    fast = reasoning_parser.step(parser, state0, text, [1, 2], final=final)
    copy = state0.model_copy()
    counted = reasoning_count.count(parser, copy, [1, 2], final=final)
    if counted is not None:
        copy.id_phase, copy.reasoning_tokens, copy.id_held, copy.id_opened, copy.id_depth = counted
    assert fast == reasoning_parser._scan(parser, copy, text, final)


def _count_by_loop(phase: str, count: int, start: int | None, end: int | None,
                   end2: int | None, ids: list[int], reopen: bool) -> tuple[str, int]:
    """The counting rule, id by id (the reference of ``reasoning_count.count``'s shortcuts); ``reopen``: an
    end goes to ``post``, where a start opens the block again."""
    if phase == "post" and not reopen:
        return phase, count
    for tid in ids:
        if phase == "post":
            if tid == start:
                phase = "think"
            elif end2 is not None and tid == end2:
                return "done", count
        elif phase == "pre":
            if tid == start:
                phase = "think"
            elif end2 is not None and tid == end2:
                return "done", count
        elif phase == "think":
            if tid == end and reopen:
                phase = "post"
            elif tid == end or (end2 is not None and tid == end2):
                return "done", count
            elif tid != start:
                count += 1
    return phase, count


@settings(max_examples=300, deadline=None)
@given(phase=st.sampled_from(["pre", "think", "post", "done"]),
       ids=st.lists(st.integers(0, 5), max_size=6),
       markers=st.tuples(st.sampled_from([None, 1]), st.sampled_from([None, 2]),
                         st.sampled_from([None, 3])),
       name=st.sampled_from(["qwen3", "glm45"]))
def test_token_count_shortcuts_equal_the_per_id_rule(phase, ids, markers, name):
    start, end, end2 = markers
    parser = REASONING_PARSERS[name]
    state = ReasoningState(phase=phase, id_phase=phase, start_id=start, end_id=end,
                           implicit_end_id=end2, reasoning_tokens=7)
    counted = reasoning_count.count(parser, state, ids, final=False)
    got = (phase, 7) if counted is None else counted[:2]
    assert got == _count_by_loop(phase, 7, start, end, end2, ids, parser.reopen)
    assert counted is None or counted[2:] == ([], False, 0)  # single ids: nothing held
