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


#: parameter tags spelt with whitespace inside, as vLLM's argument regexes read them (qwen3's
#: ``<\s*parameter\s*=`` / ``<\s*/\s*parameter\s*>``, minimax_m2's ``<\s*parameter\s+name\s*=``):
#: found by hand in session 50; tito read only ``<parameter=`` / ``</parameter>``. vLLM's stream
#: breaks on a spaced closer (its arguments are no JSON); the goldens compare its batch
_Q_PARAMS = {
    "spaced_open": "<parameter =city>\nParis\n</parameter>",
    "spaced_open_lt": "< parameter=city>\nParis\n</parameter>",
    "spaced_open_newline": "<parameter\n=city>\nParis\n</parameter>",
    "spaced_key": "<parameter= city >\nParis\n</parameter>",
    "spaced_close": "<parameter=city>\nParis\n< /parameter >",
    "spaced_close_then_param": "<parameter=city>\nParis\n</parameter >\n<parameter=days>\n3\n"
                               "</parameter>",
    "spaced_open_ends_value": "<parameter=city>\nParis\n<parameter =days>\n3\n</parameter>",
    "spaced_not_a_tag": "<parameter=city>\na <parameters> b < parameter c\n</parameter>",
}
_M_PARAMS = {
    "spaced_open": '<parameter  name="city">Paris</parameter>',
    "spaced_open_lt": '< parameter name="city">Paris</parameter>',
    "spaced_open_newline": '<parameter\nname = "city" >Paris</parameter>',
    "spaced_close": '<parameter name="city">Paris< /parameter >',
    "spaced_close_slash": '<parameter name="city">Paris</ parameter>',
    "spaced_open_ends_value": '<parameter name="city">Paris<parameter  name="days">3</parameter>',
    "spaced_close_then_param": '<parameter name="city">Paris</parameter >\n<parameter name="days">'
                               "3</parameter>",
    "spaced_not_a_tag": '<parameter name="city">a <parametername="x"> b</parameter>',
}
_Q_FORMATS = {"qwen3_coder": ("<tool_call>", "</tool_call>"),
              "qwen3_xml": ("<tool_call>", "</tool_call>"),
              "mimo": ("<tool_call>", "</tool_call>"),
              "seed_oss": ("<seed:tool_call>", "</seed:tool_call>")}


#: DSML invoke names not in double quotes right after ``name=`` (parser fuzz seed 169,
#: ``fuzz/deepseek_v41+deepseek_v41/4``: ``name=="not_a_tool"``): vLLM's call prefix is
#: ``name="``, so no call (tito named one ``="not_a_tool"``); tito keeps the text (text_kept)
_D = "｜DSML｜"
_DSML_FORMATS = {"deepseek_v32": (f"<{_D}function_calls>", f"<{_D}"),
                 "deepseek_v4": (f"<{_D}tool_calls>", f"<{_D}"),
                 "deepseek_v41": (f"<{_D} calls>", f"<{_D} ")}
DSML_NAMES = {"name_single_quoted": "'get_weather'", "name_bare": "get_weather",
              "name_doubled_equals": '=="get_weather"', "name_space_before_quote": ' "get_weather"'}


def dsml_text(tool: str, name: str) -> str:
    """A DSML section whose one invoke is named ``name=NAME`` (``DSML_NAMES``)."""
    sec, m = _DSML_FORMATS[tool]
    end = sec.replace("<", "</", 1)
    return (f"Sure. {sec}\n{m}invoke name={name}>\n{m}parameter name=\"city\" string=\"true\">"
            f"Paris</{m[1:]}parameter>\n</{m[1:]}invoke>\n{end}")


def xml_cases(tag: str, q_bodies: dict[str, str], m_bodies: dict[str, str]) -> list[dict]:
    """Parameter bodies in one call of each qwen3_coder-family format (``q_bodies``) and of
    minimax_m2 (``m_bodies``), ids ``TOOL/TAG_NAME`` (``parser_cases_hpar51`` reuses it)."""
    out = []
    for tool, (start, end) in _Q_FORMATS.items():
        out += [{"id": f"{tool}/{tag}_{name}", "tool": tool, "reasoning": None, "tools": TOOLS,
                 "text": f"{start}\n<function=get_weather>\n{body}\n</function>\n{end}"}
                for name, body in q_bodies.items()]
    out += [{"id": f"minimax_m2/{tag}_{name}", "tool": "minimax_m2", "reasoning": None,
             "tools": TOOLS, "text": '<minimax:tool_call>\n<invoke name="get_weather">\n'
             + body + "\n</invoke>\n</minimax:tool_call>"} for name, body in m_bodies.items()]
    return out


def cases() -> list[dict]:
    """The cases, ids ``TOOL/fz50_NAME``."""
    texts = {name: _OPEN + _CALL + body + _END + _CLOSE for name, body in _KEYS.items()}
    texts |= {name: _OPEN + body + _CLOSE for name, body in _CALLS.items()}
    texts["name_spaced_after_text"] = "Hi " + texts["name_spaced"]
    out = [{"id": f"dots/fz50_{name}", "tool": "dots", "reasoning": None, "tools": TOOLS,
            "text": text} for name, text in texts.items()]
    out += xml_cases("fz50", _Q_PARAMS, _M_PARAMS)
    out += [{"id": f"{tool}/fz50_{key}", "tool": tool, "reasoning": None, "tools": TOOLS,
             "text": dsml_text(tool, name)}
            for tool in _DSML_FORMATS for key, name in DSML_NAMES.items()]
    return out
