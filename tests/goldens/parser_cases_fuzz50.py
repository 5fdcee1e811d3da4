"""Parser cases: what session 50 settled (issue 10), as fixed cases.

A module of its own (``parser_cases.CASES`` includes it). Expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py`` with the ids' prefixes: they hold ``/fz50_``).
"""

from __future__ import annotations

from parser_cases_muse import TOOLS

_OPEN, _CLOSE = "<dots_function_call>\n", "\n</dots_function_call>"
_CALL = '<invoke name="get_weather">\n'
_END = "\n</invoke>"

#: dots headers as vLLM's regexes read them (``<invoke\s+name\s*=\s*([^>]+)>``, the same for
#: ``<parameter``), their text by ``_extract_name`` (stripped, one pair of like quotes dropped):
#: found by hand in session 50; tito read a quoted value to its closing quote and fixed
#: ``<invoke name=`` / ``<parameter name=`` markers
_KEYS = {
    "key_quote_unclosed": '<parameter name="city>Paris</parameter>',
    "key_gt_in_quotes": '<parameter name="a>b">Paris</parameter>',
    "key_quote_inside": '<parameter name="a"b">Paris</parameter>',
    "key_quote_split": '<parameter name="c"ity>Paris</parameter>',
    "key_quote_mixed": "<parameter name='city\">Paris</parameter>",
    "key_quote_empty": '<parameter name="">Paris</parameter>',
    "key_quote_blank": '<parameter name=" ">Paris</parameter>',
    "key_bare_blank": "<parameter name= >Paris</parameter>",
    "key_bare_none": "<parameter name=>Paris</parameter>",
    "key_bare_lt": "<parameter name=<b>Paris</parameter>",
    "key_newlines": '<parameter name=\n"city"\n>Paris</parameter>',
    "key_spaced": '<parameter  name = "city">Paris</parameter>',
    "key_tab": '<parameter\tname="city">Paris</parameter>',
    "key_second_spaced": '<parameter name="city">Paris</parameter><parameter  name="days">3'
                         "</parameter>",
    "key_no_name": "<parameter>Paris</parameter>",
    "key_misspelt_marker": '<parameters name="city">Paris</parameter>',
}
_CALLS = {
    "name_spaced": '<invoke  name = "get_weather">\n<parameter name="city">Paris</parameter>'
                   "\n</invoke>",
    "name_newline": '<invoke\nname="get_weather">\n<parameter\tname="city">Paris</parameter>'
                    "\n</invoke>",
    "name_wide": "<invoke" + " " * 30 + 'name="get_weather">\n<parameter name="city">Paris'
                 "</parameter>\n</invoke>",
    "name_bare_newline": "<invoke name=get_weather\n>\n<parameter name=city>Paris</parameter>"
                         "\n</invoke>",
    "name_second_crlf": '<invoke name="get_weather"><parameter name="city">Paris</parameter>'
                        '</invoke><invoke\r\nname="get_weather"><parameter name="city">Rome'
                        "</parameter></invoke>",
}


def cases() -> list[dict]:
    """The cases, ids ``dots/fz50_NAME``."""
    texts = {name: _OPEN + _CALL + body + _END + _CLOSE for name, body in _KEYS.items()}
    texts |= {name: _OPEN + body + _CLOSE for name, body in _CALLS.items()}
    texts["name_spaced_after_text"] = "Hi " + texts["name_spaced"]
    return [{"id": f"dots/fz50_{name}", "tool": "dots", "reasoning": None, "tools": TOOLS,
             "text": text} for name, text in texts.items()]
