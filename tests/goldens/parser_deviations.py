"""The newer parser families' deliberate deviations from vLLM 0.33's batch results (data for
``tests/test_parsers_goldens.py``'s :data:`DEVIATIONS`): case id -> (tito's result {reasoning,
content, calls}, why). Each family's table is named for the session that ported it; every
reason is also in ``docs/conformance.md``.
"""

from __future__ import annotations

import json
import pathlib

import parser_cases_muse as _muse
from parser_cases import CASES

RECORDED = {g["id"]: g for g in json.loads(
    (pathlib.Path(__file__).parent / "parsers_vllm.json").read_text())}


def vllm_calls(cid: str) -> list:
    """vLLM's batch calls of a recorded case, as ``[name, arguments]`` lists."""
    return [[n, a] for n, a in RECORDED[cid]["batch"]["calls"]]


def text_between(text: str, start: str, end: str) -> str:
    """``text`` from ``start`` (included) to the first ``end`` after it (excluded)."""
    i = text.index(start)
    return text[i : text.index(end, i)]


_WEATHER_ARGS = '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}'

#: newparsers5's deviations (the same rules as the formats' above: one block's text, in order)
_NP5_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "minimax_m3/reasoning_on_text_before": (
        {"reasoning": "beforex", "content": "after", "calls": []},
        "thinking_mode enabled, text before a <mm:think>: vLLM's batch moves it to the content, "
        "its stream sends it as reasoning and again as content with the marker (stream != "
        "batch); tito keeps it reasoning, as it went out (the block was open from the start)",
    ),
    **{
        f"hy_v4/reasoning_{tag}start_in_block": (
            {"reasoning": "ab", "content": "c", "calls": []},
            "text before a <think> in the open block: vLLM's batch drops it, its stream sends it "
            "as reasoning; tito follows the stream (text is never lost)",
        )
        for tag in ("", "low_")
    },
    # hy_v4's batch is strict (any markup it does not expect makes the whole output content),
    # its stream lenient: tito reads the calls as its stream does, never losing text
    **{
        f"hy_v4/{cid}": ({"reasoning": None, "content": content, "calls": calls}, why)
        for cid, content, calls, why in (
            ("key_spaced", None, [["get_weather", '{"city": "Paris"}']],
             "a key with spaces: vLLM's stream strips it, its batch keeps them; tito strips"),
            ("value_markup", None, [["get_weather", '{"city": "a <b> & <tool_call> c"}']],
             "a <tool_call> inside a value: vLLM's batch counts tags and makes the whole output "
             "content, its stream reads the value; tito reads the value"),
            ("ws_between_tags", None, [["get_weather", '{"city": "Beijing"}']],
             "newlines between the argument tags: vLLM's batch makes the whole output content, "
             "its stream writes the markup into the value (not JSON); tito reads the call "
             "(Hy3's grammar, whitespace allowed)"),
            ("truncated", None, [["get_weather", '{"city": "Beijing"}']],
             "cut inside a value: vLLM's batch makes the whole output content, its stream "
             "sends the value unclosed; tito keeps it and closes the JSON"),
            ("truncated_value", None, [["get_weather", '{"city": ""}']],
             "cut right after <arg_value>: as truncated"),
            ("text_after", "\nDone.", [["get_weather", '{"city": "Beijing", "date": "2026-03-30"}']],
             "text_after_calls: text after </tool_calls> is content (vLLM drops it)"),
            ("no_section_end", None, [["get_weather", '{"city": "Beijing", "date": "2026-03-30"}']],
             "no </tool_calls>: vLLM's batch makes the whole output content, its stream reads "
             "the call; tito reads it"),
            ("cut_name", "Hi ", [],
             "a header cut by the end: vLLM's batch makes the whole output content, its stream "
             "drops the cut markup; tito drops it (as hy_v3)"),
            ("cut_section", "Hi ", [], "as cut_name"),
            ("duplicate_key", None, [["get_weather", '{"city": "a", "city": "b"}']],
             "a repeated key: vLLM's batch keeps the last value, its stream writes both (and "
             "leaves the last unclosed); tito writes both (JSON readers keep the last)"),
        )
    },
}

def _stream_of(cid: str) -> dict:
    """vLLM's own stream result of a case (where tito follows its stream, not its batch)."""
    return {k: RECORDED[cid]["stream"][k] for k in ("reasoning", "content", "calls")}


