"""Parser cases: muse's quoted names as vLLM reads them (issue 10, session 46).

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/mu46_``).
"""

from __future__ import annotations

import parser_cases_muse as _muse

_P = "<atem:parameter"
_PC = "</atem:parameter>\n"

#: muse / muse_glimmer: a ``name="`` attribute runs to the next quote, ``>`` and newlines
#: included, as vLLM's ``_NAME_RE`` / ``_PARAM_RE`` read it (parser fuzz seed 137,
#: ``fuzz/muse/5``: tito ended a key missing its closing quote at ``>``); the invoke's end stops
#: it; an empty value gives way to a later attribute; parameters are found in the whole invoke
_INVOKES = {
    # the key swallows the next parameter's header up to its quote
    "key_unquoted": f'<atem:invoke name="get_weather">\n{_P} name="city>42{_PC}'
                    f'{_P} name="n">3{_PC}{_P} name="city">x{_PC}</atem:invoke>\n',
    # no quote before the invoke's end: no parameter
    "key_unquoted_to_end": f'<atem:invoke name="get_weather">\n{_P} name="city>Paris{_PC}'
                           "</atem:invoke>\n",
    # the key's quote, then the invoke's end before any ``>``: no parameter
    "key_then_invoke_end": f'<atem:invoke name="get_weather">\n{_P} name="city"</atem:invoke>\n',
    "key_empty_then_key": f'<atem:invoke name="get_weather">\n{_P} name="" name="city">x{_PC}'
                          "</atem:invoke>\n",
    "key_gt_in_attr": f'<atem:invoke name="get_weather">\n{_P} name="city" q="a>b">x{_PC}'
                      "</atem:invoke>\n",
    "key_data_name": f'<atem:invoke name="get_weather">\n{_P} data-name="city" name="n">3{_PC}'
                     "</atem:invoke>\n",
    # the invoke's name swallows the first parameter's header; the parameter is still read
    "name_unquoted": f'<atem:invoke name="get_weather>\n{_P} name="city">Paris{_PC}'
                     "</atem:invoke>\n",
    "name_unquoted_to_end": '<atem:invoke name="get_weather>\n</atem:invoke>\n',
    # the invoke's header without its ``>``
    "name_no_gt": f'<atem:invoke name="get_weather"\n{_P} name="city">Paris{_PC}'
                  "</atem:invoke>\n",
    "name_empty_then_name": f'<atem:invoke name="" name="get_weather">\n{_P} name="n">3{_PC}'
                            "</atem:invoke>\n",
}


def _text(invokes: str) -> str:
    return (f" to=self<|message|>think<|eom|>{_muse.A} to=get_weather<|message|>"
            f"{_muse.calls(invokes)}<|eom|>{_muse.A} to=user<|message|>ok<|eot|>")


#: a reasoning body ended by the next header, not by its ``<|eom|>``, whose tail is a piece of a
#: marker (parser fuzz seed 923, ``fuzz/muse_glimmer/11``): vLLM's composed parsers keep the
#: piece, its tool parser alone drops it in its stream (its held-back tail of an open body,
#: never released: the body is never closed); tito keeps it with either
_CALL = _muse.calls(_muse.invoke("get_weather", ("city", "Paris")))
_TAILS = {
    f"tail_{k}": f" to=self<|message|>Let me check.{piece}{_muse.A} to=get_weather<|message|>"
                 f"{_CALL}<|eom|>"
    for k, piece in (("eom", "<|eom|"), ("e", "<|e"), ("lt", "<"))
}

#: (tool, reasoning, id, text)
_CASES: list[tuple[str | None, str | None, str, str]] = [
    *(("muse", "muse", name, _text(body)) for name, body in _INVOKES.items()),
    ("muse", None, "key_unquoted", _text(_INVOKES["key_unquoted"])),
    ("muse_glimmer", "muse_glimmer", "key_unquoted", _text(_INVOKES["key_unquoted"])),
    ("muse_glimmer", "muse_glimmer", "name_unquoted", _text(_INVOKES["name_unquoted"])),
    *((tool, reasoning, name, text) for name, text in _TAILS.items()
      for tool, reasoning in (("muse", "muse"), ("muse", None), ("muse_glimmer", None))),
]


def cases() -> list[dict]:
    """The cases, ids ``TOOL[+REASONING]/mu46_NAME``."""
    return [{"id": f"{'+'.join(p for p in (tool, reasoning) if p)}/mu46_{name}", "tool": tool,
             "reasoning": reasoning, "tools": _muse.TOOLS, "text": text}
            for tool, reasoning, name, text in _CASES]
