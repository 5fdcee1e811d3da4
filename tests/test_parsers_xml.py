"""The XML-ish tool formats beyond vLLM's cases: typing bounds, state bounds, the request's
tools reaching the parser through render's ``derender_context``, and bad input."""

from __future__ import annotations

import json
import pathlib

import pytest

from tito.core.parsers import tools as T
from tito.core.parsers.tools import STATE_BYTES_LIMIT, ToolState, make_tool_parser
from tito.core.parsers.tools._base import VALUE_LIMIT
from tito.core.parsers.tools._schema import (
    MAX_DEPTH,
    MAX_TYPED_PARAMS,
    coerce,
    coerce_parsed,
    letters,
    tool_params,
)
from tito.errors import BadRequest

MODELS = pathlib.Path(__file__).resolve().parents[1] / "layers" / "tokenizer" / "models"


def run(parser, chunks):
    state, content, names, args = T.initial(parser), [], {}, {}
    for k, text in enumerate(chunks):
        state = ToolState.model_validate_json(state.model_dump_json())
        state, c, calls = T.step(parser, state, text, final=k == len(chunks) - 1)
        content.append(c)
        for d in calls:
            if d.name is not None:
                names[d.index] = d.name
            args[d.index] = args.get(d.index, "") + d.arguments
    return "".join(content), [(names[i], args[i]) for i in sorted(names)], state


def call(params: str) -> str:
    return f"<tool_call>\n<function=f>\n{params}</function>\n</tool_call>"


def test_schema_letters_follow_vllms_type_extraction():
    assert letters({"type": "integer"}) == "i"
    assert letters({"type": "float"}) == "n"  # vLLM's aliases
    assert letters({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "zi"
    assert letters({"enum": [1, "a", None]}) == "zis"
    assert letters({"type": "whatever"}) == ""  # types given, none known: JSON when it parses
    assert letters({}) == "s" and letters(None) == "s"
    # coerce_to_schema_type's priority: null, integer, number, boolean, object, array, string
    assert coerce("null", "zi") is None and coerce("7", "zi") == 7
    assert coerce("2.0", "n") == 2 and coerce("2.5", "n") == 2.5
    assert coerce("1e999", "n") == "1e999"  # non-finite numbers stay strings (valid JSON)
    assert coerce("[1e999]", "a") == "[1e999]"
    assert coerce("1", "b") is True and coerce("no", "b") == "no"
    assert coerce("[1, 2]", "") == [1, 2] and coerce("x y", "") == "x y"


def test_typed_value_longer_than_the_buffer_commits_without_buffering_the_rest():
    """A typed value is buffered only up to VALUE_LIMIT characters; past it an object/array
    value streams as its raw JSON and any other becomes a string, so the state stays bounded."""
    p = make_tool_parser("qwen3_coder", tool_params={"f": {"o": "o", "n": "i"}})
    big = json.dumps({"k": ["v" * 50] * 40})
    assert len(big) > VALUE_LIMIT
    text = call(f"<parameter=o>\n{big}\n</parameter>\n<parameter=n>\n{'9' * 300}\n</parameter>\n")
    for chunks in ([text], list(text) + [""]):
        content, calls, state = run(p, chunks)
        assert content == ""
        assert calls == [("f", '{"o": ' + big + ', "n": "' + "9" * 300 + '"}')]
    short = call('<parameter=o>\n{"a":1}\n</parameter>\n<parameter=n>\n12\n</parameter>\n')
    assert run(p, [short])[1] == [("f", '{"o": {"a": 1}, "n": 12}')]


@pytest.mark.parametrize("name", sorted(T.TYPED_TOOL_PARSERS))
def test_typed_parser_state_stays_bounded_with_every_buffer_full(name):
    p = make_tool_parser(name, tool_params={"f": {"n": "i"}})
    opening = {
        "qwen3_coder": "<tool_call>\n<function=f>\n<parameter=n>\n",
        "qwen3_xml": "<tool_call>\n<function=f>\n<parameter=n>\n",
        "step3p5": "<tool_call>\n<function=f>\n<parameter=n>\n",
        "mimo": "<tool_call><function=f><parameter=n>",
        "ling3": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "seed_oss": "<seed:tool_call>\n<function=f>\n<parameter=n>\n",
        "glm45": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "glm47": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "minimax_m2": '<minimax:tool_call><invoke name="f"><parameter name="n">',
        "deepseek_v32": '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="n" '
        'string="false">',
        "deepseek_v4": '<｜DSML｜tool_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="n" '
        'string="false">',
        "deepseek_v41": '<｜DSML｜ calls><｜DSML｜ invoke name="f"><｜DSML｜ parameter name="n" '
        'string="false">',
        "gemma4": '<|tool_call>call:f{n:<|"|>',
        "step5": "<tool_call>\n<function=f>\n<parameter=n>\n",
        "hy_v3": "<tool_calls><tool_call>f<tool_sep><arg_key>n</arg_key><arg_value>",
        "functiongemma": "<start_function_call>call:f{n:<escape>",
        "poolside_v1": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "dots": '<dots_function_call><invoke name="f"><parameter name="n">',
        "hy_v4": "<tool_calls><tool_call>f<arg_key>n</arg_key><arg_value>",
        "step3": '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke '
        'name="f"><steptml:parameter name="n">',
        "muse": '<atem:function_calls><atem:invoke name="f"><atem:parameter name="n">',
        "musespark1x": '<atem:function_calls><atem:invoke name="f"><atem:parameter name="n">',
        "muse_glimmer": '<atem:function_calls><atem:invoke name="f"><atem:parameter name="n">',
    }[name]
    state, sizes = T.initial(p), []
    state, _, _ = T.step(p, state, opening, final=False)
    for _ in range(2000):  # control characters cost the most bytes in JSON
        state, _, _ = T.step(p, state, "\x01", final=False)
        sizes.append(len(state.model_dump_json().encode()))
    assert max(sizes) < STATE_BYTES_LIMIT


def test_too_many_parameters_is_a_clear_400():
    props = {f"p{i}": {"type": "integer"} for i in range(MAX_TYPED_PARAMS + 1)}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"properties": props}}}]
    with pytest.raises(BadRequest) as err:
        tool_params(tools)
    assert err.value.param == "tools"