#: parsers6b's deviations (kimi_k3; the same rules as the formats' above: text is never lost)
_K3_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{
        f"kimi_k3/{cid}": ({"reasoning": None, "content": content, "calls": calls}, why)
        for cid, content, calls, why in (
            ("no_tool_attr", 'x<|open|>tools<|sep|><|open|>call index="1"<|sep|><|open|>argument '
             'key="a" type="string"<|sep|>b<|close|>argument<|sep|><|close|>call<|sep|>',
             RECORDED["kimi_k3/no_tool_attr"]["batch"]["calls"],
             "text_kept: a call header without a tool attribute: vLLM drops that call and reads "
             "the next, as tito (the section goes on, fuzz seed 24); tito gives the broken call's "
             "text (and the section's opener before it) back as content"),
            ("callx", '<|open|>tools<|sep|><|open|>callx tool="a"<|sep|><|close|>call<|sep|>',
             RECORDED["kimi_k3/callx"]["batch"]["calls"],
             "as no_tool_attr (<|open|>callx is not a call header)"),
            ("unclosed_call", "Hi", [["get_weather", '{"city": "Paris", "days": 3}']],
             "truncated_call: vLLM emits a call only at its <|close|>call<|sep|> (both paths); "
             "tito keeps the cut call"),
            ("cut_value", "Hi", [["get_weather", "{}"]], "truncated_call, cut in an argument header"),
            ("duplicate_key", None, [["get_weather", '{"city": "a", "city": "b"}']],
             "a repeated key: vLLM keeps the last value; tito streams both (JSON readers keep "
             "the last), as hy_v4"),
            ("response_twice", "ab", [],
             "vLLM keeps the first response channel's body only (both paths); tito keeps the "
             "text of both (text is never lost)"),
            ("text_after_message", "atail", [],
             "text after the channels: vLLM drops it (both paths); tito keeps it"),
        )
    },
    # thinking off, a think block the model writes anyway: vLLM's batch keeps only the response
    # channel's body, its stream sends the rest as content; tito follows the stream
    **{
        f"kimi_k3/reasoning_{tag}{cid}": (
            _stream_of(f"kimi_k3/reasoning_{tag}{cid}"),
            "thinking off: vLLM's batch drops the text outside the response channel, its stream "
            "keeps it; tito follows the stream (text is never lost)")
        for tag in ("off_", "eoff_") for cid in ("block", "no_open", "ws", "unicode")
    },
}

#: issue 10's deviations (k2_horizon's reasoning; where vLLM's batch and stream disagree, tito
#: follows its stream: what was streamed as reasoning stays reasoning)
_K2H_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{
        f"k2_horizon/reasoning_{tag}{cid}": (_stream_of(f"k2_horizon/reasoning_{tag}{cid}"), why)
        for tag in ("", "high_", "medium_", "low_")
        for cid, why in (
            ("unclosed", "a block that never closes: vLLM's batch makes the output content, its "
             "stream has sent it as reasoning; tito keeps it reasoning (rule 3)"),
            ("plain", "as unclosed (no marker at all)"),
            ("end_after_tool", "<ifm|tool_calls> before the end marker: vLLM's batch splits at "
             "the end marker, its stream at the call start; tito follows the stream"),
        )
    },
}

#: muse7's deviations (muse = musespark1x: a channel router; docs/conformance.md lists each)
_MW = _muse.texts()["call"].split("<|message|>")[2].removesuffix("<|eom|>")  # the ATEM block
_MUSE_STREAM = ("the tool parser alone: vLLM's batch makes no reasoning (the whole framed output "
                "is content), its stream routes the messages; tito follows the stream")
