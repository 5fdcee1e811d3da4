"""Record ``<model>_render_vllm.json``: vLLM 0.33.0's native chat renders (DeepSeek, Inkling).

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_dsv32_render.py [--model dsv4|dsv41|inkling] \
        [--url http://127.0.0.1:18126 | --port 18140]

vLLM 0.33 renders a folder whose ``config.json`` names ``DeepseekV32ForCausalLM`` with its own
encoding (``tokenizer_mode`` ``deepseek_v32``: ``tokenizers/deepseek_v32_encoding.py``), and
``DeepseekV4ForCausalLM`` with ``deepseek_v4``'s, ``DeepseekV41ForCausalLM`` with
``deepseek_v41``'s, ``InklingForCausalLM`` with ``inkling``'s (to ids), not a Jinja template.
This starts ``vllm launch render`` (GPU-less) on Qwen3's tokenizer files with
``conformance/models/<model>/config.json`` (that architecture, its sizes; Qwen3's chat template
taken out; no weights; for Inkling, its chat tokens added as special tokens:
``conformance.markers.inkling_folder``) and the model's parsers (:data:`MODELS`), posts its
cases to ``/v1/chat/completions/render`` (and some to ``/tokenize``, ``/v1/responses/render``,
``/v1/messages/render`` and, for DeepSeek-V4 / V4.1's fill-in-the-middle ``suffix``,
``/v1/completions/render``) and stores each status with its ``token_ids`` (or the error).
``tests/test_render_<model>.py`` renders them with tito on the same files.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
import dsv4_render_cases as v4  # noqa: E402
import dsv41_render_cases as v41  # noqa: E402
import inkling_render_cases as ink  # noqa: E402

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {}}}}
CALLS = [{"id": "call_1", "type": "function", "function": {
              "name": "get_weather", "arguments": '{"city": "Köln", "days": 3}'}},
         {"id": "call_2", "type": "function", "function": {
              "name": "get_time", "arguments": "{}"}}]
AGENT = [{"role": "user", "content": "Weather in Köln, and the time?"},
         {"role": "assistant", "content": None, "reasoning": "Two tools.", "tool_calls": CALLS},
         {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21°C"},
         {"role": "tool", "tool_call_id": "call_2", "content": "12:00"}]
THINK = {"thinking": True}

#: name -> request body (``model`` added)
CASES: dict[str, dict] = {
    "user": {"messages": [{"role": "user", "content": "Hi"}]},
    "system_user": {"messages": [{"role": "system", "content": "Be brief."},
                                 {"role": "user", "content": "Hi"}]},
    "multi_turn": {"messages": [{"role": "user", "content": "Hi"},
                                {"role": "assistant", "content": "Hello! 😀"},
                                {"role": "user", "content": "中文?"}]},
    "multi_turn_reasoning": {"messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "reasoning": "greet back"},
        {"role": "user", "content": "Again"}]},
    "tools": {"messages": [{"role": "user", "content": "Weather?"}], "tools": [WEATHER, TIME]},
    "tools_system": {"messages": [{"role": "system", "content": "Sys."},
                                  {"role": "user", "content": "Weather?"}], "tools": [WEATHER]},
    "agent_loop": {"messages": AGENT, "tools": [WEATHER, TIME]},
    "agent_answered": {"messages": [*AGENT, {"role": "assistant", "content": "Sunny, noon."},
                                    {"role": "user", "content": "Thanks"}],
                       "tools": [WEATHER, TIME]},
    "think_user": {"messages": [{"role": "user", "content": "Hi"}], "chat_template_kwargs": THINK},
    "enable_thinking": {"messages": [{"role": "user", "content": "Hi"}],
                        "chat_template_kwargs": {"enable_thinking": True}},
    "think_multi_turn": {"messages": [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "reasoning": "greet back"},
        {"role": "user", "content": "Again"}], "chat_template_kwargs": THINK},
    "think_agent_loop": {"messages": AGENT, "tools": [WEATHER, TIME],
                         "chat_template_kwargs": THINK},
    "think_agent_answered": {"messages": [
        *AGENT, {"role": "assistant", "content": "Sunny.", "reasoning": "done"},
        {"role": "user", "content": "Thanks"}], "tools": [WEATHER, TIME],
        "chat_template_kwargs": THINK},
    "reasoning_content_name": {"messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "reasoning_content": "rc"},
        {"role": "user", "content": "x"}]},
    "developer": {"messages": [{"role": "developer", "content": "Dev rules."},
                               {"role": "user", "content": "Hi"}]},
    "developer_last": {"messages": [{"role": "user", "content": "Hi"},
                                    {"role": "developer", "content": "Now answer."}]},
    "think_developer_dropped": {"messages": [
        {"role": "developer", "content": "Dev."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "A", "reasoning": "r"},
        {"role": "user", "content": "B"}], "chat_template_kwargs": THINK},
    "text_parts": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]}]},
    "typed_arguments": {"messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "Calling.", "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(
                {"city": "東京", "days": 2, "flag": True, "none": None, "list": [1, "a"],
                 "obj": {"k": 1.5}}, ensure_ascii=False)}}]},
        {"role": "tool", "tool_call_id": "c", "content": "{\"ok\": true}"},
        {"role": "user", "content": "and?"}], "tools": [WEATHER]},
    "tool_choice_none": {"messages": [{"role": "user", "content": "Weather?"}],
                         "tools": [WEATHER], "tool_choice": "none"},
    "tool_choice_required": {"messages": [{"role": "user", "content": "Weather?"}],
                             "tools": [WEATHER], "tool_choice": "required"},
    "no_generation_prompt": {"messages": [{"role": "user", "content": "Hi"}],
                             "add_generation_prompt": False},
    "continue_final": {"messages": [{"role": "user", "content": "Hi"},
                                    {"role": "assistant", "content": "Hel"}],
                       "add_generation_prompt": False, "continue_final_message": True},
    "assistant_last": {"messages": [{"role": "user", "content": "Hi"},
                                    {"role": "assistant", "content": "Hello"}]},
    "empty_messages": {"messages": []},
    "user_null_content": {"messages": [{"role": "system", "content": "s"},
                                       {"role": "user", "content": "Hi"},
                                       {"role": "assistant", "content": None},
                                       {"role": "user", "content": "Hi"}]},
    # errors (vLLM's encoding refuses them)
    "think_assistant_without_reasoning": {"messages": [
        {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
        "chat_template_kwargs": THINK},
    "tool_without_calls": {"messages": [{"role": "user", "content": "Hi"},
                                        {"role": "assistant", "content": "x"},
                                        {"role": "tool", "tool_call_id": "q", "content": "r"}]},
    "too_many_tool_results": {"messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": CALLS[:1]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a"},
        {"role": "tool", "tool_call_id": "call_1", "content": "b"}]},
    "developer_empty": {"messages": [{"role": "developer", "content": ""},
                                     {"role": "user", "content": "Hi"}]},
    "arguments_not_json": {"messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "c", "type": "function", "function": {"name": "get_time", "arguments": "{oops"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "r"}]},
}


#: model -> (tool parser, reasoning parser, chat cases, /tokenize case names, bodies for the
#: other render endpoints: path -> name -> body)
MODELS: dict[str, tuple[str, str, dict[str, dict], list[str], dict[str, dict[str, dict]]]] = {
    "dsv32": ("deepseek_v32", "deepseek_v3", CASES, [], {}),
    "dsv4": ("deepseek_v4", "deepseek_v4", v4.CASES, v4.TOKENIZE,
             {"responses": v4.RESPONSES, "messages": v4.MESSAGES,
              "completions": v4.COMPLETIONS}),
    "dsv41": ("deepseek_v41", "deepseek_v41", v41.CASES, v41.TOKENIZE,
              {"responses": v41.RESPONSES, "messages": v41.MESSAGES,
               "completions": v4.COMPLETIONS}),
    "inkling": ("inkling", "inkling", ink.CASES, list(ink.CASES), {"responses": ink.RESPONSES}),
}


def _flags(name: str, tool_parser: str, reasoning_parser: str) -> list[str]:
    return ["--served-model-name", name, "--tool-call-parser", tool_parser,
            "--reasoning-parser", reasoning_parser, "--enable-auto-tool-choice"]


def _entry(body: dict, status: int, resp: dict | list, ids: str) -> dict:
    """A case's status and ids (a completions render's: one list per prompt), or its error."""
    if status == 200:
        return {"request": body, "status": status,
                ids: [r[ids] for r in resp] if isinstance(resp, list) else resp[ids]}
    return {"request": body, "status": status,
            "error": resp.get("error") if isinstance(resp, dict) else resp}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="dsv32", choices=sorted(MODELS))
    ap.add_argument("--url", help="a running render server with the model's flags on its folder")
    ap.add_argument("--port", type=int, help="the server's port (default: a free one)")
    args = ap.parse_args()
    tool_parser, reasoning_parser, cases, tokenize, others = MODELS[args.model]
    flags = _flags(args.model, tool_parser, reasoning_parser)
    out_file = HERE / f"{args.model}_render_vllm.json"
    from conformance import corpus, record
    from conformance.calls import request as post

    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"tito-{args.model}-"))
    proc = None
    try:
        url = args.url
        if url is None:
            folder = tmp / args.model
            corpus.native_folder(args.model, folder)  # (the tests' folder too)
            port = args.port or record._free_port()
            env = {"VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1"}
            proc = subprocess.Popen(
                [str(pathlib.Path(sys.executable).with_name("vllm")), "launch", "render",
                 str(folder), *flags, "--host", "127.0.0.1", "--port", str(port)],
                env={**__import__("os").environ, **env}, cwd=tmp,
                stdout=open(tmp / "log", "wb"), stderr=subprocess.STDOUT)  # noqa: SIM115
            url = f"http://127.0.0.1:{port}"
            record.wait_ready(url, proc)
        model = {"model": args.model}
        out: dict = {"vllm": "0.33.0", "flags": flags, "cases": {}}
        for name, body in cases.items():
            status, resp = post(url, "/v1/chat/completions/render", {**model, **body})
            out["cases"][name] = _entry(body, status, resp, "token_ids")
            print(name, status)
        fields = ("messages", "tools", "chat_template_kwargs", "add_generation_prompt",
                  "continue_final_message")
        for name in tokenize:
            body = {k: v for k, v in cases[name].items() if k in fields}
            status, resp = post(url, "/tokenize", {**model, **body})
            out.setdefault("tokenize", {})[name] = _entry(body, status, resp, "tokens")
            print("tokenize", name, status)
        for api, bodies in others.items():
            for name, body in bodies.items():
                status, resp = post(url, f"/v1/{api}/render", {**model, **body})
                out.setdefault(api, {})[name] = _entry(body, status, resp, "token_ids")
                print(api, name, status)
        out_file.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
        print(f"wrote {out_file} ({len(out['cases'])} cases)")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
