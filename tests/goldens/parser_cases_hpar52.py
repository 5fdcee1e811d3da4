"""Parser cases: whitespace between a call's arguments and its closers (session 52, helper
hpar; issue 10).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/hp52_``).
Found by the whitespace sweep (``parser_ws_sweep.py 217``, kimi_k2): kimi_k2 and plamo3 drop the
whitespace after a call's arguments JSON, but their ``tail`` held it with the closers' prefix
up to a bound (64 characters; plamo3 128): a longer run cut by a chunk ended the call there in
a stream, so the call's ``<|tool_call_end|>`` (plamo3's end markers) came out as content where
the batch consumed it. One token per delta reaches the bound.
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import TOOLS

_A = '{"city": "Paris"}'
_KB, _KE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
_KC, _KA, _KCE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
_PB, _PE = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
_PR, _PRE = "<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"
_PARGS_END = "<|plamo:end_tool_arguments:plamo|>"
_RUNS = {"nl": "\n" * 200, "sp": " " * 150 + "\n" * 3, "mixed": " \n\t" * 60}


def _kimi(idx: int, ws: str, name: str = "get_weather") -> str:
    """A Kimi-K2 call whose arguments JSON is followed by ``ws`` before its end marker."""
    return f"{_KC}functions.{name}:{idx}{_KA}{_A}{ws}{_KCE}"


def _plamo(ws_args: str, ws_req: str, name: str = "get_weather") -> str:
    """A PLaMo 3 request: ``ws_args`` after its JSON, ``ws_req`` after its arguments' end."""
    return (f"{_PR}<|plamo:begin_tool_name:plamo|>{name}<|plamo:end_tool_name:plamo|>"
            f"<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{_A}"
            f"{ws_args}{_PARGS_END}{ws_req}{_PRE}")


_CASES: list[tuple[str, str | None, str, str]] = [
    *(("kimi_k2", None, f"tail_ws_{k}", f"a{_KB}{_kimi(0, ws)}{_KE}") for k, ws in _RUNS.items()),
    ("kimi_k2", None, "tail_ws_two_calls",
     f"a{_KB}{_kimi(0, _RUNS['nl'])}{_kimi(1, _RUNS['sp'], 'get_time')}{_KE}"),
    ("kimi_k2", None, "tail_ws_section_end", f"a{_KB}{_KC}functions.get_weather:0{_KA}{_A}"
                                             f"{_RUNS['nl']}{_KE}"),
    ("kimi_k2", "kimi_k2", "tail_ws_think", f"<think>ok</think>a{_KB}{_kimi(0, _RUNS['nl'])}"
                                             f"{_KE}"),
    *(("plamo3", None, f"tail_ws_{k}", f"a{_PB}{_plamo(ws, '')}{_PE}") for k, ws in _RUNS.items()),
    ("plamo3", None, "tail_ws_after_args_end", f"a{_PB}{_plamo('', _RUNS['nl'])}{_PE}"),
    ("plamo3", None, "tail_ws_both", f"a{_PB}{_plamo(_RUNS['sp'], _RUNS['nl'])}"
                                     f"{_plamo(_RUNS['nl'], '', 'get_time')}{_PE}"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/hp52_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/hp52_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS, "text": text}
            for tool, reasoning, name, text in _CASES]