_MUSE_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"{p}plain_then_header": (
        {"reasoning": "r", "content": "hello", "calls": []},
        "text_kept: text outside any message is content; vLLM keeps it only when no header "
        "follows in the whole output (its batch), its stream drops it")
       for p in ("muse+muse/", "muse/", "muse/reasoning_")},
    **{f"{p}repeated_key": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city": "Paris", "n": 1, "city": "Rome"}']]},
        "a repeated key is written twice (JSON readers keep the last value); vLLM keeps its "
        "first position and its last value, which a stream can only know at </atem:invoke>")
       for p in ("muse+muse/", "muse/")},
    **{f"{p}no_header": (
        {"reasoning": None, "content": _MW, "calls": []},
        "text_kept: an output without a message header is content, its ATEM invokes text "
        "(vLLM's batch also makes the calls, only when no header follows anywhere; its composed "
        "stream drops everything)")
       for p in ("muse+muse/", "muse/")},
    **{f"{p}cut_in_invoke": (
        {"reasoning": None, "content": None, "calls": [["get_weather", "{}"]]},
        "truncated_call: an invoke cut by the end is the call with what came; vLLM's batch makes "
        "the framed output content, its stream sends nothing")
       for p in ("muse+muse/", "muse/")},
    **{f"{p}tool_channel_no_atem": (
        {"reasoning": None, "content": "just textok", "calls": []},
        "text_kept: a tool channel's text outside invokes is content (text_after_calls); vLLM "
        "drops it")
       for p in ("muse+muse/", "muse/")},
    "muse/reasoning_tool_channel_no_atem": (
        {"reasoning": None, "content": "to=get_weather<|message|>just text<|eom|>ok", "calls": []},
        "no tool parser: a tool channel is content with its framing, ATEM or not (vLLM's batch "
        "drops it when no tool channel holds ATEM)"),
    "muse+muse/invoke_in_answer": (
        _stream_of("muse+muse/invoke_in_answer"),
        "an invoke in a to=user answer is text (vLLM's own rule; its batch still makes the call "
        "because the answer has no framing left when its tool parser scans it); tito follows "
        "vLLM's stream"),
    **{f"muse/{cid}": (_stream_of(f"muse/{cid}"), _MUSE_STREAM)
       for cid in ("call", "answer", "two_blocks", "bare_header", "invoke_in_reasoning",
                   "user_role", "reasoning_after_call", "commentary", "developer", "unicode",
                   "unclosed_reasoning", "answer_unclosed", "invoke_in_answer")},
    "muse/no_eom_before_header": (
        {"reasoning": "thinking ", "content": None,
         "calls": [["get_weather", '{"city": "Paris", "n": 3}']]},
        _MUSE_STREAM + " (whose held-back tail leaks \"to\" there; tito's reasoning is the "
        "composed parsers')"),
    **{f"muse/reasoning_{cid}": (
        {"reasoning": reasoning, "content": f"{framed}<|eom|>{answer}", "calls": []},
        "no tool parser: a tool channel is content with its framing and a to=user message its "
        "body; vLLM's batch frames every message but reasoning once any tool channel holds "
        "ATEM, its stream passes everything after that channel raw")
       for cid, reasoning, framed, answer in (
           ("reasoning_after_call", "more", "to=get_weather<|message|>" + _MW, "done"),
           ("unicode", "想一想 é", "<|start|>assistant to=get_weather<|message|>"
            + _muse.calls(_muse.invoke("get_weather", ("city", "東京 é"))), "Météo 東京"),
           ("call_then_answer", None, "to=get_weather<|message|>" + _MW, "It is sunny."))},
    "muse/reasoning_commentary": (
        _stream_of("muse/reasoning_commentary"),
        "no tool parser: as reasoning_after_call (a to=commentary message is its body); here "
        "tito equals vLLM's stream"),
}

#: glimmer8's deviations (muse_glimmer: the same router with Muse Glimmer's table; the same
#: rules as muse's above, plus where Glimmer's own batch and stream disagree; docs/conformance.md)
_G, _GT, _GR = "muse_glimmer+muse_glimmer/", "muse_glimmer/", "muse_glimmer/reasoning_"
_GW = _muse.texts()["invoke_in_answer"].removeprefix(" to=user<|message|>").removesuffix("<|eot|>")
_GLIMMER_TEXT_KEPT = ("text_kept: a tool channel's text outside its invokes is content; vLLM "
                      "drops it (both paths). Glimmer's table makes to=commentary and "
                      "to=developer tool channels (vLLM's MuseGlimmerToolParser)")
_GLIMMER_NO_TOOLS = ("no tool parser: a tool channel is content with its framing and a to=user "
                     "message its body, the rule muse's reasoning parser alone follows here; "
                     "vLLM's Glimmer reasoning parser drops a tool channel until one holds ATEM "
                     "and then passes everything after its header raw, framing included (both "
                     "paths), which a bounded state cannot hold back")
