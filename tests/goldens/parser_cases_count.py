"""Cases for usage's ``reasoning_tokens``: markers of several ids (kimi_k3, plamo3), and the
count rules of vLLM's classes that differ from the text split (the depth counter of
BaseThinkingReasoningParser and MiniMaxM3, HYV4's count up to the first end marker, Muse's
recipient read from the text since the last marker id).

A module of its own (``record_reasoning_tokens.py`` records them with the reasoning cases of
``parser_cases.CASES``): the shapes that exercise the id-sequence count, a marker cut at the
output's end, a marker's ids split across chunks (the tests chunk every case), Kimi K3's
reopening block and its response channel inside and outside the block; nested and stray
markers, a switch turned off, a start marker that is not the output's first id. Expected counts are
recorded from vLLM's classes, never from tito.
"""

from __future__ import annotations

from parser_cases import _PL
from parser_cases_k3 import C, MSG, O, S, THINK, THINK_END, resp

BT, ET = _PL["begin_think"], _PL["end_think"]


def cases() -> list[dict]:
    k3 = {
        "reopen": f"{THINK}a b{THINK_END}c{THINK}d e f{THINK_END}g",
        "reopen_unclosed": f"x y{THINK_END}" + resp("c") + f"{THINK}d e",
        "response_in_block": f"{THINK}a{O}response{S}b{THINK_END}c",
        "response_then_think": resp("x") + f"{THINK}y z{THINK_END}w" + MSG,
        "response_no_open_then_text": f"a{O}response{S}b c{THINK_END}d",
        "cut_open": f"{THINK}a{THINK_END}b{O}thi",
        "cut_piece": f"a b{O}",
        "cut_close": f"a b{C}think",
        "open_then_close": f"a{O}{C}think{S}b",
        "sep_alone": f"a{S}b{C}{S}c{THINK_END}d",
        "long": f"{THINK}" + "word " * 40 + f"{THINK_END}" + resp("done") + MSG,
    }
    out = []
    for kw, tag in ((None, ""), ({"thinking": False}, "off_")):
        for cid, text in k3.items():
            case = {"id": f"count/kimi_k3_{tag}{cid}", "tool": None, "reasoning": "kimi_k3",
                    "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    pl = {
        "cut_end": f"{BT}hm a{_PL['end_think'][:-len(':plamo|>')]}",
        "cut_piece": f"hm{_PL['end_think'][:-len(':plamo|>')]}x",
        "begin_after": f"a{ET}b{BT}c{ET}d",
        "call_after_block": f"{BT}a b{ET}c" + _PL["begin_tool_requests"] + "x",
        "long": "word " * 40 + f"{ET}answer",
        "pieces_alone": f"{BT}a<|plamo:begin_b:plamo|>c{ET}d",
    }
    for kw, tag in ((None, ""), ({"enable_thinking": False}, "off_")):
        for cid, text in pl.items():
            case = {"id": f"count/plamo3_{tag}{cid}", "tool": None, "reasoning": "plamo3",
                    "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    return out + _rule_cases() + special_cases()


#: rows whose vLLM class is engine-based (tito.core.parsers.reasoning_skip.ENGINE_GRAMMARS) and
#: some that count ids (deepseek_r1, minimax_m3, hy_v4, kimi_k3, inkling): their block's markers
_SPECIAL_ROWS = {
    "qwen3": ("<think>", "</think>"), "step3p5": ("<think>", "</think>"),
    "mimo": ("<think>", "</think>"), "nemotron_v3": ("<think>", "</think>"),
    "granite_thinking_parser": ("<think>", "</think>"),
    "seed_oss": ("<seed:think>", "</seed:think>"), "glm45": ("<think>", "</think>"),
    "glm47": ("<think>", "</think>"), "ling3": ("<think>", "</think>"),
    "deepseek_v4": ("<think>", "</think>"), "deepseek_v41": ("<think>", "</think>"),
    "mistral": ("[THINK]", "[/THINK]"), "kimi_k2": ("<think>", "</think>"),
    "minimax_m2": ("<think>", "</think>"), "gemma4": ("<|channel>", "<channel|>"),
    "plamo3": (BT, ET), "deepseek_r1": ("<think>", "</think>"),
    "minimax_m3": ("<mm:think>", "</mm:think>"), "hy_v4": ("<think>", "</think>"),
    "kimi_k3": (THINK, THINK_END),
    "inkling": ("<|message_model|><|content_thinking|>", "<|end_message|>"),
}


def special_cases() -> list[dict]:
    """Special tokens inside the block (issue 10): vLLM's engine-based classes drop those their
    grammar does not name (no count), and count 0 for an id their grammar matches by id
    without a transition from the block (``framing``); the others count every id. Only specials the recorder's
    tokenizer lists in ``all_special_ids`` (its eos and pad, ``<|im_end|>`` and
    ``<|endoftext|>``, and the format's markers): tito reads "special" off the vocabulary."""
    out = []
    for name, (s, e) in _SPECIAL_ROWS.items():
        texts = {"in_block": f"{s}a<|im_end|> b<|endoftext|>c{e}d<|im_end|>",
                 "unclosed": f"{s}a b<|endoftext|><|endoftext|>"}
        for cid, text in texts.items():
            out.append({"id": f"count/special_{name}_{cid}", "tool": None, "reasoning": name,
                        "tools": [], "text": text})
    framing = {  # an id the grammar matches by id, without a transition from the block
        "qwen3": "<think>a</tool_call>b</think>c", "glm45": "<think>a</tool_call>b</think>c",
        "kimi_k2": "<think>a<|tool_call_end|>b<|tool_calls_section_end|></think>c",
        "seed_oss": "<seed:think>a</seed:tool_call>b</seed:think>c",
        "mistral": "[THINK]a[ARGS]b[/THINK]c", "plamo3": f"{BT}a<|plamo:tag|>b{ET}c",
        "deepseek_v4": "<think>a</｜DSML｜tool_calls>b</think>c",
        "minimax_m2": "<think>a</minimax:tool_call>b</think>c",
        "gemma4": "<|channel>a<tool_call|>b<channel|>c", "deepseek_r1": "<think>a</tool_call>b",
    }
    for name, text in framing.items():
        out.append({"id": f"count/special_{name}_framing", "tool": None, "reasoning": name,
                    "tools": [], "text": text})
    g = {"turn_in_block": "<|channel>thought\na<|turn>b<|tool_response>c<channel|>d",
         "quote_in_block": '<|channel>a<|"|>b<|"|><channel|>c',
         "bare_end": "a<|im_end|>b<|turn><channel|>c",
         "line_first": "thought\na<|turn>",
         "call_in_block": '<|channel>a<|turn><|tool_call>call:f{x:<|"|>y<|"|>}<tool_call|>'}
    for cid, text in g.items():
        for tool in (None, "gemma4"):
            out.append({"id": f"count/special_gemma4{'+gemma4' if tool else ''}_{cid}",
                        "tool": tool, "reasoning": "gemma4", "tools": [], "text": text})
    return out


def _rule_cases() -> list[dict]:
    """The count rules' shapes (``tito.core.parsers.reasoning_count``'s ``count_rule``)."""
    think = {
        "nested": "<think>a<think>b</think>c</think>d",
        "stray_ends": "</think>x</think><think>y</think>z",
        "unclosed_nested": "<think>a<think>b",
        "later_start": "abc</think>d<think>e f</think>g",
    }
    rows: list[tuple[str, dict | None, dict[str, str]]] = [
        ("deepseek_r1", None, think),
        ("step5", None, think),
        ("ernie45", None, think),
        ("holo2", None, think),
        ("holo2", {"thinking": False}, think),
        ("poolside_v1", {"thinking": True}, think),
        ("poolside_v1", None, think),
        ("deepseek_v3", {"enable_thinking": True}, think),
        ("hy_v3", {"reasoning_effort": "no_think"}, think),
        ("hy_v3", {"reasoning_effort": "high"}, think),
        ("hy_v4", None, {**think, "double_start": "<think><think>a</think>b",
                         "start_only": "<think>", "empty_block": "x<think></think>y"}),
        ("hy_v4", {"reasoning_effort": "no_think"}, {"double_start": "<think><think>a</think>b"}),
    ]
    k2 = {
        "nested": "<ifm|think_faster>a<ifm|think_faster>b</ifm|think_faster>c"
                  "</ifm|think_faster>d",
        "stray_ends": "</ifm|think_faster>x<ifm|think_faster>y</ifm|think_faster>z",
        "other_markers": "<ifm|think>a</ifm|think><ifm|think_faster>b<ifm|tool_calls>c",
    }
    rows.append(("k2_horizon", {"reasoning_effort": "low"}, k2))
    mm = {
        "ends_then_start": "a</mm:think>b</mm:think>c<mm:think>d",
        "nested": "<mm:think>a<mm:think>b</mm:think>c</mm:think>d</mm:think>e",
    }
    rows += [("minimax_m3", None, mm), ("minimax_m3", {"thinking_mode": "enabled"}, mm)]
    # Muse's count (vLLM's MuseReasoningParser.count_reasoning_tokens): the recipient is the
    # trailing ``to=X`` of the text since the last marker id, trailing whitespace allowed
    muse = {
        "ws_after_recipient": " to=user \n<|message|>a b<|eot|> to=self\t<|message|>c d<|eom|>",
        "to_twice": " to=to=self<|message|>a b<|eom|>xto=self<|message|>c<|eom|>",
        "no_eom": " to=self<|message|>a b to=user<|message|>c d to=self<|message|>e",
        "lt_in_header": " to=user<x<|message|>a b<|eom|> to=get_weather <|message|>c<|eom|>",
        "selfish": " to=selfish<|message|>a<|eom|> to=self.x<|message|>b<|eom|>",
        "to_alone": " to=<|message|>a b<|eom|>to=\x1c<|message|>c<|eom|>",
        "space_then_word": " to=user x<|message|>a b<|eom|>",
        "long_recipient": " to=" + "n" * 300 + "<|message|>a b<|eom|> to=self<|message|>c",
        "start_mid_header": " to=us<|start|>er<|message|>a b<|eom|>",
        "unicode_ws": " to=user\u3000<|message|>a<|eom|> to=user\u200b<|message|>b<|eom|>",
    }
    rows += [("muse", None, muse), ("muse_glimmer", None, {"no_eom": muse["no_eom"]})]
    out = []
    for name, kw, texts in rows:
        tag = "_".join(f"{k}_{v}" for k, v in (kw or {}).items())
        for cid, text in texts.items():
            case = {"id": f"count/{name}_{tag + '_' if tag else ''}{cid}", "tool": None,
                    "reasoning": name, "tools": [], "text": text}
            if kw:
                case["kwargs"] = kw
            out.append(case)
    return out
