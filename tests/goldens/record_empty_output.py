"""Record ``empty_output_vllm.json``: what vLLM 0.33.0's composed parser makes of an empty output.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_empty_output.py

An output whose text is empty (only an EOS, or everything cut by a stop string) reaches vLLM's
batch chat derender as ``parser.parse("")``; whether the message's ``content`` (and
``reasoning``) is then ``""`` or null depends on the parsers: engine-based ones return null,
legacy ones the text as is, a disabled reasoning parser passes it on. For every tool parser
alone (with one tool, ``tool_choice`` auto, and without tools), every reasoning parser alone and every pair of
``conformance/fuzz_parser_cases.PAIRS`` and Muse's (muse, musespark1x, muse_glimmer with
themselves) and Inkling's (inkling with itself), with and without tools, and every reasoning parser (Muse's too) with
``qwen3_coder`` (engine-based; not Inkling's, which pairs with nothing else), thinking on (no template kwargs) and off (every switch tito reads
set off), this stores ``[reasoning, content]`` as
``parse("")`` returns them (``tests/test_empty_output.py`` holds tito's batch answers to it).
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "conformance"), str(ROOT / "src")]

from fuzz_parser_cases import PAIRS  # noqa: E402
from parser_cases import MARKERS  # noqa: E402
from record_parsers import tokenizer  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

from tito.core.parsers import (  # noqa: E402
    INKLING_REASONING_PARSERS, MUSE_REASONING_PARSERS, reasoning_formats, tools)

OUT = HERE / "empty_output_vllm.json"
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"a": {"type": "string"}}}}}]
#: every thinking switch tito's reasoning formats read, off
OFF = {"enable_thinking": False, "thinking": False, "reasoning_effort": "no_think",
       "thinking_mode": "disabled"}
#: an engine-based tool parser (its parse("") content is null): paired with each reasoning
#: parser, the content says whether the reasoning parser is engine-based too
ENGINE_TOOL = "qwen3_coder"


def parse_empty(tool: str | None, reasoning: str | None, kwargs: dict, with_tools: bool) -> list:
    """``[reasoning, content]`` of vLLM's ``parse("")``."""
    markers: list[str] = []
    for key in (tool, reasoning):
        markers += [m for m in MARKERS.get(key or "", []) if m not in markers]
    tok = tokenizer(markers)
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning,
                                   enable_auto_tools=tool is not None)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=TOOLS if with_tools else None,
                                    chat_template_kwargs=kwargs or None)
    parser = cls(tok, request.tools, chat_template_kwargs=kwargs)
    got_reasoning, content, _ = parser.parse("", request, enable_auto_tools=tool is not None)
    return [got_reasoning, content]


#: every reasoning parser name: the text parsers' table and the Muse router's names
REASONING = sorted({*reasoning_formats.REASONING_PARSERS, *MUSE_REASONING_PARSERS,
                    *INKLING_REASONING_PARSERS})
#: Muse's and Inkling's pairs (a router reads both names; some are in the fuzzer's PAIRS too,
#: recorded once: the loop below takes each pair once)
MUSE_PAIRS = [(name, name) for name in sorted(MUSE_REASONING_PARSERS | INKLING_REASONING_PARSERS)]


def main() -> int:
    cases = []
    for tool in sorted(tools.TOOL_PARSERS):
        for with_tools in (True, False):
            cases.append({"tool": tool, "reasoning": None, "thinking": True,
                          "tools": with_tools})
    for reasoning in REASONING:
        for thinking in (True, False):
            cases.append({"tool": None, "reasoning": reasoning, "thinking": thinking,
                          "tools": False})
    for tool, reasoning in dict.fromkeys([*PAIRS, *MUSE_PAIRS]):
        for thinking in (True, False):
            for with_tools in (True, False):
                cases.append({"tool": tool, "reasoning": reasoning, "thinking": thinking,
                              "tools": with_tools})
    for reasoning in REASONING:  # is it engine-based?
        if (ENGINE_TOOL, reasoning) not in PAIRS and reasoning not in INKLING_REASONING_PARSERS:
            for thinking in (True, False):
                cases.append({"tool": ENGINE_TOOL, "reasoning": reasoning, "thinking": thinking,
                              "tools": False})
    kept = []
    for case in cases:
        kwargs = {} if case["thinking"] else OFF
        try:
            case["vllm"] = parse_empty(case["tool"], case["reasoning"], kwargs, case["tools"])
        except ValueError as exc:  # kwargs the class refuses (k2_horizon: reasoning_effort
            print(f"not recorded: {case}: {exc}")  # 'no_think'): a request vLLM rejects
            continue
        kept.append(case)
    cases = kept
    OUT.write_text(json.dumps({"vllm": "0.33.0", "cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