_GLIMMER_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"{p}two_blocks": (
        _stream_of(f"{p}two_blocks"),
        "Glimmer's batch joins reasoning messages with \\n and keeps only the first to=user "
        "message; its stream joins every message's body as it comes; tito follows the stream")
       for p in (_G, _GR)},
    **{f"{p}reasoning_after_call": (
        _stream_of(f"{p}reasoning_after_call"),
        "a to=self message after a call is reasoning (vLLM's stream); its batch's "
        "<|eom|>...to=self<|message|> collapse swallows it into the call's message")
       for p in (_G, _GT)},
    **{f"{p}no_eom_before_header": (
        {"reasoning": "thinking ", "content": None,
         "calls": [["get_weather", '{"city": "Paris", "n": 3}']]},
        "a header without <|eom|> ends the reasoning message (vLLM's composed stream); its "
        "batch reads the reasoning on to the end and repeats its open part (no call); the tool "
        "parser alone's stream leaks the held-back \"to\"")
       for p in (_G, _GT)},
    _GR + "no_eom_before_header": (
        _stream_of(_GR + "no_eom_before_header"),
        "as the composed no_eom_before_header; with no tool parser the tool channel is content "
        "framed (vLLM's stream; its batch reads it into the reasoning)"),
    **{f"{p}plain_then_header": (
        {"reasoning": "r", "content": "hello", "calls": []},
        "text_kept: text outside any message is content; vLLM drops it when a header follows "
        "(its Glimmer parsers' stream and composed batch; the tool parser alone's batch makes "
        "the whole framed output content)")
       for p in (_G, _GT, _GR)},
    **{f"{p}bare_header": (
        {"reasoning": None, "content": "bare", "calls": []},
        "a message without a recipient is content (Glimmer's tool parser table, its stream "
        "alone); vLLM's Glimmer reasoning parser reads no such message: its composed stream "
        "sends nothing, its batch the whole framed text")
       for p in (_G, _GR)},
    _GR + "user_role": (
        {"reasoning": None, "content": "qto=get_weather<|message|>" + _MW + "<|eom|>",
         "calls": []},
        "as bare_header (<|start|>user<|message|> has no recipient: its body is content) and "
        "no tool parser: the tool channel is content framed (vLLM's stream drops q, its batch "
        "makes the whole output content)"),
    **{f"{p}repeated_key": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city": "Paris", "n": 1, "city": "Rome"}']]},
        "a repeated key is written twice, as muse's (vLLM keeps its first position and its "
        "last value, known only at </atem:invoke>)")
       for p in (_G, _GT)},
    **{f"{p}no_header": (
        {"reasoning": None, "content": _MW, "calls": []},
        "text_kept: an output without a message header is content, its ATEM invokes text, as "
        "muse's (vLLM's batch also makes the call, its stream only the call)")
       for p in (_G, _GT)},
    **{f"{p}cut_in_invoke": (
        {"reasoning": None, "content": None, "calls": [["get_weather", "{}"]]},
        "truncated_call, as muse's: vLLM's batch makes the framed output content, its stream "
        "sends nothing")
       for p in (_G, _GT)},
    **{f"{p}{cid}": ({"reasoning": r, "content": c, "calls": k}, _GLIMMER_TEXT_KEPT)
       for p in (_G, _GT)
       for cid, r, c, k in (
           ("commentary", "plan", "Checking.", [["get_weather", '{"city": "Paris", "n": 3}']]),
           ("developer", None, "hiddenshown", []),
           ("tool_channel_no_atem", None, "just textok", []))},
    _G + "invoke_in_answer": (
        {"reasoning": None, "content": _GW, "calls": []},
        "an invoke in a to=user answer is text (vLLM's Glimmer tool parser's stream); its "
        "composed batch makes the framed output content, its composed stream sends the "
        "answer's start and drops it once <atem:function_calls> is whole"),
    _GR + "invoke_in_answer": (
        {"reasoning": None, "content": _GW, "calls": []},
        "as the composed invoke_in_answer (no tool parser: the answer's body)"),
    **{f"{_GT}{cid}": (_stream_of(f"{_GT}{cid}"), _MUSE_STREAM)
       for cid in ("call", "answer", "two_blocks", "bare_header", "invoke_in_reasoning",
                   "unicode", "unclosed_reasoning", "answer_unclosed", "invoke_in_answer")},
    _GR + "reasoning_after_call": (
        {"reasoning": "more", "content": "to=get_weather<|message|>" + _MW + "<|eom|>done",
         "calls": []}, _GLIMMER_NO_TOOLS),
    _GR + "unicode": (
        {"reasoning": "想一想 é", "content": "<|start|>assistant to=get_weather<|message|>"
         + _muse.calls(_muse.invoke("get_weather", ("city", "東京 é"))) + "<|eom|>Météo 東京",
         "calls": []}, _GLIMMER_NO_TOOLS),
    _GR + "call_then_answer": (
        {"reasoning": None, "content": "to=get_weather<|message|>" + _MW + "<|eom|>It is sunny.",
         "calls": []}, _GLIMMER_NO_TOOLS),
    _GR + "developer": (
        {"reasoning": None, "content": "to=developer<|message|>hidden<|eom|>shown", "calls": []},
        _GLIMMER_NO_TOOLS + " (to=developer is a tool channel in Glimmer's table)"),
    _GR + "tool_channel_no_atem": (
        {"reasoning": None, "content": "to=get_weather<|message|>just text<|eom|>ok",
         "calls": []}, _GLIMMER_NO_TOOLS),
}

