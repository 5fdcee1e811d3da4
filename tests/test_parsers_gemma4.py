"""gemma4's argument language beyond vLLM's cases: the bounds (a bare leaf past the buffer, deep
nesting, a long key), typing through nested schemas, and the reasoning block's first line.
What vLLM answers for the ordinary shapes is in the goldens (``parser_cases._gemma4``)."""

from __future__ import annotations

import json

from tito.core.parsers import reasoning as R
from tito.core.parsers import tools as T
from tito.core.parsers.tools import STATE_BYTES_LIMIT, ToolState, make_tool_parser
from tito.core.parsers.tools._base import HEADER_LIMIT, VALUE_LIMIT
from tito.core.parsers.tools.gemma4 import _MAX_STACK

Q = '<|"|>'


def run(parser, chunks):
    state, content, names, args, sizes = T.initial(parser), [], {}, {}, []
    for k, text in enumerate(chunks):
        state = ToolState.model_validate_json(state.model_dump_json())
        state, c, calls = T.step(parser, state, text, final=k == len(chunks) - 1)
        sizes.append(len(state.model_dump_json().encode()))
        content.append(c)
        for d in calls:
            if d.name is not None:
                names[d.index] = d.name
            args[d.index] = args.get(d.index, "") + d.arguments
    return "".join(content), [(names[i], args[i]) for i in sorted(names)], max(sizes)


def both(parser, text):
    """The batch result, checked equal to one character per call."""
    batch = run(parser, [text])
    assert run(parser, [*text, ""])[:2] == batch[:2]
    return batch


def test_bare_leaf_past_the_buffer_streams_as_a_string_with_trailing_spaces_dropped():
    p = make_tool_parser("gemma4", tool_params={"f": {"n": "i"}})
    big = "9 " * VALUE_LIMIT
    content, calls, size = both(p, f"<|tool_call>call:f{{n:{big}  }}<tool_call|>")
    assert content == "" and calls == [("f", json.dumps({"n": big.strip()}))]
    assert size < STATE_BYTES_LIMIT
    assert both(p, "<|tool_call>call:f{n: 12 }<tool_call|>")[1] == [("f", '{"n": 12}')]


def test_nested_leaves_are_typed_through_properties_and_items():
    params = {"f": {"d": {"t": "o", "p": {"x": "i", "l": {"t": "a", "i": "b"}}}, "s": "s"}}
    p = make_tool_parser("gemma4", tool_params=params)
    text = f"<|tool_call>call:f{{d:{{x:7,l:[true,0],y:3}},s:{Q}8{Q},u:9}}<tool_call|>"
    assert both(p, text)[1] == [("f", '{"d": {"x": 7, "l": [true, false], "y": "3"}, "s": "8", "u": "9"}')]


def test_deep_nesting_ends_the_arguments_closed_and_the_state_stays_bounded():
    p = make_tool_parser("gemma4")
    text = "<|tool_call>call:f{a:" + "[" * 500 + "1" + "]" * 500 + "}<tool_call|>after"
    content, calls, size = both(p, text)
    assert content == "after" and size < STATE_BYTES_LIMIT
    args = json.loads(calls[0][1])
    depth = 0
    node = args["a"]
    while isinstance(node, list):
        node, depth = (node[0] if node else None), depth + 1
    assert depth == _MAX_STACK - 1


def test_a_key_past_the_header_limit_ends_the_arguments():
    p = make_tool_parser("gemma4")
    key = "k" * (HEADER_LIMIT + 5)
    content, calls, _ = both(p, f"<|tool_call>call:f{{a:1,{key}:2}}<tool_call|>ok")
    assert content == "ok" and calls == [("f", '{"a": "1"}')]


def test_paren_form_and_header_cut_by_the_end():
    p = make_tool_parser("gemma4")
    assert both(p, f"<|tool_call>call:f(a:{Q}x{Q},b:2){Q}")[1] == [("f", '{"a": "x", "b": "2"}')]
    # a header cut by the end of the output: a call named with what came (vLLM's engine)
    assert both(p, "text <|tool_call>call:get_wea")[:2] == ("text ", [("get_wea", "{}")])
    assert both(p, "text <|tool_call>cal")[:2] == ("text ", [])


def test_reasoning_first_line_is_dropped_under_any_split():
    from tito.core.parsers.reasoning import REASONING_PARSERS
    from tito.models import get_registry

    parser = REASONING_PARSERS["gemma4"]
    vocab = get_registry().get("qwen3").vocab
    for text, want in (("thought\nhm<channel|>ok", ("hm", "ok")),
                       ("<|channel>thought<channel|>ok", ("", "ok")),
                       ("<|channel>thou", ("thou", "")),
                       ("thoughtful answer", ("", "thoughtful answer"))):
        for size in (1, 2, len(text)):
            st, r, c = R.initial(parser, vocab, []), [], []
            for i in range(0, len(text), size):
                st, a, b = R.step(parser, st, text[i : i + size], [], final=False)
                r.append(a)
                c.append(b)
            st, a, b = R.step(parser, st, "", [], final=True)
            assert ("".join(r) + a, "".join(c) + b) == want, (text, size)


