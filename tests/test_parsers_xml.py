"""The XML-ish tool formats beyond vLLM's cases: typing bounds, state bounds, the request's
tools reaching the parser through render's ``derender_context``, and bad input."""

from __future__ import annotations

import json
import pathlib

import pytest

from tito.core.parsers import tools as T
from tito.core.parsers.tools import STATE_BYTES_LIMIT, ToolState, make_tool_parser
from tito.core.parsers.tools._base import VALUE_LIMIT
from tito.core.parsers.tools._schema import MAX_TYPED_PARAMS, coerce, letters, tool_params
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
        "seed_oss": "<seed:tool_call>\n<function=f>\n<parameter=n>\n",
        "glm45": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "glm47": "<tool_call>f<arg_key>n</arg_key><arg_value>",
        "minimax_m2": '<minimax:tool_call><invoke name="f"><parameter name="n">',
        "deepseek_v32": '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="n" '
        'string="false">',
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
