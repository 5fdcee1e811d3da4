"""The render endpoints through the FastAPI app: wire shape, completions prompts, and every 400."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app

CHAT = "/v1/chat/completions/render"
COMPLETIONS = "/v1/completions/render"
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
USER = [{"role": "user", "content": "Hello"}]


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(endpoints=["chat_render", "completions_render"]))


def post_ok(client, path, body, **kwargs):
    response = client.post(path, json=body, **kwargs)
    assert response.status_code == 200, response.text
    return response.json()


def error_of(client, path, body, status=400):
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == status
    return error


# -- chat ----------------------------------------------------------------------------------------


def test_chat_render_wire_shape(client):
    body = {"model": "qwen3", "messages": USER, "temperature": 0.5, "stop": ["###"],
            "max_completion_tokens": 64, "stream": True, "stream_options": {"include_usage": True},
            "cache_salt": "salt", "priority": 3, "request_id": "abc",
            "kv_transfer_params": {"do_remote_decode": True}}
    out = post_ok(client, CHAT, body, headers={"X-Request-Id": "hdr-1"})
    assert out["request_id"] == "chatcmpl-hdr-1"
    assert out["token_ids"][:3] == [151644, 872, 198]
    assert out["sampling_params"] == {
        "temperature": 0.5, "max_tokens": 64, "output_kind": 1, "skip_clone": True,
        "extra_args": {"kv_transfer_params": {"do_remote_decode": True}},
        "skip_special_tokens": False,  # vLLM 0.33: a model with parsers (recorded golden)
    }
    assert out["stream"] is True and out["stream_options"] == {"include_usage": True,
                                                               "continuous_usage_stats": False}
    assert out["cache_salt"] == "salt" and out["priority"] == 3
    assert out["kv_transfer_params"] == {"do_remote_decode": True}
    assert out["model"] == "qwen3" and out["output_mode"] == "tokens"
    ctx = out["derender_context"]
    assert ctx["stop"] == ["###"] and ctx["model"] == "qwen3" and ctx["request_id"] == "chatcmpl-hdr-1"
    assert ctx["prompt_tokens"] == len(out["token_ids"]) and ctx["prompt_tail"] == out["token_ids"][-8:]
    assert ctx["stream_options"] == {"include_usage": True, "continuous_usage_stats": False}
    assert out["reasoning_parser_kwargs"] == {"chat_template_kwargs": {
        "add_generation_prompt": True, "continue_final_message": False}}


def test_required_and_named_tool_choice_become_constraints(client):
    out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER, "tools": TOOLS,
                                 "tool_choice": "required", "parallel_tool_calls": False})
    # hermes has a structural tag: <tool_call> blocks, as vLLM 0.33 (conformance goldens)
    tag = json.loads(out["sampling_params"]["structured_outputs"]["structural_tag"])
    assert tag["format"]["type"] == "tags_with_separator" and tag["format"]["stop_after_first"]
    assert tag["format"]["tags"][0]["begin"].startswith("<tool_call>\n{")
    assert out["derender_context"]["tool_choice"] == "required"
    assert out["derender_context"]["parallel_tool_calls"] is False
    named = {"type": "function", "function": {"name": "get_weather"}}
    out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER, "tools": TOOLS, "tool_choice": named})
    tag = json.loads(out["sampling_params"]["structured_outputs"]["structural_tag"])
    assert {t["begin"].split('"')[3] for t in tag["format"]["tags"]} == {"get_weather"}
    assert out["derender_context"]["tool_choice"] == named
    # mistral has no tag: vLLM 0.33's mistral parser sends Mistral's list of {name, arguments}
    # (parallel_tool_calls does not bound it; conformance/goldens/structural/mistral.json)
    out = post_ok(client, CHAT, {"model": "mistral-v3", "messages": USER, "tools": TOOLS,
                                 "tool_choice": "required", "parallel_tool_calls": False})
    schema = out["sampling_params"]["structured_outputs"]["json"]
    assert schema["type"] == "array" and schema["minItems"] == 1 and "maxItems" not in schema
    assert schema["items"]["anyOf"][0]["required"] == ["name", "arguments"]


def test_response_format_json_object(client):
    out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER,
                                 "response_format": {"type": "json_object"}})
    assert out["sampling_params"]["structured_outputs"] == {"json_object": True}


def test_trusted_request_template_and_its_errors(client, monkeypatch):
    monkeypatch.setenv("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "1")
    template = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER, "chat_template": template,
                                 "return_token_offsets": True})
    assert len(out["token_offsets"]) == len(out["token_ids"])
    error = error_of(client, CHAT, {"model": "qwen3", "messages": USER,
                                    "chat_template": "{{ raise_exception('Only user roles!') }}"})
    assert error["message"] == "Only user roles!"
    error = error_of(client, CHAT, {"model": "qwen3", "messages": USER,
                                    "chat_template": "{% for i in range(100000) %}{% for j in range(100000) %}"
                                                     "{% endfor %}{% endfor %}"})
    assert "limit" in error["message"]
    error = error_of(client, CHAT, {"model": "qwen3", "messages": USER, "chat_template": "{% if %}"})
    assert "invalid chat template" in error["message"]
    error = error_of(client, CHAT, {"model": "qwen3", "messages": USER, "chat_template": "{{ m.x.y }}"})
    assert "undefined" in error["message"]


def test_continue_final_message(client):
    body = {"model": "qwen3", "add_generation_prompt": False, "continue_final_message": True,
            "messages": [{"role": "user", "content": "Count"}, {"role": "assistant", "content": "1, 2,"}]}
    out = post_ok(client, CHAT, body)
    assert out["token_ids"][-1] != 151645  # no <|im_end|> after the continued message


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"messages": USER, "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}},
         "does not match any of the specified `tools`"),
        ({"messages": USER, "tool_choice": "required"}, "`tools` must be set"),
        ({"messages": USER, "tools": []}, "at least one tool"),
        ({"messages": USER, "add_generation_prompt": True, "continue_final_message": True},
         "continue_final_message"),
        ({"messages": USER, "chat_template": "{{ messages }}"}, "untrusted chat template"),
        ({"messages": USER, "chat_template_kwargs": {"chat_template": "x"}}, "untrusted chat template"),
        ({"messages": []}, "at least one message"),
        ({"messages": [{"role": "user", "content": 5}]}, "content"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}, "must be a string"),
        ({"messages": [{"role": "user", "content": [{"type": "hologram", "hologram": {}}]}]},
         "Unsupported chat content part type: 'hologram'"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "not a multimodal model"),
        ({"messages": [{"role": "user", "content": None}]}, "must be a string or a list of parts"),
        ({"messages": [{"content": "no role"}]}, "role"),
        ({"messages": USER, "max_completion_tokens": 40961}, "40960"),
        ({"messages": USER, "max_tokens": 50000}, "max_model_len=40960"),
        ({"messages": USER, "max_tokens": 0}, "at least 1"),
        ({"messages": USER, "logprobs": True, "top_logprobs": 50}, "max allowed"),
        ({"messages": USER, "use_beam_search": True}, "Beam search"),
        ({"messages": USER, "return_assistant_tokens_mask": True}, "{% generation %}"),
        ({"messages": USER, "truncate_prompt_tokens": 40961}, "truncate_prompt_tokens"),
        ({"messages": USER, "response_format": {"type": "json_schema"}}, "json_schema"),
        ({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
          "continue_final_message": True, "add_generation_prompt": False,
          "chat_template_kwargs": {"enable_thinking": False}, "logit_bias": {"999999999": 1}},
         "logit_bias"),
    ],
)
def test_chat_bad_requests(client, body, fragment):
    error = error_of(client, CHAT, {"model": "qwen3", **body})
    assert fragment in error["message"], error


def test_mistral_refusals_are_400(client):
    error = error_of(client, CHAT, {"model": "mistral-v3", "messages": [
        {"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]})
    assert "Expected last role" in error["message"]


def test_model_without_template_or_tool_parser(client):
    assert "no chat template" in error_of(client, CHAT, {"model": "gpt2", "messages": USER})["message"]
    error = error_of(client, CHAT, {"model": "gpt2", "messages": USER, "tools": TOOLS})
    assert '"auto" tool choice requires a tool parser' in error["message"]


def test_unknown_model_is_404(client):
    error = error_of(client, CHAT, {"model": "nope", "messages": USER}, status=404)
    assert error["type"] == "NotFoundError" and error["param"] == "model"


# -- completions -------------------------------------------------------------------------------


def test_completion_prompt_shapes(client, vocabs):
    gpt2 = vocabs["gpt2"]
    hello = gpt2.encode("Hello world")
    out = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": "Hello world"})
    assert len(out) == 1 and out[0]["token_ids"] == hello
    assert out[0]["sampling_params"]["max_tokens"] == 16
    out = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": ["Hello world", "Bye"], "request_id": "r"})
    assert [o["token_ids"] for o in out] == [hello, gpt2.encode("Bye")]
    assert [o["request_id"] for o in out] == ["cmpl-r-0", "cmpl-r-1"]
    out = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": [1, 2, 3]})
    assert [o["token_ids"] for o in out] == [[1, 2, 3]]
    out = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": [[1, 2], [3]], "max_tokens": 5})
    assert [o["token_ids"] for o in out] == [[1, 2], [3]]
    assert all(o["sampling_params"]["max_tokens"] == 5 for o in out)


def test_completion_special_tokens_truncation_and_offsets(client):
    with_bos = post_ok(client, COMPLETIONS, {"model": "mistral-v3", "prompt": "Hello world"})[0]
    without = post_ok(client, COMPLETIONS, {"model": "mistral-v3", "prompt": "Hello world",
                                            "add_special_tokens": False})[0]
    assert with_bos["token_ids"][0] == 1 and with_bos["token_ids"][1:] == without["token_ids"]
    prompt = "one two three four five six"
    full = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": prompt, "return_token_offsets": True})[0]
    assert "".join(prompt[s:e] for s, e in full["token_offsets"]) == prompt
    left = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": prompt, "truncate_prompt_tokens": 2,
                                         "return_token_offsets": True})[0]
    assert left["token_ids"] == full["token_ids"][-2:] and left["token_offsets"] == full["token_offsets"][-2:]
    right = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": prompt, "truncate_prompt_tokens": 2,
                                          "truncation_side": "right"})[0]
    assert right["token_ids"] == full["token_ids"][:2]
    ids = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": [5, 6, 7], "return_token_offsets": True})[0]
    assert ids["token_offsets"] is None


def test_completion_derender_context(client):
    out = post_ok(client, COMPLETIONS, {"model": "gpt2", "prompt": "x", "logprobs": 2, "stop": "\n",
                                        "skip_special_tokens": False, "echo": True, "max_tokens": 0})[0]
    ctx = out["derender_context"]
    assert ctx["kind"] == "completion" and ctx["logprobs"] == 2 and ctx["stop"] == ["\n"]
    assert ctx["skip_special_tokens"] is False
    assert out["sampling_params"]["max_tokens"] == 1  # echo with max_tokens=0 asks for one token
    assert out["sampling_params"]["prompt_logprobs"] == 2


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"prompt": "x", "suffix": "y"}, "suffix"),
        ({"prompt": []}, "prompt"),
        ({"prompt": [50257]}, "outside the vocabulary"),
        ({"prompt": [[1], []]}, "non-empty"),
        ({"prompt": "word " * 1100}, "1024"),
        ({"prompt": "word " * 1020, "max_tokens": 1025}, "1024"),
        ({"prompt": "x", "max_tokens": 2000}, "max_model_len=1024"),
        ({"prompt": "x", "logprobs": 21}, "max allowed"),
        ({"prompt": ""}, "non-empty"),
        ({"prompt": "x", "truncate_prompt_tokens": 0}, "No token_ids rendered"),
    ],
)
def test_completion_bad_requests(client, body, fragment):
    error = error_of(client, COMPLETIONS, {"model": "gpt2", **body})
    assert fragment in error["message"], error


def test_documents_and_template_kwargs_reach_the_template(client, monkeypatch):
    monkeypatch.setenv("TITO_TRUST_REQUEST_CHAT_TEMPLATE", "1")
    template = ("{% for d in documents %}[{{ d.title }}: {{ d.text }}]{% endfor %}"
                "{{ flavour }}|{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}")
    body = {"model": "qwen3", "messages": USER, "chat_template": template,
            "documents": [{"title": "T", "text": "body"}],
            "chat_template_kwargs": {"flavour": "salty", "add_generation_prompt": "ignored"}}
    out = post_ok(client, CHAT, body)
    assert out["derender_context"]["chat_template_kwargs"]["flavour"] == "salty"
    assert "documents" not in out["derender_context"]["chat_template_kwargs"]
    from tito.models import get_registry
    text = get_registry().get("qwen3").vocab.decode(out["token_ids"], skip_special_tokens=False)
    assert text == "[T: body]salty||<|im_end|>|True"


def test_tool_choice_in_context_when_tools_are_offered(client):
    for choice, expected in (("none", "none"), (None, "auto"), ("auto", "auto")):
        out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER, "tools": TOOLS, "tool_choice": choice})
        assert out["derender_context"]["tool_choice"] == expected
        assert out["derender_context"]["tools"] == ["get_weather"]
    out = post_ok(client, CHAT, {"model": "qwen3", "messages": USER})
    assert "tool_choice" not in out["derender_context"] and "tools" not in out["derender_context"]


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"add_generation_prompt": True, "continue_final_message": True}, None),  # vLLM: null
        ({"tools": [{"type": "function", "function": {"name": "f"}}],
          "tool_choice": {"type": "function", "function": {"name": "g"}}}, "tool_choice"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"tools": []}, "tools"),
        ({"stream_options": {"include_usage": True}}, "stream_options"),
        ({"top_logprobs": 3}, "top_logprobs"),
    ],
)
def test_cross_field_errors_name_the_field(extra, param):
    from fastapi.testclient import TestClient

    from tito.adapters.app import create_app

    client = TestClient(create_app(endpoints=["chat_render"]), raise_server_exceptions=False)
    resp = client.post("/v1/chat/completions/render",
                       json={"messages": [{"role": "user", "content": "hi"}], **extra})
    assert resp.status_code == 400
    assert resp.json()["error"]["param"] == param
