"""vLLM 0.33.0's own answers on the outputs ``docs/conformance.md`` cites for parsers tito refuses.

Run with vLLM's python (it imports vLLM's parsers; tito is not involved)::

    /work/vllm-venv/bin/python conformance/probe_unported.py [CASE_PREFIX ...] > /tmp/probe.jsonl

Why: the ``muse`` / ``muse_glimmer`` / ``musespark1x`` and ``minicpm5`` rows of the conformance
doc say why those parsers are not ported (a joint channel parser for Muse; a call that is only
known once its ``</function>`` shows it valid for MiniCPM5). Each claim there names a case of
this file; this script prints, one JSON line per (case, parser pair), vLLM's batch
(``parser.parse``), its stream one token per delta and its stream in chunks of 3, 1, 7 tokens,
driven exactly as ``tests/goldens/record_parsers.py`` drives the recorded goldens (the Qwen3
tokenizer, Muse's four framing markers added as special tokens, as earlier ports tested formats
whose tokenizer the project lacks). ``muse`` / ``musespark1x`` and ``muse_glimmer`` are
ported now (their cases, these included, recorded in ``tests/goldens/parser_cases_muse.py``);
the ``minicpm5`` lines remain for the one still refused.
"""

from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))

import parser_cases  # noqa: E402
import record_parsers  # noqa: E402

#: Muse's framing markers (vLLM's ``muse_tool_parser._STRUCTURAL_MARKERS``).
MUSE_MARKERS = ["<|start|>", "<|message|>", "<|eom|>", "<|eot|>"]
for _name in ("muse", "muse_glimmer", "musespark1x"):
    parser_cases.MARKERS.setdefault(_name, MUSE_MARKERS)
parser_cases.MARKERS.setdefault("minicpm5", [])

WEATHER = [{"type": "function", "function": {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "n": {"type": "integer"}}, "required": ["city"]}}}]
CUSTOMER = [{"type": "function", "function": {
    "name": "get_customer_by_phone",
    "parameters": {"type": "object", "properties": {"phone_number": {"type": "string"}},
                   "required": ["phone_number"]}}}]

_INVOKE = ('<atem:function_calls>\n<atem:invoke name="get_weather">\n'
           '<atem:parameter name="city">Paris</atem:parameter>\n'
           '<atem:parameter name="n">{N}</atem:parameter>\n</atem:invoke>\n</atem:function_calls>')


def _inv(n: str) -> str:
    return _INVOKE.replace("{N}", n)


#: Muse outputs (the prompt ends with ``<|start|>assistant``, so the first header has no
#: ``<|start|>``), by case id.
MUSE = {
    "muse_call": " to=self<|message|>think<|eom|><|start|>assistant to=get_weather<|message|>"
                 + _inv("3") + "<|eom|>",
    "muse_answer": " to=self<|message|>a<|eom|><|start|>assistant to=user<|message|>hello<|eot|>",
    "muse_two_blocks": " to=self<|message|>a<|eom|><|start|>assistant to=self<|message|>b<|eom|>"
                       "<|start|>assistant to=user<|message|>x<|eom|>"
                       "<|start|>assistant to=user<|message|>y<|eot|>",
    "muse_plain": "hello there",
    "muse_plain_then_header": "hello to=self<|message|>r<|eom|>",
    "muse_bare_header": "<|message|>bare<|eot|>",
    "muse_repeated_key": " to=get_weather<|message|>"
                         + _inv('1</atem:parameter><atem:parameter name="city">Rome') + "<|eom|>",
    "muse_value_not_json": " to=get_weather<|message|>" + _inv('{"x":1} y') + "<|eom|>",
    "muse_value_json": " to=get_weather<|message|>" + _inv('{"x":1,"x":2}') + "<|eom|>",
    "muse_invoke_in_reasoning": " to=self<|message|>" + _inv("3") + "<|eom|>",
    "muse_no_header": _inv("3"),
    "muse_cut_in_invoke": " to=get_weather<|message|>" + _inv("3")[:70],
    "muse_user_role": "<|start|>user<|message|>q<|eot|> to=get_weather<|message|>"
                      + _inv("3") + "<|eom|>",
    "muse_reasoning_after_call": " to=get_weather<|message|>" + _inv("3")
                                 + "<|eom|><|start|>assistant to=self<|message|>more<|eom|>"
                                 "<|start|>assistant to=user<|message|>done<|eot|>",
}
#: (tool parser, reasoning parser) pairs the Muse cases run with.
MUSE_PAIRS = [("muse", "muse"), ("muse_glimmer", "muse_glimmer"), ("muse", None), (None, "muse")]

#: MiniCPM5 outputs and the request's tools, by case id.
MINICPM5 = {
    "minicpm5_ok": ('<function name="get_weather"><param name="city">Paris</param>'
                    '<param name="n">3</param></function>', WEATHER),
    "minicpm5_missing_required": ('<function name="get_weather"><param name="n">3</param>'
                                  '</function>', WEATHER),
    "minicpm5_repeated_key": ('<function name="get_weather"><param name="city">Paris</param>'
                              '<param name="city">Rome</param></function>', WEATHER),
    "minicpm5_nameless_param": ('<function name="get_weather"><param name="city">Paris</param>'
                                '<param>3</param></function>', WEATHER),
    "minicpm5_unknown_tool": ('hi <function name="nope"><param name="city">Paris</param>'
                              '</function> bye', WEATHER),
    "minicpm5_alias": ('<function name="get_details_by_phone"><param name="phone">555</param>'
                       '</function>', CUSTOMER),
    "minicpm5_xml_ok": ('<function name="get_weather"><param name="city"> A &amp; B </param>'
                        '</function>', WEATHER),
    "minicpm5_xml_broken": ('<function name="get_weather"><param name="city"> A &amp; B </param>'
                            '<x></function>', WEATHER),
    "minicpm5_text_around": ('before <function name="get_weather"><param name="city">Paris'
                             '</param></function> after', WEATHER),
}


def _runs() -> list[dict]:
    cases = [{"id": cid, "tool": tool, "reasoning": reasoning, "tools": WEATHER, "text": text}
             for tool, reasoning in MUSE_PAIRS for cid, text in MUSE.items()]
    cases += [{"id": cid, "tool": "minicpm5", "reasoning": None, "tools": tools, "text": text}
              for cid, (text, tools) in MINICPM5.items()]
    return cases


def main() -> None:
    prefixes = sys.argv[1:]
    for case in _runs():
        if prefixes and not any(case["id"].startswith(p) for p in prefixes):
            continue
        got = record_parsers.record(case)
        line = {"id": case["id"], "tool": case["tool"], "reasoning": case["reasoning"],
                "batch": got["batch"], "stream": got["stream"],
                "stream_3_1_7": record_parsers.stream(case, [3, 1, 7])}
        for key in ("stream", "stream_3_1_7"):
            line[key].pop("ids", None)
        print(json.dumps(line, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