#: newparsers4's deviations (the same rules as the formats' above: text is never lost)
_NP4_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "poolside_v1/truncated": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city": "Beijing", "date": ""}']]},
        "cut right after <arg_value>: vLLM's batch makes the whole output content, its stream "
        'sends `"date": "` (not JSON); tito closes the value',
    ),
    **{
        f"poolside_v1/{k}": (
            {"reasoning": None, "content": content, "calls": calls},
            "vLLM's batch drops the text after the first call, its stream keeps it: tito keeps it",
        )
        for k, content, calls in (
            ("content_after", "\nThat is all.",
             [["get_weather", '{"city": "Beijing", "date": "2024-06-27"}']]),
            ("text_between", " and then ", [["get_time", "{}"], ["get_time", "{}"]]))
    },
    "poolside_v1/typed_text": (
        {"reasoning": None, "content": None, "calls": [
            ["test_types", '{"int_param": "forty", "float_param": "3.5x", "multi": "{1, 2}"}']]},
        "a set literal ({1, 2}): vLLM's json.dumps raises (its batch makes the whole output "
        "content, its stream fails); tito keeps the value's text, as for any other non-JSON value",
    ),
    "lfm2/text_around": (
        {"reasoning": None, "content": "Sure.  Done.", "calls": [
            ["get_current_weather", '{"city": "Paris", "state": "FR", "unit": "celsius"}']]},
        "vLLM's batch joins the text before and after the block with a newline, its stream "
        "sends it as written: tito sends it as written",
    ),
    **{
        cid: ({"reasoning": None, "content": None, "calls": [["get_current_weather", args]]},
              "a call the end of the output cut: vLLM's stream sends its arguments so far (tito "
              "too); its batch makes it content (lfm2) or closes the JSON (apertus)")
        for cid, args in (("lfm2/truncated", '{"city": "Pari'),
                          ("apertus/truncated", '{"city": "Paris"'))
    },
    "poolside_v1/name_newline_garbage": (
        {"reasoning": None, "content": "Sure.", "calls": [["get_weather", "{}"]]},
        "a call never closed (a broken </tool_call>): vLLM's stream sends the call (tito too, "
        "its arguments closed), its batch makes the output content",
    ),
    "poolside_v1/cut_name": (
        {"reasoning": None, "content": "Hi ", "calls": []},
        "a header cut before its name ended: vLLM's stream drops the markup (tito too), its "
        "batch keeps it as content",
    ),
    **{
        f"lfm2/{k}": (
            {"reasoning": None, "content": content, "calls": [["get_time", "{}"]]},
            "text after the block up to a later <|tool_call_end|> (LFM2's echo of its calls, or "
            "a second block): vLLM drops it, batch and stream; tito never drops text (deciding "
            "would mean holding the content unboundedly)",
        )
        for k, content in (("echo", " [get_time()]<|tool_call_end|> Done."),
                           ("second_block", '<|tool_call_start|>[get_current_weather(city="Paris",'
                                            ' state="FR", unit="celsius")]<|tool_call_end|>'))
    },
    "lfm2/bad_value": (
        {"reasoning": None, "content": "Truue)]<|tool_call_end|>", "calls": [["get_time", '{"x": ']]},
        "a value that is not a literal: the call ends where it stands and the rest is content "
        "(the pythonic rule); vLLM makes the whole output content (its stream sends nothing)",
    ),
    "plamo3/text_after": (
        {"reasoning": None, "content": " Done.",
         "calls": [["get_current_weather", '{"city": "Tokyo", "unit": "celsius"}']]},
        "vLLM's batch drops the text after the section, its stream keeps it: tito keeps it",
    ),
    "plamo3/text_in_section": (
        {"reasoning": None, "content": "<|plamo:begin_tool_requests:plamo|>junk",
         "calls": [["get_current_weather", '{"city": "Tokyo", "unit": "celsius"}']]},
        "text inside the section outside a request: vLLM's engine drops it; tito keeps it as "
        "content (the calls are the same)",
    ),
    "gigachat3/text_after": (
        {"reasoning": None, "content": " Done.",
         "calls": [["get_current_weather", '{"city": "Moscow", "unit": "celsius"}']]},
        "text after the call object: vLLM's batch makes the whole output content (the rest of "
        "the output must be the JSON), its stream puts it into the arguments; tito keeps the call "
        "and the text as content",
    ),
    **{
        f"gigachat3/{k}": ({"reasoning": None, "content": None, "calls": [[n, a]]},
                           "a call the end of the output cut or whose JSON is broken: vLLM's "
                           "stream sends it (tito too), its batch makes the output content")
        for k, n, a in (("truncated", "get_current_weather", '{"cit'),
                        ("bad_json", "get_time", "{x}"))
    },
    "dots/text_after": (
        {"reasoning": None, "content": "\nDone.",
         "calls": [["search", '{"query": "weather in Shanghai"}']]},
        "vLLM's batch drops the text after the block, its stream keeps it: tito keeps it",
    ),
    "dots/json_body": (
        {"reasoning": None, "calls": [], "content": next(
            c["text"] for c in CASES if c["id"] == "dots/json_body")},
        "a block whose body is a JSON call object (vLLM's fallback): tito reads only invoke "
        "tags and keeps the block as content",
    ),
    "dots/unknown_tool": (
        {"reasoning": None, "calls": [],
         "content": '<invoke name="nope">\n<parameter name="a">1</parameter>\n</invoke>\n'},
        "a call of a tool the request lacks: its invoke is content and the block's markers are "
        "dropped, as vLLM's stream; vLLM's batch makes the whole output content",
    ),
    "dots/truncated": (
        {"reasoning": None, "content": None, "calls": [["search", "{}"]]},
        "a call the end of the output cut: tito makes it from what came; vLLM's batch makes the "
        "output content, its stream sends only whole blocks",
    ),
    "xlam/truncated": (
        {"reasoning": None, "content": None, "calls": [["get_current_weather", '{"cit']]},
        "a list the end of the output cut: tito keeps the call as far as it came (vLLM's stream "
        "sends the call, its batch makes the output content)",
    ),
    "xlam/text_after": (
        {"reasoning": None, "content": " then text",
         "calls": [["get_current_weather", '{"city": "Paris", "unit": "celsius"}']]},
        "text after the list: vLLM's batch makes the whole output content (it needs the output "
        "to be the list), its stream sends the call and drops the text; tito keeps both",
    ),
    "poolside_v1/reasoning_on_call": (
        {"reasoning": "hm", "calls": [],
         "content": "\n<tool_call>get_weather\ncity\nParis\n</tool_call>"},
        "no tool parser for the request: the tool format's special tokens are skipped as "
        "skip_special_tokens asks; vLLM's parser path keeps every special token",
    ),
}


