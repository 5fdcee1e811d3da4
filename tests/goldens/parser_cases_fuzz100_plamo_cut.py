"""issue 10's parser cases from ``conformance/fuzz_parsers.py`` seed 100: PLaMo 3's cut markers.

A module of its own (``parser_cases.CASES`` includes it); expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py plamo3/fz100 plamo3+plamo3/fz100``). The fuzz case
(``reasoning:plamo3/3``) is an output cut inside a marker: vLLM's ``Plamo3Parser`` drops, at the
end, the tail from the last ``<|plamo:`` whose ids are a proper prefix of a marker's ids, from
the reasoning and (with the plamo3 tool parser) the content; a tail cut mid-word
(``<|plamo:begin_thi``, not at a token's end) is text (``tito.core.parsers.plamo3_cut``).
"""

from __future__ import annotations

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}
TOOLS = [_WEATHER]

_P = "<|plamo:"
_B, _E = f"{_P}begin_think:plamo|>", f"{_P}end_think:plamo|>"
_CALL = (f"{_P}begin_tool_requests:plamo|>{_P}begin_tool_request:plamo|>"
         f"{_P}begin_tool_name:plamo|>get_weather{_P}end_tool_name:plamo|>"
         f"{_P}begin_tool_arguments:plamo|>{_P}constrain|>json{_P}msg|>"
         '{"city": "Paris"}'
         f"{_P}end_tool_arguments:plamo|>{_P}end_tool_request:plamo|>"
         f"{_P}end_tool_requests:plamo|>")


def cases() -> list[dict]:
    out = []

    def add(cid: str, tool: str | None, reasoning: str | None, text: str, **kw) -> None:
        out.append({"id": cid, "tool": tool, "reasoning": reasoning,
                    "tools": TOOLS if tool else [], "text": text, **kw})

    # the reasoning parser alone: the reasoning loses a cut marker, the content keeps it
    for cid, text in (("piece_only", f"{_P}begin_"),  # the fuzz case
                      ("after_text", f"a b{_P}end_"),
                      ("word_whole", f"{_B}a{_P}begin_think"),
                      ("word_cut", f"{_B}a{_P}begin_thi"),
                      ("tool_marker", f"{_B}a{_P}end_tool_name"),
                      ("args_marker", f"{_B}a{_P}begin_tool_arguments:plamo|>"),
                      ("args_marker_more", f"{_B}a{_P}begin_tool_arguments:plamo|><|pl"),
                      ("whole_marker", f"{_B}a{_P}begin_tool_name:plamo|>"),
                      ("content_kept", f"{_B}a{_E}b{_P}begin_")):
        add(f"plamo3/fz100_cut_{cid}", None, "plamo3", text)
    # with the tool parser the content loses it too (and without thinking, a think marker's
    # cut is text: no longer one of the grammar's markers)
    add("plamo3+plamo3/fz100_cut_content", "plamo3", "plamo3",
        f"{_B}a{_E}b{_P}begin_tool_requests")
    add("plamo3+plamo3/fz100_cut_after_call", "plamo3", "plamo3",
        f"{_B}a{_E}b{_CALL}{_P}end_")
    add("plamo3/fz100_cut_content_tools", "plamo3", None, f"b{_P}end_think")
    add("plamo3/fz100_cut_content_word_cut", "plamo3", None, f"b{_P}begin_thi")
    add("plamo3+plamo3/fz100_cut_thinking_off", "plamo3", "plamo3", f"b{_P}begin_think",
        kwargs={"enable_thinking": False})
    add("plamo3+plamo3/fz100_cut_thinking_off_piece", "plamo3", "plamo3", f"b{_P}begin_",
        kwargs={"enable_thinking": False})
    return out