def test_qwen3_coder_typed_through_render_and_derender():
    """Render puts the tools' parameter types in derender_context; a derender that only has the
    context types the values like one that has the whole request (vLLM's typing)."""
    from tito.models.served import load_model
    from tito.protocol import ChatCompletionRequest
    from tito.protocol.derender import DerenderChatRequest
    from tito.service.derender import derender_chat
    from tito.service.render import render_chat_request

    model = load_model(MODELS / "qwen3", {"tool_parser": "qwen3_coder"})
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
              "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"},
                             "s": {"type": "string"}}}}}]
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "go"}], "tools": tools}
    gen = render_chat_request(ChatCompletionRequest.model_validate(body), model=model)
    ctx = gen.derender_context
    assert ctx["tool_params"] == {"f": {"n": "i", "ok": "b", "s": "s"}}
    assert gen.sampling_params.skip_special_tokens is False  # as vLLM's adjust_request
    text = call("<parameter=n>\n42\n</parameter>\n<parameter=ok>\ntrue\n</parameter>\n"
                "<parameter=s>\n7\n</parameter>\n")
    ids = model.vocab.encode(text) + [model.vocab.eos_token_id]
    resp = {"request_id": "r", "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}]}
    for extra in ({"derender_context": ctx}, {"chat_request": body}):
        out = derender_chat(model, DerenderChatRequest.model_validate(
            {"model": "qwen3", "generate_response": resp, **extra}))
        choice = out.choices[0]
        assert choice.finish_reason == "tool_calls"
        assert [(c.function.name, c.function.arguments) for c in choice.message.tool_calls] == [
            ("f", '{"n": 42, "ok": true, "s": "7"}')
        ]


def test_nested_schema_nodes_and_their_bounds():
    """Nested ``properties`` / ``items`` become nodes (only direct ones, as vLLM 0.33's
    ``_fix_arg_types`` follows); nested nodes count towards the limit; depth is capped."""
    schema = {"type": "object", "properties": {
        "n": {"type": "integer"}, "inner": {"type": "object", "properties": {"x": {"type": "number"}}},
        "tags": {"type": "array", "items": {"type": "string"}}, "bad": True},
        "anyOf": [{"properties": {"ignored": {"type": "integer"}}}]}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {
        "o": schema, "plain": {"type": "object"}, "odd": "x"}}}}]
    assert tool_params(tools) == {"f": {
        # the anyOf member without a type adds "string" (vLLM's extract_types_from_schema)
        "o": {"t": "os", "p": {"n": "i", "inner": {"t": "o", "p": {"x": "n"}},
                               "tags": {"t": "a", "i": "s"}}},
        "plain": "o", "odd": None}}
    deep: dict = {"type": "integer"}
    for _ in range(100):
        deep = {"type": "object", "properties": {"d": deep}}
    got = tool_params([{"type": "function", "function": {"name": "f", "parameters": {
        "properties": {"d": deep}}}}])["f"]["d"]
    depth = 0
    while isinstance(got, dict):
        got, depth = got["p"]["d"], depth + 1
    assert depth == MAX_DEPTH and got == "o"
    wide = {f"p{i}": {"type": "integer"} for i in range(MAX_TYPED_PARAMS)}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {
        "o": {"type": "object", "properties": wide}}}}}]
    with pytest.raises(BadRequest):
        tool_params(tools)