#: inkling10's deviations (vLLM 0.33's ``inkling`` tool / reasoning parsers; the router's rules:
#: ``src/tito/core/parsers/inkling.py``, ``tools/inkling.py``; ``docs/conformance.md``)
_INK_TOOL_ALONE_REASONING = (
    "think_answer", "think_call", "call_then_text", "reasoning_after_call", "think_twice",
    "header_name", "tool_text", "unclosed_reasoning", "think_end_sampling", "cut_in_call",
    "unicode", "spaces", "thinking_in_text", "trailing_ws_reasoning", "ws_think_think",
    "header_then_end", "markers_in_reasoning", "call_in_reasoning", "cut_in_args")
_INKLING_DEVIATIONS: dict[str, tuple[dict, str]] = {
    # the tool parser alone: thinking blocks are reasoning, as vLLM's stream (its batch,
    # ``extract_tool_calls_from_content``, drops the reasoning the engine read)
    **{f"inkling/{cid}": (
        {**_stream_of(f"inkling/{cid}")},
        "the tool parser alone: thinking blocks are reasoning, as vLLM's stream; its batch "
        "drops them (tito never loses text)")
       for cid in _INK_TOOL_ALONE_REASONING},
    "inkling/ws_between_thinking": (
        {"reasoning": "a \nb", "content": "x", "calls": []},
        "the tool parser alone: reasoning kept (vLLM's stream); its whitespace before a later "
        "thinking block kept, as vLLM's composed batch (its stream drops it)"),
    **{f"{p}string_number": (
        {"reasoning": None, "content": None,
         "calls": [["get_weather", '{"city":"42","n":"7"}']]},
        "batch_reserializes: the arguments are the model's text; vLLM's batch types them from "
        "the schema and re-serializes them (its stream then stops short: '{\"city\":\"42\","
        "\"n\":')")
       for p in ("inkling+inkling/", "inkling/")},
    **{f"{p}args_array": (
        {"reasoning": None, "content": None, "calls": [["run", "{}"]]},
        "inkling_args_not_object: an args value that is not an object gives {}; vLLM's batch "
        "re-reads the whole body with json.loads ('[1, 2]'), its stream sends '' (not JSON)")
       for p in ("inkling+inkling/", "inkling/")},
    **{f"{p}long_header": (
        {"reasoning": "t", "content": "h" * 300, "calls": [["get_weather", '{"city":"SF"}']]},
        "a message header longer than HEADER_LIMIT (200) is content; vLLM holds it whole and "
        "drops it at the content-kind marker (a bounded state cannot)")
       for p in ("inkling+inkling/", "inkling/")},
    "inkling/reasoning_long_header": (
        {"reasoning": "t", "content": "h" * 300 + '<|content_invoke_tool_json|>{"name":'
         '"get_weather","args":{"city":"SF"}}<|end_message|>', "calls": []},
        "as long_header: the header's text is content (vLLM holds it and drops it)"),
    "inkling+inkling/marker_in_args": (
        {"reasoning": None, "content": None,
         "calls": [["run", '{"code":"a<|message_model|>b"}']]},
        "a marker inside a tool block is body text, as vLLM's stream and its tool parser "
        "alone; its composed batch re-parses the reasoning pass's content, where the marker "
        "opened a header that swallowed the rest of the arguments ('{\"code\":\"a')"),
}

