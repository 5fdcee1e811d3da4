"""The per-format tables and predicates :func:`fuzz_parsers_classify.deviation` consults: which
markers open and close a call (``call_unclosed``), where dots holds an invoke, DeepSeek's stream
side, the reasoning formats that reopen a block, what a model-written name looks like, the
Muse formats' own classes, and the small text predicates of single rules (a markup-named call,
a dots invoke naming no tool, inkling's whitespace between thinking blocks, the whitespace
between two ``<tool_call>`` blocks).

Why a module of its own: the classifier's rules read top to bottom as one decision list; the
format knowledge they look up grows with every format and stays here, apart from them.
"""

from __future__ import annotations

import ast
import json
import re

from fuzz_parsers_compare import _same_call, _subsequence, compare


#: tool format -> (a call's opener, its closer): a call whose closer is missing or misspelt
#: (``call_unclosed``: vLLM's call runs on to the next closer or the end of the output, or its
#: batch never emits it; tito ends it where its arguments end, and the XML formats
#: (``tools/_xml.py``) keep the text between them and the next call's opener, the misspelt
#: closer included, as content)
_CALL_CLOSERS = {
    "kimi_k3": (("<|open|>call ", "<|close|>call<|sep|>"),),
    # (vLLM's regex needs the fence right before the end marker; tito allows whitespace)
    "deepseek_v3": (("<｜tool▁call▁begin｜>", "\n```<｜tool▁call▁end｜>"),),
    "deepseek_v31": (("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),),
    "plamo3": (("<|plamo:begin_tool_arguments:plamo|>", "<|plamo:end_tool_arguments:plamo|>"),
               ("<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>")),
    # (GLM's regex runs a call to the next </tool_call>: a misspelt closer, or a <tool_call>
    # written as text before a real call, makes it take the next call's text; a name that is
    # not a tool then drops both)
    **{glm: (("<tool_call>", "</tool_call>"),) for glm in ("glm45", "glm47", "ling3")},
    "deepseek_v32": (("<｜DSML｜invoke name=", "</｜DSML｜invoke>"),),
    # (V3.2's grammar: deepseek_v4+deepseek_v4/fz_misspelt_invoke_end, seed 104)
    "deepseek_v4": (("<｜DSML｜invoke name=", "</｜DSML｜invoke>"),),
    "deepseek_v41": (("<｜DSML｜ invoke name=", "</｜DSML｜ invoke>"),),
    "kimi_k2": (("<|tool_call_begin|>", "<|tool_call_end|>"),),
    # (poolside_v1's batch regex needs </tool_call>: a call whose closer is misspelt is dropped)
    **{fmt: (("<tool_call>", "</tool_call>"),) for fmt in ("hy_v3", "poolside_v1")},
    # (vLLM's regex needs the ``}`` right before the end marker: with whitespace between, the
    # call runs on to the next call's ``}<end_function_call>``, whose members it takes)
    "functiongemma": (("<start_function_call>", "}<end_function_call>"),),
    # (a misspelt <｜tool_call_end｜>: vLLM's batch drops that call, its stream merges the next
    # call's parameters into it; tito ends it at the next call marker)
    "step3": (("<｜tool_call_begin｜>", "<｜tool_call_end｜>"),),
    # (vLLM's regex and its stream need </tool_call>: the call and its text are dropped; tito
    # makes the call once its JSON closed: ernie45+ernie45/fz36_misspelt_call_end, seed 25)
    "ernie45": (("<tool_call>", "</tool_call>"),),
    # (a misspelt </invoke>: vLLM's engine reads the next invoke's parameters into the call;
    # tito ends it at the next invoke; parser fuzz seed 211, fuzz/minimax_m2/2: <//invoke>)
    "minimax_m2": (("<invoke name=", "</invoke>"),),
}


def _dots_unclosed(text: str) -> bool:
    """Whether a dots block holds an invoke that vLLM and tito read apart, both documented: one
    whose ``</invoke>`` misses and whose block's end is :data:`~tito.core.parsers.tools.dots.
    CALL_HOLD` characters or more away (tito streamed it: a call; vLLM: none), or one standing
    before the ``</invoke>`` of the invoke before it (vLLM's regex gives that one its
    parameters; tito ends it there)."""
    from tito.core.parsers.tools.dots import CALL_HOLD  # noqa: PLC0415  (src, on sys.path)

    for block in re.findall(r"<dots_function_call>(.*?)(?:</dots_function_call>|$)", text, re.S):
        heads = [m.start() for m in re.finditer("<invoke name=", block)]
        for k, at in enumerate(heads):
            close = block.find("</invoke>", at)
            if close == -1 and len(block) - at >= CALL_HOLD:
                return True
            if close != -1 and k + 1 < len(heads) and heads[k + 1] < close:
                return True
    return False


_DS_CALLS, _DS_CALL = "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"


def _deepseek_stream_side(kind: str, want: dict, got: dict, vs1: dict, text: str) -> str | None:
    """deepseek_v3 / v31 where tito is vLLM's one-token stream (its stream in random chunks
    loses text there, so :func:`deviation`'s generic check misses it): a call before the first
    section marker (vLLM's batch reads it, the marker being somewhere in the output; its stream
    cannot know that yet), a section marker the output ends with (vLLM's batch keeps it as
    content when an earlier section closed, its stream drops it; tito drops it as a cut
    header's markup)."""
    from parser_pipeline import norm  # noqa: PLC0415  (tests/goldens, on sys.path)

    if not vs1 or "error" in vs1 or compare(norm(vs1), got):
        return None
    first = text.find(_DS_CALLS)
    if kind == "n_calls" and 0 <= text.find(_DS_CALL) < first:
        return "follows_vllm_stream"
    wcont = (want.get("content") or "").strip()
    if kind == "content" and text.rstrip().endswith(_DS_CALLS) and wcont.endswith(_DS_CALLS):
        return "follows_vllm_stream"
    return None

#: reasoning formats whose vLLM grammar reopens the block at a later start marker ->
#: (start marker, the grammar's call start): ``reopen_after_call``
_REOPEN_MARKERS = {
    "deepseek_v4": ("<think>", "<｜DSML｜tool_calls>"), "deepseek_v41": ("<think>", "<｜DSML｜ calls>"),
    "glm45": ("<think>", "<tool_call>"), "glm47": ("<think>", "<tool_call>"),
    "ling3": ("<think>", "<tool_call>"), "mistral": ("[THINK]", "[TOOL_CALLS]"),
    "gemma4": ("<|channel>", "<|tool_call>"),
    "plamo3": ("<|plamo:begin_think:plamo|>", "<|plamo:begin_tool_requests:plamo|>"),
    # (a thinking block opened inside a tool block that is no JSON: parser fuzz seed 172)
    "inkling": ("<|content_thinking|>", "<|content_invoke_tool_json|>"),
}

#: a function name as a model writes one (vLLM's names with spaces, markup or punctuation come
#: from a marker in the text: ``markup_name``)
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


def vs1_reasoning(vstreams: dict) -> str | None:
    """The reasoning of vLLM's stream one token per delta (None when it was not run)."""
    return (vstreams.get("1") or {}).get("reasoning")


def _composed_reasoning(case: dict) -> str | None:
    """The reasoning of vLLM's composed Muse parsers (the tool parser with its own reasoning
    parser) on a tool-parser-alone case, when the case has a header without ``<|eom|>`` inside a
    message (else None): there vLLM's tool parser alone gives no reasoning in its batch and
    its stream's depends on the chunking (the spaces before the header are the header's, or,
    one token per delta, its held-back `` to`` leaks), while its composed parsers' batch and
    stream agree, and tito's answer is theirs (``muse_no_eom_before_header``, seed 110)."""
    if not _NO_EOM_HEADER.search(case["text"]):
        return None
    import record_parsers  # noqa: PLC0415  (vLLM's side: the fuzzer runs in vLLM's python)

    batch = record_parsers.record(dict(case, reasoning=case["tool"]))["batch"]
    return batch.get("reasoning") or None


#: a message body that a header ends before any ``<|eom|>`` / ``<|eot|>`` (rule 1 of
#: ``tito.core.parsers.muse``)
_NO_EOM_HEADER = re.compile(
    r"<\|message\|>(?:(?!<\|eom\|>|<\|eot\|>|<\|start\|>).)*?[ \t]to=[^\s<]+<\|message\|>", re.S)


def _muse_deviation(kind: str, want: dict, got: dict, vs1: dict, case: dict) -> str | None:
    """muse7's classes (``tito.core.parsers.muse`` header): with the tool parser alone, tito's
    reasoning is vLLM's composed parsers' where its tool parser alone's depends on the chunking
    (``follows_vllm_composed``: :func:`_composed_reasoning`); tito's reasoning or content is
    vLLM's stream (the tool parser alone: its batch makes the framed output content), or the calls are
    vLLM's and the content only adds text vLLM drops (text outside messages, a tool channel's
    text outside its invokes). glimmer8's: an output with no ``<|message|>`` at all is content
    (rule 2, ``no_header``: vLLM reads its invokes as calls); the calls are vLLM's stream's and
    the content only adds text its stream drops; an invoke whose closer was dropped or cut is
    a call of what came, ended by its channel (rule 3), where vLLM's invoke runs on into the
    next channel and takes its call (every vLLM call is one of tito's); so is one whose closer
    is misspelt (its text, the misspelt closer included, is content)."""
    wc, gc = want.get("calls") or [], got.get("calls") or []
    if kind == "reasoning" and case["reasoning"] is None and got.get("reasoning") \
            and _composed_reasoning(case) == got["reasoning"]:
        return "follows_vllm_composed"
    if case["reasoning"] == "muse_glimmer" and vs1 and "<|start|>" in (vs1.get("reasoning") or ""):
        # Glimmer's reasoning parser reads a body without <|eom|> on to the next to=NAME header,
        # <|start|>assistant included (seed 120): tito's ends at <|start|>, as its tool parser's
        vs1 = dict(vs1, reasoning=_GLIMMER_START.sub("", vs1["reasoning"]))
        if kind == "reasoning" and vs1["reasoning"] == (got.get("reasoning") or ""):
            return "glimmer_start_in_reasoning"
    if kind in ("reasoning", "content") and vs1 \
            and (vs1.get(kind) or "").strip() == (got.get(kind) or "").strip():
        return "follows_vllm_stream"
    if kind in ("reasoning", "content") and vs1 and case["reasoning"] is None \
            and (vs1.get(kind) or "").strip() == _tails_dropped(case["text"], got.get(kind) or ""):
        return "marker_tail_kept"  # vLLM's tool parser alone never sends it (seed 923)
    if kind == "n_calls" and vs1 and (vs1.get("calls") or []) == gc:
        return "follows_vllm_stream"  # (a header rule 1 drops: vLLM's batch reads its invoke)
    if kind == "content" and [c[0] for c in wc] == [c[0] for c in gc]:
        return "text_kept"
    if kind in ("content", "n_calls") and "<|message|>" not in case["text"] and not gc:
        return "text_kept"
    if kind == "content" and vs1 and [c[0] for c in vs1.get("calls") or []] \
            == [c[0] for c in gc] and (vs1.get("reasoning") or "") == (got.get("reasoning") or "") \
            and _subsequence((vs1.get("content") or "").strip(), got.get("content") or ""):
        return "text_kept"
    # (an invoke whose closer is misspelt ends with its channel as a dropped one: seed 104)
    unclosed = case["text"].count("</atem:invoke>") < case["text"].count("<atem:invoke ")
    if kind in ("content", "n_calls") and ("drop:" in case["id"] or "trunc" in case["id"]
                                           or unclosed) \
            and len(gc) > len(wc) and _subsequence(wc, gc, _same_call):
        return "truncated_call"
    if kind in ("content", "n_calls", "args") and unclosed and _merged(wc, gc):
        return "truncated_call"  # vLLM's unclosed invoke ran on and took the next one's params
    return None


_MARKERS = ("<|eom|>", "<|eot|>", "<|start|>", "<|message|>")


def _tails_dropped(text: str, got: str) -> str:
    """``got`` without the marker pieces that end a body where the next ``<|start|>`` ends it
    (``think<|eom|<|start|>``: vLLM's tool parser alone holds ``<|eom|`` back as a marker's
    start and, the body never closing, never sends it; tito keeps it, as vLLM's composed
    parsers), stripped."""
    at = text.find("<|start|>")
    while at != -1:
        body = text[text.rfind("<|message|>", 0, at) + len("<|message|>") : at]
        piece = next((body[-k:] for k in range(len(max(_MARKERS, key=len)) - 1, 0, -1)
                      if any(m.startswith(body[-k:]) for m in _MARKERS)), "")
        if piece and body in got:
            got = got.replace(body, body[: -len(piece)], 1)
        at = text.find("<|start|>", at + 1)
    return got.strip()


#: the framing Glimmer's reasoning parser leaves in a body without ``<|eom|>`` (the next
#: message's ``<|start|>assistant``, with no space before ``to=`` its recipient too)
_GLIMMER_START = re.compile(r"<\|start\|>assistant[^\S\n]*(?:to=[^\s<]*)?")


def _merged(wc: list, gc: list) -> bool:
    """Whether vLLM's calls ``wc`` are tito's ``gc`` with runs of consecutive calls joined into
    one (the first's name, the parameters of all: vLLM's invoke whose closer is missing or
    misspelt runs on over the next channel's invoke opener, to its ``</atem:invoke>``)."""
    i = 0
    for name, args in wc:
        if i >= len(gc) or gc[i][0] != name:
            return False
        merged: dict = {}
        try:
            want = json.loads(args)
            while i < len(gc) and merged != want:
                merged.update(json.loads(gc[i][1]))
                i += 1
        except (ValueError, TypeError, AttributeError):
            return False
        if merged != want:
            return False
    return i == len(gc)


def _markup_named(want: str, got: str) -> bool:
    """vLLM's call name ``want`` is tito's ``got``, or text or markup ending with it
    (``markup_name``: a marker written in the text before the call's name)."""
    return want == got or (bool(got) and not _NAME.fullmatch(want or "") and want.endswith(got))


def _invokes_no_tool(case: dict, content: str) -> bool:
    """Whether ``content`` holds a dots ``<invoke name="...">`` naming no tool of the request
    (a quoted name keeps its spaces: ``" get_time"``, parser fuzz seed 136 made by the ``ws``
    mutation, the settled ``dots/fz38_spaced_name`` rule)."""
    names = {t["function"]["name"] for t in case.get("tools") or []}
    return any(m not in names for m in re.findall(r'<invoke name="([^"]*)">', content))


def _ws_before_thinking(text: str, got: str, stream: str) -> bool:
    """Whether tito's reasoning is vLLM's stream's but for whitespace a thinking block ended
    with before a later one (``ws_between_thinking``: vLLM's stream drops it, tito keeps it as
    its composed batch does; parser fuzz seed 126, ``fuzz/inkling/1``)."""
    blocks = re.findall(r"<\|content_thinking\|>(.*?)<\|end_message\|>", text, re.S)
    if len(blocks) < 2 or got == stream:
        return False
    kept = "".join(b.rstrip() if k < len(blocks) - 1 else b for k, b in enumerate(blocks))
    return stream.rstrip() == kept.rstrip() and got.rstrip() == "".join(blocks).rstrip()


#: a kimi_k3 call header whose ``<|sep|>`` is misspelt, so that it runs on over the call's
#: closer to the closer's ``<|sep|>`` (vLLM's header and tito's both read to the first
#: ``<|sep|>``): the call has no closer left (``call_unclosed``; parser fuzz seed 146)
_K3_CLOSER_IN_HEADER = re.compile(r"<\|open\|>call\s(?:(?!<\|sep\|>).)*<\|close\|>call<\|sep\|>",
                                  re.S)

#: whitespace between one ``<tool_call>`` block's closer and the next one's opener
_CALL_GAP = re.compile(r"</tool_call>(\s+)(?=<tool_call>)")


def _gaps_dropped(result: dict, gaps: list[str]) -> dict:
    """vLLM's ``result`` with each whitespace run between two calls taken out of its content
    once, in order (tito's gap rule drops them: ``_base`` header)."""
    content = result.get("content") or ""
    at = 0
    for gap in gaps:
        k = content.find(gap, at)
        if k != -1:
            content, at = content[:k] + content[k + len(gap):], k
    return {**result, "content": content or None}


_PLAMO_ARGS_END = "<|plamo:end_tool_arguments:plamo|>"


def _plamo_args_not_json(kind: str, want: dict, got: dict) -> bool:
    """Whether plamo3's calls differ only where vLLM's arguments are text that opens with no
    ``{`` (``<|plamo:msg|>>{}``, a stray ``>``): vLLM's engine sends that raw text as the
    arguments (batch and stream); tito's ``amsg`` ends the call with ``{}`` and keeps the text,
    from there to the next request, as content (``args_not_json``; parser fuzz seed 154,
    ``fuzz/plamo3+plamo3/1``). For ``content``: tito's, that text taken out, still opens with
    vLLM's (its batch drops the text after the section: ``text_after_calls``)."""
    wc, gc = want.get("calls") or [], got.get("calls") or []
    if len(wc) != len(gc) or any(w[0] != g[0] for w, g in zip(wc, gc)):
        return False
    raw = [w[1] for w, g in zip(wc, gc) if w[1] != g[1]]
    if not raw or any(w[1] != g[1] and (g[1] != "{}" or w[1].lstrip().startswith("{")
                                        or not w[1].strip()) for w, g in zip(wc, gc)):
        return False
    gcont, wcont = got.get("content") or "", want.get("content") or ""
    rest = gcont
    for a in raw:
        i = rest.find(a.strip() + _PLAMO_ARGS_END)
        if i == -1:
            return False
        rest = rest[:i] + rest[i + len(a.strip()) :]
    if kind in ("args", "args_bytes", "n_calls"):
        return True
    return kind == "content" and rest.replace(_PLAMO_ARGS_END, "").replace(
        "<|plamo:end_tool_request:plamo|>", "").startswith(wcont)


def positional_call(text: str) -> bool:
    """Whether a Python list in ``text`` (from a ``[`` to the last ``]``) calls something with a
    positional argument, as ``ast`` reads it (``get_weather(detailedFalse)``, ``f(temp==2.0)``):
    vLLM's pythonic parsers drop such arguments and call the tool with the keywords left
    (``positional_arg``; parser fuzz seed 956, ``fuzz/lfm2/0``)."""
    end = text.rfind("]")
    for m in re.finditer(r"\[", text[:end]):
        try:
            tree = ast.parse(text[m.start() : end + 1], mode="eval")
        except (SyntaxError, ValueError):
            continue
        return any(isinstance(n, ast.Call) and n.args for n in ast.walk(tree))
    return False