def _pipeline_run(tool: str, text: str, sizes: list[int]) -> dict:
    """``text`` through the choice pipeline on the Qwen3 tokenizer with the format's markers as
    special tokens (``parser_pipeline``), ``sizes`` token ids per chunk (cycled)."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parent / "goldens"))
    from parser_pipeline import run as pipeline

    case = {"tool": tool, "reasoning": None, "tools": [], "text": text}
    out = pipeline(case, sizes)
    return {k: out[k] for k in ("reasoning", "content", "calls")}


def test_a_colonless_key_past_the_bound_drops_to_the_calls_end_in_every_chunking():
    """A KEY of more than HEADER_LIMIT characters with no ``:`` and another call's opener before
    the call's end (whitespace sweep, seed 43): the text is dropped up to the call's end, the
    next opener included, in every chunking (the stream's hold ended at the opener: two calls,
    the batch one). One call, as vLLM's batch (gemma4's engine: both its paths;
    functiongemma's greedy regex; its stream makes two)."""
    pad = " " * 300
    cases = {
        "gemma4": ("<|tool_call>", "<tool_call|>", "a:1"),
        "functiongemma": ("<start_function_call>", "<end_function_call>", "a:<escape>1<escape>"),
    }
    for tool, (start, end, member) in cases.items():
        for second, want_content in ((f"{start}call:g{{{member}}}{end}ok", "ok"),
                                     (start, None)):
            text = f"{start}call:f{{x{pad}y{second}"
            batch = _pipeline_run(tool, text, [10**6])
            assert batch == {"reasoning": None, "content": want_content,
                             "calls": [["f", "{}"]]}, (tool, second)
            for sizes in ([1], [2], [3, 1, 7], [40], [5, 64]):
                assert _pipeline_run(tool, text, sizes) == batch, (tool, second, sizes)


def test_a_colonless_key_past_the_bound_holds_a_cut_closer_at_the_chunk_end():
    """A KEY past HEADER_LIMIT with no ``:`` whose chunk ends inside the call's closer
    (whitespace sweep, seed 67): the drop phase took the cut ``<to`` with the key and read past
    the closer, so a run of newlines longer than the gap rule's bound after the call was content
    in batch and dropped in the stream. Now the cut closer is held: the same in any chunking."""
    for tool, (start, end) in {"gemma4": ("<|tool_call>", "<tool_call|>"),
                               "functiongemma": ("<start_function_call>",
                                                 "<end_function_call>")}.items():
        parser = make_tool_parser(tool)
        head = f"{start}call:f{{x" + " " * (HEADER_LIMIT + 5)
        for tail in ("\n" * 65, "\n" * 65 + "ok", " done"):
            text = head + end + tail
            batch = run(parser, [text])[:2]
            assert batch == (tail, [("f", "{}")]), (tool, tail, batch)
            cut = len(head) + 3  # (the chunk ends inside the closer)
            assert run(parser, [text[:cut], text[cut:]])[:2] == batch, (tool, tail)
            assert run(parser, [*text, ""])[:2] == batch, (tool, tail)


def test_functiongemma_holds_a_member_within_the_state_bound_in_every_chunking():
    """functiongemma holds a member's key until its value's first character shows whether the
    value opener is misspelt (skipped) or not: the separators before the key were held with it
    (300 spaces: a StateError in a stream) and a 200-character key with 64 spaces and a marker's
    prefix did not fit ``ToolState.buf`` either. Now: separators consumed; a value more than
    ``_LOOK`` characters past its member's start is read as gemma4 reads it, batch and stream."""
    p = make_tool_parser("functiongemma")
    s, e, q = "<start_function_call>", "<end_function_call>", "<escape>"
    texts = {f"{s}call:f{{{' ' * 300}a:{q}1{q}}}{e}": [("f", '{"a": 1}')],
             f"{s}call:f{{{',' * 250}a:{' ' * 60}{q}1{q}}}{e}": [("f", '{"a": 1}')],
             f"{s}call:f{{a:<escae>1{q},b:{q}2{q}}}{e}": [("f", '{"b": 2}')]}
    for key in (190, 199, 200):
        for ws in (40, 63, 64, 65):
            for value in (f"<escae>1{q},b:{q}2{q}}}{e}", f"{q}1{q}}}{e}", e, e[:-1]):
                texts[f"{s}call:f{{{'k' * key}:{' ' * ws}{value}"] = None
    for text, want in texts.items():
        batch = run(p, [text])
        if want is not None:
            assert batch[:2] == ("", want)
        for size in (1, 2, 7, 64, 300):
            got = run(p, [text[i : i + size] for i in range(0, len(text), size)] + [""])
            assert got[:2] == batch[:2] and got[2] < STATE_BYTES_LIMIT, (text, size)
    from tito.core.parsers.tools.functiongemma import _LOOK

    long_member = f"{s}call:f{{{'k' * 200}:{' ' * (_LOOK - 200)}<escae>1{q}}}{e}"
    assert run(p, [long_member])[1] == [("f", json.dumps({"k" * 200: f"<escae>1{q}"}))]


def test_an_unclosed_strings_held_tail_stays_within_the_ws_bound():
    """An unclosed string's trailing ``}`` and whitespace are held in ``ws`` (vLLM's engine drops
    them at the call's end): a ``}`` and 64 spaces were 65 characters, past ``ws``'s bound (a
    StateError in a stream: whitespace sweep, seed 50). The last WS_LIMIT characters are held."""
    p = make_tool_parser("gemma4")
    for tail in ("\n" * 65, "}" + " " * 64, "}" + " " * 70, " " * 10):
        for end in ("", "<tool_call|>ok"):
            text = f"<|tool_call>call:f{{a:{Q}x{tail}{end}"
            content, calls, _ = both(p, text)
            for size in (2, 7, 64, 65):
                got = run(p, [text[i : i + size] for i in range(0, len(text), size)] + [""])
                assert got[:2] == (content, calls) and got[2] < STATE_BYTES_LIMIT, (tail, end)
            kept = tail[:-64] if len(tail) > 64 else ""
            assert calls == [("f", json.dumps({"a": "x" + kept}))], (tail, end)