def test_nested_typing_follows_the_schema_for_json_values_only():
    """vLLM 0.33: a DSML ``string="false"`` value is JSON and typed recursively; a text value
    (qwen3_coder...) is typed once by its letters (recorded: tests/goldens nested_schema cases)."""
    node = {"t": "o", "p": {"n": "i", "l": {"t": "a", "i": "i"}, "s": "s"}}
    value = {"n": "5", "l": ["1", 2, "x"], "s": 7, "extra": "9"}
    assert coerce_parsed(value, node) == {"n": 5, "l": [1, 2, "x"], "s": "7", "extra": "9"}
    assert coerce_parsed(value, "o") == value  # no nested properties: untouched
    assert coerce_parsed(True, "s") == "true" and coerce_parsed(3, "i") == 3
    text = '{"n": "5"}'
    p = make_tool_parser("qwen3_coder", tool_params={"f": {"o": node}})
    assert run(p, [call(f"<parameter=o>\n{text}\n</parameter>\n")])[1] == [("f", '{"o": {"n": "5"}}')]
    d = make_tool_parser("deepseek_v32", tool_params={"f": {"o": node}})
    dsml = ('<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="o" '
            f'string="false">{text}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>')
    for chunks in ([dsml], [*dsml, ""]):
        assert run(d, chunks)[1] == [("f", '{"o": {"n": 5}}')]


def test_dsml_lone_wrapper_longer_than_the_buffer_stays_wrapped():
    """The wrapper waits in ``val`` (bounded); a longer one is streamed wrapped, never buffered."""
    d = make_tool_parser("deepseek_v32", tool_params={"f": {"city": "s"}})
    big = json.dumps({"city": "x" * (VALUE_LIMIT + 10)})
    dsml = ('<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="arguments" '
            f'string="false">{big}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>')
    for chunks in ([dsml], [*dsml, ""]):
        content, calls, state = run(d, chunks)
        assert calls == [("f", '{"arguments": ' + big + "}")] and content == ""
    small = dsml.replace(big, '{"city": "Oslo"}')
    assert run(d, [small])[1] == [("f", '{"city": "Oslo"}')]


@pytest.mark.parametrize("bad", [
    {"f": {"o": {"t": "o", "p": 5}}}, {"f": {"o": {"t": 3}}}, {"f": {"o": 7}}, {"f": ["o"]},
    {"f": {"o": {"t": "o", "p": {"x": None}}}}, {"f": {"o": {"t": "o", "x": 1}}},
])
def test_hand_made_typing_map_in_a_derender_context_is_a_400(bad):
    from tito.core.parsers.tools._schema import check_params

    with pytest.raises(BadRequest) as err:
        check_params(bad)
    assert err.value.param == "derender_context.tool_params"
    good = tool_params([{"type": "function", "function": {"name": "f", "parameters": {
        "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}}])
    assert check_params(good) == good


def test_derender_with_a_broken_typing_map_is_a_400_not_a_500():
    from tito.models.served import load_model
    from tito.protocol.derender import DerenderChatRequest
    from tito.service.derender import derender_chat

    model = load_model(MODELS / "qwen3", {"tool_parser": "qwen3_coder"})
    ids = model.vocab.encode(call("<parameter=o>\n{}\n</parameter>\n"))
    resp = {"request_id": "r", "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}]}
    ctx = {"tools": ["f"], "tool_choice": "auto", "tool_params": {"f": {"o": {"t": "o", "p": 5}}}}
    with pytest.raises(BadRequest):
        derender_chat(model, DerenderChatRequest.model_validate(
            {"model": "qwen3", "generate_response": resp, "derender_context": ctx}))
