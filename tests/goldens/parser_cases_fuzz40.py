"""Parser cases: what session 40 settled (issue 10), as fixed or documented cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz40_``); where
tito deliberately differs, ``parser_deviations_fuzz40`` says what tito gives and why
(docs/conformance.md names each rule).
"""

from __future__ import annotations

from parser_cases_fuzz9_granite_glm import TOOLS

_DSB, _DSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_CE = "<｜tool▁call▁end｜>"
_A = '{"city": "Paris"}'


def _open(args: str, name: str = "get_weather") -> str:
    """A DeepSeek-V3 call up to the end of its arguments ``args`` (no closing fence)."""
    return f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}"


def _ds3(args: str, name: str = "get_weather") -> str:
    """A whole DeepSeek-V3 call whose fenced arguments are ``args``."""
    return f"{_open(args, name)}\n```{_CE}"


_PB, _PE = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
_PR = "<|plamo:begin_tool_request:plamo|>"
_PN = "<|plamo:end_tool_name:plamo|>"


def _pcall(name: str) -> str:
    """A PLaMo 3 request from its name marker on (the request marker left to the case)."""
    return (f"<|plamo:begin_tool_name:plamo|>{name}<|plamo:end_tool_name:plamo|>"
            f"<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{_A}"
            "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>")


def _pargs(name: str, args: str) -> str:
    """:func:`_pcall` with the text ``args`` after its arguments marker."""
    return _pcall(name).replace(f"<|plamo:msg|>{_A}", f"<|plamo:msg|>{args}")


#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    # deepseek_v3: a trailing whitespace run of any length is the arguments' (vLLM's regex);
    # fixed: a run over 64 characters ended the call in tito's stream, not in its batch
    *(('deepseek_v3', None, f'args_ws_long_{k}', f"{_DSB}{_ds3(_A + run)}{_DSE}")
      for k, run in (('spaces', " " * 70), ('newlines', "\n" * 70), ('mixed', " \n\t" * 30),
                     ('huge', " " * 3000))),
    ('deepseek_v3', None, 'args_ws_long_second_call',
     f"{_DSB}{_ds3(_A + ' ' * 100)}{_ds3(_A + chr(10) * 3, 'get_time')}{_DSE}ok"),
    # the trailing run before a closer vLLM's regex does not accept (no fence, the fence on the
    # JSON's line, text after the fence): vLLM's batch runs the call on to the next
    # \n```<｜tool▁call▁end｜>; tito ends it at the closer, the run the arguments' (documented)
    ('deepseek_v3', None, 'args_ws_no_fence', f"{_DSB}{_open(_A + '   ' + _CE)}{_ds3(_A, 'get_time')}{_DSE}"),
    ('deepseek_v3', None, 'args_ws_newline_no_fence',
     f"{_DSB}{_open(_A + chr(10) + _CE)}{_ds3(_A, 'get_time')}{_DSE}"),
    ('deepseek_v3', None, 'args_ws_fence_same_line',
     f"{_DSB}{_open(_A + '   ```' + _CE)}{_ds3(_A, 'get_time')}{_DSE}"),
    ('deepseek_v3', None, 'args_ws_fence_then_space',
     f"{_DSB}{_open(_A + '   ' + chr(10) + '``` ' + _CE)}{_ds3(_A, 'get_time')}{_DSE}"),
    ('deepseek_v3', None, 'args_ws_fence_long_space',
     f"{_DSB}{_open(_A + chr(10) + '```' + ' ' * 80 + _CE)}{_ds3(_A, 'get_time')}{_DSE}"),
    # deepseek_v31: likewise its trailing run before <｜tool▁call▁end｜> (was dropped past 64)
    *(('deepseek_v31', None, f'args_ws_long_{k}',
       f"{_DSB}<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{_A}{run}{_CE}"
       f"<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{{}}{_CE}{_DSE}")
      for k, run in (('spaces', " " * 70), ('newlines', "\n" * 70), ('mixed', " \n\t" * 300))),
    # plamo3: text between a request marker and its name marker; vLLM's engine drops it in its
    # preamble and makes the call; tito made the request content (fixed: the text is content,
    # text_kept, and the call is made)
    ('plamo3', 'plamo3', 'request_junk',  # seed 115, plamo3+plamo3/3
     '<|plamo:begin_think:plamo|>ok\n\nCalling the tool now.\n\n<|plamo:begin_tool_requests:plamo|>'
     '<|plamo:begin_tool_request:plamo|>><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_too'
     'l_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\n  "c'
     'ity": "50% off & more",\n  "options": {\n    "k": []\n  },\n  "detailed": false,\n  "note": '
     '""\n}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_reque'
     'sts:plamo|>'),
    *(('plamo3', None, f'request_junk_{k}', f"a{_PB}{_PR}{junk}{_pcall('get_weather')}{second}{_PE}b")
      for k, junk, second in (
          ('text', 'x y', ''), ('ws_text', ' \n x', ''), ('second', '', f"{_PR}>{_pcall('get_time')}"),
          ('doubled_marker', _PR, ''), ('end_marker', '<|plamo:end_tool_name:plamo|>', ''),
          ('no_name', 'x', f"<|plamo:end_tool_request:plamo|>{_PR}{_pcall('get_time')}"))),
    # plamo3: likewise text between the name's end marker and the arguments marker (tito ended
    # the call with {} and made the arguments content; fixed)
    *(('plamo3', None, f'args_junk_{k}', f"a{_PB}{_PR}{_pcall('get_weather').replace(_PN, _PN + junk)}"
       f"{second}{_PE}b")
      for k, junk, second in (
          ('gt', '>', ''), ('spaced', ' > x  y ', ''), ('second', 'x', f"{_PR}{_pcall('get_time')}"))),
    ('plamo3', None, 'args_junk_no_args_marker',
     f"a{_PB}{_PR}<|plamo:begin_tool_name:plamo|>get_time<|plamo:end_tool_name:plamo|>x"
     f"<|plamo:end_tool_request:plamo|>{_PR}{_pcall('search')}{_PE}b"),
    # plamo3: text after the arguments marker that opens no JSON object (``<|plamo:msg|>>{}``, a
    # stray ``>``; session 48, parser fuzz seed 154, ``plamo3+plamo3/1``): vLLM's engine sends the
    # raw text as the arguments, not JSON (batch and stream); tito makes the call with ``{}`` and
    # keeps the text, to the next request, as content (documented: args_not_json)
    *(('plamo3', None, f'msg_junk_{k}', f"a{_PB}{_PR}{first}{second}{_PE}b")
      for k, first, second in (
          ('gt', _pargs('get_weather', '>' + _A), ''), ('text', _pargs('get_time', 'x y'), ''),
          ('then_call', _pargs('get_weather', '>' + _A), _PR + _pcall('get_time')),
          ('after_call', _pcall('get_time'), _PR + _pargs('get_weather', 'x{}')))),
    ('plamo3', 'plamo3', 'msg_junk_gt',
     f"<|plamo:begin_think:plamo|>ok<|plamo:end_think:plamo|>Sure.{_PB}{_PR}{_pcall('get_time')}"
     f"{_PR}{_pargs('get_weather', '>{}')}{_PE}"),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/fz40_NAME`` (``REASONING/fz40_NAME`` for a reasoning
    parser alone: no tool parser, no tools)."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/fz40_{name}", "tool": tool,
             "reasoning": reasoning, "tools": TOOLS if tool else [], "text": text}
            for tool, reasoning, name, text in _CASES]
