"""A string the model left open in a ``<tool_calls>[...]</tool_calls>`` list (hunyuan_a13b and
jamba, which shares its grammar), cut anywhere.

Why: a dropped opening quote (``{"city":Paris"}}]``) made the closing one open a string that
ran to the end of the output, so the call's arguments took ``</tool_calls>``, every later
section's calls and the text after them (parser fuzz seed 177, ``fuzz/hunyuan_a13b/0``).
vLLM's regex ends a section at the first ``</tool_calls>``, inside a string too; tito's string
now ends there: the broken call keeps what the model wrote before the marker, the later calls
are read, the text outside the sections is content (goldens ``hunyuan_a13b/ld52_*`` recorded
from vLLM 0.33, their deviation in ``parser_deviations_lead52``). Markup never reaches the
arguments, batch or stream.
"""

from __future__ import annotations

import pytest
from helpers import drive_tools

from tito.core.parsers.tools import make_tool_parser

_S, _E = "<tool_calls>", "</tool_calls>"
_OPEN = '[{"name": "get_weather", "arguments": {"city":Paris"}}]'
_GOOD = '[{"name": "get_time", "arguments": {}}, {"name": "get_weather", "arguments": {"x": 1}}]'
_TEXTS = {
    "one": (f"a{_S}{_OPEN}{_E}tail", "atail", ["get_weather"]),
    "then_calls": (f"a{_S}{_OPEN}{_E}mid{_S}{_GOOD}{_E}end", "amidend",
                   ["get_weather", "get_time", "get_weather"]),
    "unclosed": (f"a{_S}{_OPEN}", "a", ["get_weather"]),
}


@pytest.mark.parametrize("name", ["hunyuan_a13b", "jamba"])
@pytest.mark.parametrize("key", list(_TEXTS))
def test_an_open_string_ends_at_the_section_end(name: str, key: str) -> None:
    text, content, names = _TEXTS[key]
    parser = make_tool_parser(name)
    batch = drive_tools(parser, [text])
    assert batch[0] == content
    assert [n for n, _ in batch[1]] == names
    assert not any(m in args for _, args in batch[1] for m in (_S, _E, "mid", "tail"))
    for k in range(len(text) + 1):
        assert drive_tools(parser, [text[:k], text[k:], ""]) == batch, k
