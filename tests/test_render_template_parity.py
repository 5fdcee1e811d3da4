"""Chat render ids equal ``transformers.apply_chat_template`` on templates other than Qwen3's.

The templates in ``tests/templates/`` are small ones written in the style of public templates
(DeepSeek-V3, Llama 3.1, Gemma 3, Phi, Granite 3, a developer-role one); each is served from a
model folder as a user would bring it. The reference gets the request's messages as the template
expects them, stated here per template (not derived by tito's code):

* ``content: null`` stays null for a template that tests ``content is none`` (DeepSeek-V3);
  elsewhere it is ``""``, as vLLM hands it over;
* tool-call ``arguments`` stay the client's JSON string for a template that concatenates them
  (DeepSeek-V3), else they are objects (vLLM and ``transformers``' documented form); a call's
  keys come in the order of openai's typed dicts (``id``, ``function``: ``arguments``, ``name``;
  ``type``), as vLLM 0.33 validates them (recorded: ``render_chat_messages`` goldens);
* ``developer`` stays as it is for a template that names the role; elsewhere the reference is the
  conversation vLLM 0.33 builds (a system message; system messages merged first);
* tools reach the template with only the fields the request set.

When ``transformers`` raises (a template's ``raise_exception``, a type error), tito answers 400.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import MODELS_DIR
from tito.errors import BadRequest
from tito.models import load_model
from tito.protocol import ChatCompletionRequest
from tito.service.render import RenderSettings, render_chat_request

transformers = pytest.importorskip("transformers")

TEMPLATES_DIR = Path(__file__).parent / "templates"

#: template -> (tokenizer folder, null content kept, arguments as string, knows developer, parts)
TRAITS: dict[str, tuple[str, bool, bool, bool, bool]] = {
    "deepseek_v3": ("qwen3", True, True, False, False),
    "llama3": ("gpt2", False, False, False, False),
    "gemma": ("mistral-v3", False, False, False, True),
    "phi": ("qwen3", False, False, False, False),
    "granite": ("gpt2", False, False, False, False),
    "developer": ("qwen3", False, False, True, False),
    "qwen3": ("qwen3", False, False, False, False),  # the real one, shipped in tokenizer_config
}

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Weather <now> & 'later' — vite",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {"name": "ping"}},  # no description, no parameters
]


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


CONVERSATIONS: dict[str, dict[str, Any]] = {
    "system_user": dict(messages=[{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "Hi there"}]),
    "multi_turn": dict(messages=[
        {"role": "user", "content": "One?"}, {"role": "assistant", "content": "Two."},
        {"role": "user", "content": "  Three?\n"}]),
    "tool_call_null_content": dict(tools=TOOLS, messages=[
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("call_1", "get_weather", '{"city":"Paris"}')]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'},
        {"role": "assistant", "content": "21 degrees."},
        {"role": "user", "content": "Thanks"}]),
    "two_tool_calls": dict(tools=TOOLS, messages=[
        {"role": "user", "content": "Paris and Rome?"},
        {"role": "assistant", "content": None, "tool_calls": [
            call("a", "get_weather", '{"city": "Paris"}'), call("b", "get_weather", '{"city":"Rome"}')]},
        {"role": "tool", "tool_call_id": "a", "content": "20"},
        {"role": "tool", "tool_call_id": "b", "content": "25"}]),
    "tools_offered": dict(tools=TOOLS, messages=[{"role": "user", "content": "Ping it"}]),
    "text_parts": dict(messages=[{"role": "user", "content": [
        {"type": "text", "text": "Describe"}, {"type": "text", "text": "this."}]}]),
    "developer_first": dict(messages=[{"role": "developer", "content": "Answer in French."},
                                      {"role": "user", "content": "Hello"}]),
    "developer_late": dict(messages=[
        {"role": "system", "content": "Sys."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "developer", "content": "Now be terse."}, {"role": "user", "content": "Why?"}]),
}

#: What vLLM 0.33 turns the developer conversations into for a template without the role.
DEVELOPER_AS_SYSTEM = {
    "developer_first": [{"role": "system", "content": "Answer in French."},
                        {"role": "user", "content": "Hello"}],
    "developer_late": [{"role": "system", "content": "Sys.\n\nNow be terse."},
                       {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                       {"role": "user", "content": "Why?"}],
}


def reference_messages(name: str, template: str) -> list[dict[str, Any]]:
    _, null_content, string_args, developer, parts = TRAITS[template]
    if name in DEVELOPER_AS_SYSTEM and not developer:
        return copy.deepcopy(DEVELOPER_AS_SYSTEM[name])
    out = []
    for m in copy.deepcopy(CONVERSATIONS[name]["messages"]):
        if m.get("content") is None and not null_content:
            m["content"] = ""
        if isinstance(m["content"], list) and not parts:
            m["content"] = "\n".join(p["text"] for p in m["content"])
        for k, tc in enumerate(m.get("tool_calls", [])):
            args = tc["function"]["arguments"]
            # vLLM 0.33 validates a call as openai's typed dicts: their key order
            m["tool_calls"][k] = {"id": tc["id"], "function": {
                "arguments": args if string_args else json.loads(args),
                "name": tc["function"]["name"]}, "type": tc["type"]}
        out.append(m)
    return out


def reference_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """The tool dicts vLLM 0.33 hands the template (``ChatCompletionToolsParam.model_dump()``):
    a function's ``description`` and ``parameters`` are always there, null when not given;
    ``strict`` only when given."""
    if tools is None:
        return None
    out = []
    for tool in copy.deepcopy(tools):
        fn = tool["function"]
        tool["function"] = {"name": fn["name"], "description": fn.get("description"),
                            "parameters": fn.get("parameters")} | (
            {"strict": fn["strict"]} if fn.get("strict") is not None else {})
        out.append(tool)
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("templates")
    out = {}
    for template, (src, *_) in TRAITS.items():
        folder = root / template
        folder.mkdir()
        for file in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(MODELS_DIR / src / file, folder / file)
        if template != "qwen3":
            (folder / "chat_template.jinja").write_text((TEMPLATES_DIR / f"{template}.jinja").read_text())
        (folder / "tito.json").write_text('{"max_model_len": 4096, "tool_parser": "hermes"}')
        out[template] = folder
    return out


@pytest.fixture(scope="module")
def tokenizers(folders: dict[str, Path]) -> dict[str, Any]:
    return {t: transformers.AutoTokenizer.from_pretrained(str(f)) for t, f in folders.items()}


def hf_ids(tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict] | None) -> list[int]:
    """``apply_chat_template(tokenize=True)``; with a null in the messages, the same rendering
    without the step that drops null keys (``transformers`` >= 5.24 drops them, so DeepSeek-V3's
    template fails on OpenAI's ``content: null``; earlier versions, and vLLM's, pass the null)."""
    if not any(v is None for m in messages for v in m.values()):
        return tokenizer.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=False,
                                             add_generation_prompt=True)
    from transformers.utils.chat_template_utils import render_jinja_template

    rendered, _ = render_jinja_template(
        conversations=[messages], tools=tools, chat_template=tokenizer.chat_template,
        add_generation_prompt=True, **tokenizer.special_tokens_map)
    return tokenizer.encode(rendered[0], add_special_tokens=False)


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
@pytest.mark.parametrize("template", sorted(TRAITS))
def test_ids_equal_transformers(template: str, name: str, folders, tokenizers) -> None:
    case = CONVERSATIONS[name]
    model = load_model(folders[template])
    request = ChatCompletionRequest(model=model.name, **copy.deepcopy(case))
    try:
        expected = hf_ids(tokenizers[template], reference_messages(name, template),
                          reference_tools(case.get("tools")))
    except Exception as exc:  # the template refuses the conversation: tito must refuse it too
        with pytest.raises(BadRequest):
            render_chat_request(request, model=model, settings=RenderSettings())
        assert not isinstance(exc, AssertionError)
        return
    assert render_chat_request(request, model=model, settings=RenderSettings()).token_ids == expected


def test_template_traits_detected() -> None:
    from tito.core.template import compile_template

    for template, (_, null_content, string_args, developer, parts) in TRAITS.items():
        if template == "qwen3":
            continue
        compiled = compile_template((TEMPLATES_DIR / f"{template}.jinja").read_text())
        assert compiled.tests_content_none is null_content, template
        assert compiled.wants_string_arguments is string_args, template
        assert compiled.mentions_developer_role is developer, template
        assert (compiled.content_format == "openai") is parts, template


def test_deepseek_keeps_earlier_tool_calls_and_the_clients_argument_text(folders) -> None:
    model = load_model(folders["deepseek_v3"])
    case = copy.deepcopy(CONVERSATIONS["tool_call_null_content"])
    ids = render_chat_request(ChatCompletionRequest(model=model.name, **case), model=model,
                              settings=RenderSettings()).token_ids
    text = model.vocab.decode(ids, skip_special_tokens=False)
    assert '```json\n{"city":"Paris"}\n```' in text
