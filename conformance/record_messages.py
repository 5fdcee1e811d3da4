"""Record vLLM 0.33.0's ``POST /v1/messages/render`` answers (Anthropic Messages -> GenerateRequest)
as goldens: ``conformance/goldens/render_messages.json`` and ``render_messages_errors.json``.

Why a recorder of its own: the Messages corpus is one route on one server (qwen3 with
``--reasoning-parser qwen3 --tool-call-parser hermes --enable-auto-tool-choice``, the
conformance server of :mod:`conformance.record`, whose helpers start it);
``tests/test_messages_render.py`` replays the stored requests against tito and compares field by
field with :mod:`conformance.replay`'s normalization. A second server runs the same model with
a plain ChatML ``--chat-template`` (:data:`CHATML`) that takes system messages anywhere and
ignores ``reasoning_effort``, so both of vLLM's per-model probes go the other way there (inline
system messages stay in place; disabled thinking becomes effort ``low``):
``render_messages_chatml.json`` (the template is stored with the goldens). The conversion alone
is recorded too: vLLM's ``AnthropicServingMessages.to_chat_completion_request`` (imported, no
server) on every request of the corpus, with inline-system merging on and off:
``anthropic_to_chat.json``, checked against :mod:`tito.core.anthropic` by
``tests/test_anthropic_convert.py``.

Re-record (any Python with vllm==0.33.0)::

    /work/vllm-venv/bin/python conformance/record_messages.py              # starts a server
    /work/vllm-venv/bin/python conformance/record_messages.py --url http://127.0.0.1:8831 \
        --chatml-url http://127.0.0.1:8832                  # reuse running servers
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance.calls import request as post  # noqa: E402
from conformance.record import (  # noqa: E402
    SERVERS,
    _free_port,
    model_folder,
    start_server,
    wait_ready,
)

PATH = "/v1/messages/render"
GOLDENS = HERE / "goldens"


def _req(messages: Any = None, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "max_tokens": 128,
                            "messages": messages if messages is not None
                            else [{"role": "user", "content": "What is the weather in Paris?"}]}
    body.update(fields)
    return body


def _u(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def _a(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


WEATHER = {"name": "get_weather", "description": "Current weather of a city",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}
TIME = {"name": "get_time", "input_schema": {"properties": {"tz": {"type": "string"}}}}
USE = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}
IMG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
BILLING = "x-anthropic-billing-header: cc_version=1.0.0; cch=abc123;"


def _tool_turn(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [_u("What is the weather in Paris?"), _a([USE]),
            _u([{"type": "tool_result", "tool_use_id": "toolu_01", **result}])]


RENDER: dict[str, dict[str, Any]] = {
    "plain": _req(),
    "system_string": _req(system="You are terse."),
    "system_blocks": _req(system=[{"type": "text", "text": "You are terse. "},
                                  {"type": "text", "text": "Answer in French."}]),
    "system_blocks_billing": _req(system=[{"type": "text", "text": BILLING},
                                          {"type": "text", "text": "You are terse."}]),
    "system_string_billing": _req(system=BILLING + " You are terse."),
    "system_empty_blocks": _req(system=[{"type": "text", "text": ""}]),
    "inline_system": _req([_u("Hi"), _a("Hello!"), {"role": "system", "content": "Be brief."},
                           _u("Tell me a joke.")], system="You are a comedian."),
    "inline_system_blocks": _req([{"role": "system", "content": [
        {"type": "text", "text": BILLING}, {"type": "text", "text": "Reminder: be brief."}]},
        _u("Hi")]),
    "inline_system_billing_only": _req([{"role": "system", "content": BILLING}, _u("Hi")]),
    "multi_turn": _req([_u("Hi"), _a("Hello! How can I help?"), _u("Name a colour.")]),
    "text_blocks": _req([_u([{"type": "text", "text": "First part."},
                             {"type": "text", "text": "Second part."}])]),
    "empty_text_block": _req([_u([{"type": "text", "text": ""},
                                  {"type": "text", "text": "Only this."}])]),
    "assistant_blocks": _req([_u("Hi"), _a([{"type": "text", "text": "Hello"},
                                            {"type": "text", "text": " there"}]), _u("Bye")]),
    "assistant_thinking": _req([_u("2+2?"), _a([
        {"type": "thinking", "thinking": "Simple sum.", "signature": "sig"},
        {"type": "text", "text": "4"}]), _u("And 3+3?")]),
    "assistant_redacted_thinking": _req([_u("2+2?"), _a([
        {"type": "redacted_thinking", "data": "opaque"}, {"type": "text", "text": "4"}]),
        _u("And 3+3?")]),
    "assistant_prefill": _req([_u("Write a haiku."), _a("Autumn")]),
    "tool_result_string": _req(_tool_turn({"content": "18 C, sunny"}), tools=[WEATHER]),
    "tool_result_list": _req(_tool_turn({"content": [{"type": "text", "text": "18 C"},
                                                     {"type": "text", "text": "sunny"}]}),
                             tools=[WEATHER]),
    "tool_result_is_error": _req(_tool_turn({"content": "city not found", "is_error": True}),
                                 tools=[WEATHER]),
    "tool_result_empty": _req(_tool_turn({}), tools=[WEATHER]),
    "tool_result_tool_reference": _req(_tool_turn({"content": [
        {"type": "text", "text": "see tool"}, {"type": "tool_reference", "tool_name": "get_time"}]}),
        tools=[WEATHER, TIME]),
    "tool_result_and_text": _req([_u("Weather?"), _a([USE]), _u([
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18 C"},
        {"type": "text", "text": "Thanks, and tomorrow?"}])], tools=[WEATHER]),
    "assistant_tool_result": _req([_u("Weather?"), _a([
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18 C"}]), _u("So?")]),
    "tool_use_text_and_thinking": _req([_u("Weather in Paris?"), _a([
        {"type": "thinking", "thinking": "I should call the tool."},
        {"type": "text", "text": "Let me check."}, USE]),
        _u([{"type": "tool_result", "tool_use_id": "toolu_01", "content": "18 C"}])],
        tools=[WEATHER]),
    "tool_use_parallel": _req([_u("Weather in Paris and Rome?"), _a([
        USE, {**USE, "id": "toolu_02", "input": {"city": "Rome"}}]), _u([
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18 C"},
        {"type": "tool_result", "tool_use_id": "toolu_02", "content": "25 C"}])],
        tools=[WEATHER]),
    "tool_use_no_input": _req([_u("Time?"), _a([{"type": "tool_use", "id": "toolu_09",
                                                 "name": "get_time"}]),
                               _u([{"type": "tool_result", "tool_use_id": "toolu_09",
                                    "content": "noon"}])], tools=[TIME]),
    "tool_use_no_id": _req([_u("Time?"), _a([{"type": "tool_use", "name": "get_time",
                                              "input": {"tz": "UTC"}}]),
                            _u([{"type": "tool_result", "content": "noon"}])], tools=[TIME]),
    "tool_use_unicode": _req([_u("Météo à Zürich ?"), _a([{**USE, "input": {"city": "Zürich"}}]),
                              _u([{"type": "tool_result", "tool_use_id": "toolu_01",
                                   "content": "18 °C ☀"}])], tools=[WEATHER]),
    "tools_auto": _req(tools=[WEATHER]),
    "tool_choice_auto": _req(tools=[WEATHER, TIME], tool_choice={"type": "auto"}),
    "tool_choice_any": _req(tools=[WEATHER, TIME], tool_choice={"type": "any"}),
    "tool_choice_tool": _req(tools=[WEATHER, TIME],
                             tool_choice={"type": "tool", "name": "get_weather"}),
    "tool_choice_none": _req(tools=[WEATHER], tool_choice={"type": "none"}),
    "tool_choice_disable_parallel": _req(tools=[WEATHER], tool_choice={
        "type": "auto", "disable_parallel_tool_use": True}),
    "tool_choice_any_no_parallel": _req(tools=[WEATHER, TIME], tool_choice={
        "type": "any", "disable_parallel_tool_use": True}),
    "tool_choice_any_no_tools": _req(tool_choice={"type": "any"}),
    "tool_choice_tool_no_tools": _req(tool_choice={"type": "tool", "name": "get_weather"}),
    "tools_schema_no_type": _req(tools=[TIME]),
    "tools_strict": _req(tools=[{**WEATHER, "strict": True}], tool_choice={"type": "auto"}),
    "tools_defer_loading": _req(tools=[WEATHER, {**TIME, "defer_loading": True}]),
    "tools_empty_list": _req(tools=[]),
    "tool_addition_definition": _req([{"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": TIME}}]},
        _u("What time is it?")], tools=[WEATHER]),
    "tool_addition_reference": _req([{"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "get_time"}}]},
        _u("What time is it?")], tools=[WEATHER, {**TIME, "defer_loading": True}]),
    "tool_removal": _req([{"role": "system", "content": [
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "get_time"}}]},
        _u("Weather?")], tools=[WEATHER, TIME]),
    "thinking_enabled": _req(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}),
    "thinking_enabled_display": _req(max_tokens=4096, thinking={
        "type": "enabled", "budget_tokens": 1024, "display": "omitted"}),
    "thinking_disabled": _req(thinking={"type": "disabled"}),
    "thinking_adaptive": _req(thinking={"type": "adaptive"}),
    "thinking_disabled_effort": _req(thinking={"type": "disabled"},
                                     output_config={"effort": "high"}),
    "output_config_effort": _req(output_config={"effort": "low"}),
    "output_config_format": _req(output_config={"format": {"type": "json_schema", "schema": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}),
    "output_config_format_tools": _req(tools=[WEATHER], output_config={"format": {
        "type": "json_schema", "schema": {"type": "object"}}}),
    "stop_sequences": _req(stop_sequences=["\n\nHuman:", "END"]),
    "sampling": _req(temperature=0.3, top_p=0.9, top_k=40),
    "temperature_zero": _req(temperature=0.0),
    "max_tokens_one": _req(max_tokens=1),
    "metadata": _req(metadata={"user_id": "u-123"}),
    "stream": _req(stream=True),
    "stream_false": _req(stream=False),
    "vllm_extensions": _req(cache_salt="salt-123", vllm_xargs={"k": 1}, priority=3,
                            kv_transfer_params={"do_remote_prefill": True}),
    "chat_template_kwargs": _req(chat_template_kwargs={"enable_thinking": False}),
    "watermarking": _req(watermarking=True),
    "return_mm_kwargs_false": _req(return_mm_kwargs=False),
    "unknown_fields": _req(service_tier="auto", container="c1"),
    "unicode": _req([_u("Привет, 世界! 🌍")], system="Réponds en français."),
    "prefill_leg_budget": _req(max_tokens=1, thinking={"type": "enabled", "budget_tokens": 2048},
                               kv_transfer_params={"do_remote_decode": True}),
}

RENDER_ERRORS: dict[str, dict[str, Any]] = {
    "max_tokens_missing": {"model": "qwen3", "messages": [_u("Hi")]},
    "max_tokens_zero": _req(max_tokens=0),
    "max_tokens_too_large": _req(max_tokens=10**6),
    "model_missing": {"max_tokens": 8, "messages": [_u("Hi")]},
    "model_empty": _req(model=""),
    "model_unknown": _req(model="claude-3"),
    "messages_missing": {"model": "qwen3", "max_tokens": 8},
    "messages_empty": _req([]),
    "messages_not_list": _req("Hi"),
    "empty_blocks": _req([_u([])]),
    "bad_role": _req([{"role": "tool", "content": "x"}]),
    "content_not_text": _req([_u(5)]),
    "block_bad_type": _req([_u([{"type": "video", "text": "x"}])]),
    "image_base64": _req([_u([{"type": "image", "source": IMG},
                              {"type": "text", "text": "What is this?"}])]),
    "image_url": _req([_u([{"type": "image", "source": {"type": "url",
                                                        "url": "https://example.com/a.png"}},
                           {"type": "text", "text": "What is this?"}])]),
    "tool_result_image": _req(_tool_turn({"content": [{"type": "text", "text": "a chart"},
                                                      {"type": "image", "source": IMG}]}),
                              tools=[WEATHER]),
    "thinking_budget_small": _req(thinking={"type": "enabled", "budget_tokens": 100}),
    "thinking_budget_ge_max": _req(max_tokens=2000, thinking={"type": "enabled",
                                                              "budget_tokens": 3000}),
    "thinking_bad_type": _req(thinking={"type": "sometimes"}),
    "thinking_no_budget": _req(thinking={"type": "enabled"}),
    "tool_choice_tool_no_name": _req(tools=[WEATHER], tool_choice={"type": "tool"}),
    "tool_choice_bad_type": _req(tools=[WEATHER], tool_choice={"type": "required"}),
    "tool_choice_unknown_tool": _req(tools=[WEATHER], tool_choice={"type": "tool",
                                                                  "name": "nope"}),
    "stop_sequences_too_many": _req(stop_sequences=["a", "b", "c", "d", "e"]),
    "tool_missing_schema": _req(tools=[{"name": "f"}]),
    "tool_schema_not_object": _req(tools=[{"name": "f", "input_schema": "object"}]),
    "tool_addition_in_user": _req([_u([{"type": "tool_addition", "tool": {
        "type": "tool_reference", "name": "get_weather"}}])], tools=[WEATHER]),
    "tool_addition_in_system_field": _req(system=[{"type": "tool_addition", "tool": {
        "type": "tool_reference", "name": "get_weather"}}], tools=[WEATHER]),
    "tool_addition_no_tool": _req([{"role": "system", "content": [{"type": "tool_addition"}]},
                                   _u("Hi")]),
    "tool_removal_definition": _req([{"role": "system", "content": [{"type": "tool_removal",
        "tool": {"type": "tool_definition", "definition": TIME}}]}, _u("Hi")]),
    "tool_removal_unknown": _req([{"role": "system", "content": [{"type": "tool_removal",
        "tool": {"type": "tool_reference", "name": "nope"}}]}, _u("Hi")], tools=[WEATHER]),
    "cache_salt_empty": _req(cache_salt=""),
    "output_config_bad_effort": _req(output_config={"effort": "extreme"}),
    "temperature_string": _req(temperature="hot"),
    "stream_not_bool": _req(stream="yes"),
    "system_not_text": _req(system=5),
    "tool_use_input_not_object": _req([_u("Hi"), _a([{**USE, "input": "Paris"}]), _u("ok")]),
}


#: A ChatML template without thinking or tools: accepts a system message anywhere, ignores
#: ``reasoning_effort`` (so "none" renders as every effort does).
CHATML = ("{%- for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + "
          "message['content'] + '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}"
          "{{ '<|im_start|>assistant\\n' }}{%- endif %}")
CHATML_CASES = ("plain", "multi_turn", "inline_system", "inline_system_blocks",
                "inline_system_billing_only", "system_blocks_billing", "thinking_disabled",
                "thinking_disabled_effort", "output_config_effort", "tool_result_string")


def start_chatml(vllm: str, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The qwen3 conformance server with :data:`CHATML` as its ``--chat-template``."""
    folder = model_folder("qwen3", tmp / "chatml")
    template = tmp / "chatml.jinja"
    template.write_text(CHATML)
    port = _free_port()
    log = open(tmp / "chatml.log", "wb")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen(
        [vllm, "launch", "render", str(folder), *SERVERS["qwen3"], "--chat-template",
         str(template), "--host", "127.0.0.1", "--port", str(port)],
        env=dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1"),
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    return proc, f"http://127.0.0.1:{port}"


def record(url: str, chatml_url: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    chatml = {name: RENDER[name] for name in CHATML_CASES}
    for group, corpus, server in (("render_messages", RENDER, url),
                                  ("render_messages_errors", RENDER_ERRORS, url),
                                  ("render_messages_chatml", chatml, chatml_url)):
        out[group] = {}
        for name, body in corpus.items():
            status, resp = post(server, PATH, body)
            out[group][name] = {"server": "qwen3", "path": PATH, "request": body,
                                "status": status, "response": resp}
            print(f"{group}/{name}: {status}")
    return out


def record_conversions() -> dict[str, Any]:
    """vLLM's chat request for each corpus request (the fields it set), merging on and off."""
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    import vllm  # noqa: F401  (initialises vLLM's import order)
    from vllm.entrypoints.anthropic.protocol import AnthropicMessagesRequest
    from vllm.entrypoints.anthropic.serving import AnthropicServingMessages

    out: dict[str, Any] = {}
    for name, body in RENDER.items():
        for merge in (True, False):
            request = AnthropicMessagesRequest.model_validate(body)
            chat = AnthropicServingMessages.to_chat_completion_request(
                request, merge_inline_system=merge, disabled_thinking_effort="none")
            out[f"{name}.{'merged' if merge else 'inline'}"] = {
                "request": body, "merge_inline_system": merge,
                "chat": chat.model_dump(mode="json", exclude_unset=True)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vllm", default=str(Path(sys.executable).with_name("vllm")))
    ap.add_argument("--url", help="a running qwen3 render server (else one is started)")
    ap.add_argument("--chatml-url", help="a running one with --chat-template CHATML")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tito-messages-"))
    procs = []
    try:
        url, chatml_url = args.url, args.chatml_url
        if url is None:
            proc, url = start_server("qwen3", args.vllm, tmp)
            procs.append((proc, url))
        if chatml_url is None:
            proc, chatml_url = start_chatml(args.vllm, tmp)
            procs.append((proc, chatml_url))
        for proc, started in procs:
            wait_ready(started, proc)
        goldens = record(url, chatml_url)
        goldens["anthropic_to_chat"] = record_conversions()
        with urllib.request.urlopen(url + "/version") as r:
            version = json.loads(r.read())
        for group, cases in goldens.items():
            path = GOLDENS / f"{group}.json"
            data: dict[str, Any] = {"vllm": version, "cases": cases}
            if group == "render_messages_chatml":
                data["chat_template"] = CHATML
            path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
            print(f"{path.relative_to(HERE.parent)}: {len(cases)} cases")
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