#: issue 10's deviations found by fuzz_parsers seed 9 (cases: parser_cases_fuzz9_deepseek_plamo.py)
_FUZZ9_DS_PLAMO_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{
        cid: (_stream_of(cid),
              "text_kept: the calls are vLLM's (a call behind a misspelt section marker is read "
              "in both its paths); its batch drops the text between the sections, its stream "
              "keeps it, as tito (text is never lost)")
        for cid in ("deepseek_v3+deepseek_r1/fz9_misspelt_section", "deepseek_v31/fz9_misspelt_section")
    },
    "deepseek_v31+deepseek_v3/fz9_misspelt_call_end": (
        {"reasoning": "ok\n\n", "content": "Sure.<｜tool▁cal▁end｜>Here you go:",
         "calls": [["get_time", "{}"]]},
        "call_unclosed: a misspelt <｜tool▁call▁end｜>: vLLM's batch makes no call (its regex "
        "needs the closer) and drops the rest, its stream sends the rest of the output as the "
        "arguments (not JSON); tito ends the call with its JSON, the misspelt marker and the "
        "text after it are content (the stray section end is markup)"),
    "plamo3+plamo3/fz9_misspelt_args_end": (
        {"reasoning": "  spaced thought  ",
         "content": "Let me check.<|plamo:end_tool_arguments:plamoo|>"
                    "<|plamo:end_tool_request:plamo|>OK",
         "calls": [["get_time", "{}"]]},
        "call_unclosed: a misspelt arguments end: vLLM's arguments run on to the end of the "
        "output, markers and text included (not JSON; both paths); tito ends them with their "
        "JSON and keeps the text after as content"),
    "deepseek_v4+deepseek_v4/fz9_marker_before_think": (
        {"reasoning": "Use", "calls": [["get_weather", '{"city": "Paris"}']],
         "content": "<｜DSML｜tool_calls> to call. <think>Let me think.</think>Sure.Here."},
        "reopen_after_call: a <think> after the DSML call start: vLLM's batch reasoning pass "
        "reads the tool markup as text and reopens the block there, its stream hands over to "
        "the tool grammar at the call start (reasoning 'Use') and drops the text; tito's "
        "reasoning is the stream's, the text after the call start the tool stage's content"),
    "deepseek_v4+deepseek_v4/fz9_marker_opens_output": (
        {"reasoning": None, "calls": [["get_weather", '{"city": "Paris"}']],
         "content": "<｜DSML｜tool_calls><think>hm."},
        "reopen_after_call, the call start opening the output (vLLM's stream: no reasoning)"),
    "plamo3/fz9_misspelt_request_marker": (
        {"reasoning": None, "calls": [["get_time", "{}"], ["get_weather", "{}"]],
         "content": "Hi<|plamo:begin_tool_requests:plamo|><|plammo:begin_tool_request:plamo|>"
                    "Sure."},
        "text_kept: the calls are vLLM's (its grammar opens a call at the name marker, the "
        "request marker a no-op); the misspelt marker (and the section marker before it, a "
        "broken header's text) and the text after the section are content; vLLM's batch drops "
        "them, its stream keeps the text after"),
    "plamo3+plamo3/fz9_misspelt_name_marker": (
        {"reasoning": "hm", "calls": [["get_time", "{}"]],
         "content": "\n<|plamo:begin_ttool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>"
                    "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{}"
                    "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>Done."},
        "args_to_previous: a request whose name marker is misspelt: vLLM's grammar drops the "
        "name and appends the request's arguments to the previous call ('{}{}', not JSON; both "
        "paths); tito keeps the previous call as it closed and the broken request as content, from "
        "the text after its request marker (the section's and request's markers are markup)"),
}


#: issue 10: gemma4's block opening again after a call's <tool_call|> (fixed; the
#: cases below differ from vLLM's batch for other, documented reasons)
_GEMMA4_CALL_DEVIATIONS: dict[str, tuple[dict, str]] = {
    "gemma4/reasoning_call_end_in_string": (
        {"reasoning": "c", "content": "<|tool_call>call:get_current_weather{city:a<tool_call|>",
         "calls": []},
        "no tool parser for the request: <|\"|>, a special token of the tool format only, is "
        "skipped as skip_special_tokens asks (as gemma4/reasoning_block_call); vLLM's parser "
        "path keeps every special token"),
    "gemma4+gemma4/call_channel_in_args": (
        {"reasoning": "y", "content": None,
         "calls": [["get_current_weather", '{"city": "a<|channel>b"}']]},
        "gemma4_channel_in_call: a <|channel> inside a call is the call's text (vLLM's grammar "
        "has no start-marker transition out of a call: its stream, one token per delta or all "
        "at once, keeps it in the value); vLLM's batch ends the string value there and makes "
        "the rest of the call reasoning; tito follows the stream"),
    "gemma4/reasoning_call_channel_in_args": (
        {"reasoning": "y",
         "content": "<|tool_call>call:get_current_weather{city:a<|channel>b}<tool_call|>",
         "calls": []},
        "gemma4_channel_in_call (as gemma4+gemma4/call_channel_in_args: vLLM's batch makes the "
        "rest of the call reasoning; its reasoning-only stream makes all of it content); "
        "<|\"|> skipped as in gemma4/reasoning_block_call"),
}


#: vLLM's hunyuan_a13b stream on Hunyuan's own ids (``record_hunyuan_stream.py``)
_HY_STREAM = json.loads((pathlib.Path(__file__).parent / "hunyuan_stream_vllm.json").read_text())
_HY_UNCLOSED = ("granite_unclosed: a block that does not close with \\n</think>\\n<answer>\\n is "
                "reasoning, as vLLM's stream sends it (its class, on Hunyuan's own token ids: "
                "hunyuan_stream_vllm.json); vLLM's batch makes the whole output content, "
                "<think>\\n included (its regexes need the closer; an \\n</answer> inside the "
                "block ends the content there and drops the rest); tito follows the stream (a "
                "stream cannot take back reasoning it sent)")

#: issue 10: hunyuan_a13b's unclosed blocks (tito follows vLLM's stream; two more differences)
_HUNYUAN_DEVIATIONS: dict[str, tuple[dict, str]] = {
    **{f"hunyuan_a13b/reasoning_{cid}": ({**_HY_STREAM[cid]["stream"], "calls": []}, _HY_UNCLOSED)
       for cid in ("unclosed", "unclosed_text_before", "unclosed_answer_end",
                   "unclosed_no_answer_tag", "unclosed_start_only")},
    "hunyuan_a13b/reasoning_unclosed_cut_in_end": (
        {"reasoning": "reason\n</think>\n", "content": None, "calls": []},
        "hunyuan_cut_end: an output cut inside the closer keeps the closer's text as reasoning "
        "(the held text is released to the open block at the end: text is never lost); vLLM's "
        "stream holds the closer's first tokens and never sends them (reasoning 'reason'), its "
        "batch makes the whole output content"),
    "hunyuan_a13b/reasoning_unclosed_blank_line": (
        {"reasoning": "\nreason", "content": None, "calls": []},
        "hunyuan_blank_line: the start marker is the text <think>\\n (as vLLM's batch regex "
        "reads a closed block: reasoning '\\nreason'); vLLM's stream also takes the token "
        ">\\n\\n as a start (Hunyuan's 'fast think' ids), dropping both newlines ('reason'), "
        "and its batch makes this unclosed output content (granite_unclosed)"),
    "hunyuan_a13b+hunyuan_a13b/unclosed_call": (
        {"reasoning": 'I will call.\n<tool_calls>[{"name": "get_weather", "arguments": '
                      '{"city": "Paris"}}]</tool_calls>', "content": None, "calls": []},
        "granite_unclosed with a call written in the unclosed block: the block is reasoning "
        "until it closes (vLLM's stream on Hunyuan's ids sends it as reasoning, which its tool "
        "parser never reads); vLLM's batch makes the output content and reads the call there"),
}
