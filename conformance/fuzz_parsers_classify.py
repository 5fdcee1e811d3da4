"""How :mod:`fuzz_parsers` classifies a difference between tito's parsers and vLLM 0.33.0's:
vLLM's own (its stream against its batch, its errors) or a documented deliberate deviation
(``docs/conformance.md``, the parser modules' headers, ``tests/goldens/parser_deviations*.py``).

Why a module of its own: the rules grow with every format the fuzzer covers; the fuzzer's
driver (case generation, both sides' runs, the summary) stays readable apart from them.
:func:`deviation` names the deviation a difference is, or None (tito's to fix); the kinds
of difference and the format-free value tests are :mod:`fuzz_parsers_compare`'s.
"""

from __future__ import annotations

import re

from fuzz_parsers_compare import (
    _bracket_cut,
    _json_equal,
    _kept_call,
    _keys,
    _same_call,
    _strip_keys,
    _subdict,
    _subsequence,
    _typed_equal,
    compare,
)


#: kinds that are vLLM's own: its stream differs from its batch; its batch raised (a 500 in
#: vLLM's server: internlm's second call)
_NOT_TITOS = ("vllm_stream", "vllm_error")

#: vLLM parsers whose batch path re-serializes the arguments (json.dumps) while their stream
#: sends the model's text: tito streams the model's text in both (stream == batch)
_BATCH_RESERIALIZES = {"hermes", "qwen3_json", "longcat", "hunyuan_a13b", "mistral", "granite",
                       "kimi_k2", "plamo3", "inkling"}


def deviation(case: dict, kind: str, want: dict, got: dict, vstreams: dict) -> str | None:
    """The documented deliberate difference this is, by name, or None (a difference to fix).

    Each is listed in docs/conformance.md ("Tool and reasoning parsers") or its parser module's
    header: ``text_after_calls`` (tito keeps text after and between calls as content, vLLM
    drops it), ``truncated_call`` (an output cut inside a call: tito makes the call from what
    came), ``unknown_tool_text`` (a call of a tool the request lacks, in the formats that check
    names: tito keeps its markup as content, vLLM drops it), ``batch_reserializes`` (vLLM's
    batch rewrites the arguments with json.dumps, its stream does not), ``repeated_markers``
    (plamo3: a later start marker reopens the block in vLLM's batch), ``granite_unclosed`` (vLLM's
    granite batch makes an unclosed block content, its stream reasoning), ``hunyuan_unclosed``
    (vLLM's hunyuan needs ``</tool_calls>``; tito streams the calls as they come),
    ``gemma4_bare_end`` (a ``<channel|>`` with no block open: vLLM's batch makes the text before
    it reasoning, its stream content; tito follows the stream),
    ``text_kept`` (the calls are vLLM's and the content only adds text vLLM drops: a broken
    call's markup, text inside a section, a stray marker; tito never loses text),
    ``follows_vllm_stream`` (vLLM's batch and stream disagree and tito's answer is vLLM's stream,
    one token per delta and in random chunks: deepseek_v4's markers with thinking off),
    ``batch_whole_text`` (vLLM's batch gives up on the whole output, all content and no call,
    when one call in it is broken or a marker stands in the text; tito reads each call),
    ``markup_name`` (vLLM made a call whose name holds text or markup, a marker written in the
    text having opened it; tito keeps that text as content), ``value_kept`` (a parameter whose
    closing markup is broken or misspelt: vLLM's batch drops it, its stream sends it unclosed;
    tito keeps its text, as ``truncated_call``), ``key_stripped`` (hy_v4: vLLM's batch keeps the
    spaces around a key, its stream and tito strip them), ``call_unclosed`` (kimi_k3, deepseek_v3 /
    v31, plamo3, glm45 / glm47 / ling3, deepseek_v32, kimi_k2, hy_v3, step3, poolside_v1,
    functiongemma, ernie45: a call whose closer,
    ``<|close|>call<|sep|>``, ``<｜tool▁call▁end｜>``, ``<|plamo:end_tool_arguments:plamo|>``,
    ``</tool_call>``, ``</｜DSML｜invoke>``, ``<|tool_call_end|>``, functiongemma's
    ``}<end_function_call>``, is missing or misspelt (or spaced), or
    whose opener stands in the text before a real call (minimax_m2's ``<invoke name="`` too;
    dots: an invoke whose closer is misspelt, past its bounded hold, or nested in the one
    before): vLLM's call runs on to the
    next closer, taking the next call's arguments or the rest of the output (not JSON), or is
    never emitted; tito ends it at the next call, the section's end or its JSON's end),
    ``reopen_after_call`` (a start marker after the reasoning grammar's call start, written as
    text or in a call: vLLM's batch reasoning pass reads the tool markup as text and reopens the
    block there, its stream hands over to the tool grammar, which drops it; tito's reasoning is
    vLLM's stream's, the text the tool stage's content), ``list_markup`` (granite,
    hunyuan_a13b: a list whose elements are all no call: tito keeps the elements' text as
    content and drops the list's markup; vLLM's granite parser drops the whole list, composed
    with granite's reasoning parser it keeps all of it, as hunyuan_a13b's does),
    ``args_to_previous`` (plamo3: a request whose name marker is misspelt:
    vLLM's grammar drops its name and appends its arguments to the previous call, not JSON;
    tito keeps the broken request as content), ``inkling_tool_alone_reasoning`` (the Inkling
    tool parser alone: thinking blocks are reasoning, as vLLM's stream; its batch drops them),
    ``element_loose`` (granite: a list element whose
    JSON is broken, a stray ``"`` or a missing ``,``: vLLM's parser engine still greps its name
    and carves its arguments out, ``{}`` when it finds none; tito makes the element content),
    ``string_args`` (granite: ``"arguments"`` written as a JSON string, granite4's form, is its
    decoded text in tito; vLLM's granite makes the whole element the arguments in its batch and
    sends none in its stream), ``gemma4_after_args`` (gemma4: text after a call's arguments
    closed whose ``<tool_call|>`` is misspelt: vLLM reads it as more members, the next call's
    header a key and its members merged in; tito drops it and reads the next call),
    ``args_marker_broken`` (kimi_k2: a call whose ``<|tool_call_argument_begin|>`` is misspelt:
    vLLM's engine makes the call with ``{}``, or with the next call's arguments, that call
    lost, and drops its arguments' text; tito keeps the call's text as content),
    ``marker_in_string`` (mistral: a ``[TOOL_CALLS]`` inside a JSON string of the arguments is
    the string's text in tito, so a stray ``"`` carries the next calls into the arguments;
    vLLM's engine splits at the token wherever it stands), ``section_end_dropped`` (step3,
    hy_v3, hy_v4: a section holding no call: vLLM's batch makes the whole output content, its
    end marker included, its stream drops the section; tito keeps the section's text as
    content, its end marker dropped as markup), ``role_without_sep`` (gigachat3: ``function
    call<|role_sep|>`` without ``<|message_sep|>`` before it: vLLM's batch makes the call and
    the whole output content, the call's JSON included; tito's content is the text before it),
    ``args_not_json`` (deepseek_v31: a call whose arguments do not open as a JSON object,
    a stray character before the ``{``: vLLM makes the call with that text as its arguments;
    tito keeps the call's text as content), ``bracket_kinds`` (arguments whose brackets do not match, a ``[`` dropped: tito's O(1)
    scanner counts brackets, not their kinds, so a ``]`` closing a ``{`` ends the arguments there
    and the rest is content; vLLM's run on to the next marker; neither is JSON).
    """
    tool, reasoning, cid = case["tool"], case["reasoning"], case["id"]
    wc, gc = want.get("calls") or [], got.get("calls") or []
    if tool == "hy_v4" and wc != (wc := [[n, _strip_keys(a)] for n, a in wc]):
        # vLLM's hy_v4 batch keeps a key's spaces, its stream strips them (tito too); the
        # classes below see the stripped keys
        if not compare(dict(want, calls=wc), got):
            return "key_stripped"
    if "muse" in (tool or "") or "muse" in (reasoning or ""):
        found = _muse_deviation(kind, want, got, vstreams.get("1") or {}, case)
        if found:
            return found
    if tool == "inkling" and reasoning is None and kind == "reasoning" \
            and not want.get("reasoning") and got.get("reasoning") == vs1_reasoning(vstreams):
        return "inkling_tool_alone_reasoning"  # thinking blocks: vLLM's stream's reasoning
    typed = tool in _BATCH_RESERIALIZES
    same_calls = len(wc) == len(gc) and all(
        a[0] == b[0] and (_same_call(a, b) or (typed and _typed_equal(a[1], b[1])))
        for a, b in zip(wc, gc))
    # the calls are vLLM's but for values vLLM's batch dropped (``value_kept``)
    kept_calls = len(wc) == len(gc) and all(
        a[0] == b[0] and (_same_call(a, b) or _subdict(a[1], b[1])) for a, b in zip(wc, gc))
    wcont, gcont = want.get("content") or "", got.get("content") or ""
    trunc = ",trunc" in cid or ":trunc" in cid
    vs1 = vstreams.get("1") or {}
    text = case["text"]
    if kind in ("args_bytes", "args") and typed and same_calls:
        # (granite, kimi_k2 and mistral's batch also type the values from the tool schema)
        return "batch_reserializes"
    if not wc and gc and wcont and kind in ("content", "n_calls", "name") and any(
            t.rstrip().endswith(wcont) for t in (text, text.replace("</think>", ""))):
        # vLLM's batch: one broken call makes the whole output content (a <tool_call> written
        # before </think> ends qwen3's block there, and vLLM's content then lacks the </think>)
        return "batch_whole_text"
    if not wc and not wcont and gc and text.strip() and kind in ("content", "n_calls"):
        return "batch_whole_text"  # vLLM's batch returned nothing at all (phi4's nested ']')
    if kind == "args" and len(wc) == len(gc) and all(
            a[0] == b[0] and _subdict(a[1], b[1]) for a, b in zip(wc, gc)):
        return "value_kept"  # a value whose closing markup is broken: vLLM's batch drops it
    if kind in ("args", "content") and _bracket_cut(wc, gc, gcont):
        return "bracket_kinds"  # a ']' closing a '{': tito's arguments end there
    if tool == "xlam" and kind in ("content", "n_calls") and not wc and gc \
            and [c[0] for c in vs1.get("calls") or []] == [c[0] for c in gc]:
        return "text_after_calls"  # a list followed by text: vLLM's batch makes it all content
    if tool == "gigachat3" and kind in ("content", "n_calls") and not wc and gc \
            and [c[0] for c in vs1.get("calls") or []][:1] == [gc[0][0]]:
        return "text_after_calls"  # text after the call: vLLM's batch makes it all content
    if tool == "gigachat3" and kind == "content" and same_calls and wcont == text.strip() \
            and "<|message_sep|>" not in text and "function call<|role_sep|>" in text:
        return "role_without_sep"  # vLLM's batch: the call, and the whole output content
    if tool in ("lfm2", "apertus") and kind == "content" and same_calls \
            and _subsequence(wcont.replace("\n", ""), gcont):
        return "text_kept"  # vLLM's batch joins the text around the block with a newline
    if reasoning == "plamo3" and kind in ("reasoning", "content") \
            and text.count("<|plamo:begin_think:plamo|>") > 1:
        return "repeated_markers"  # a later start marker reopens the block in vLLM's batch
    if tool in ("pythonic", "llama4_pythonic", "lfm2", "xlam") and kind in ("content", "n_calls") \
            and not wc \
            and wcont == case["text"].strip() and vs1.get("calls") == gc:
        return "text_after_calls"  # a list followed by text: vLLM's batch makes it all content
    if kind == "content" and kept_calls and gcont.startswith(wcont) and (wc or "nocall" not in cid):
        return "text_after_calls"
    if "unknown_tool" in cid and tool in ("glm45", "glm47", "minimax_m2", "deepseek_v32") \
            and kind in ("content", "n_calls") and len(gc) <= len(wc) + 0 or (
                "unknown_tool" in cid and kind == "content" and "not_a_tool" in gcont):
        return "unknown_tool_text"
    if reasoning == "granite" and "Here is my response:" not in case["text"]:
        return "granite_unclosed"
    if reasoning == "olmo3" and "</think>" not in case["text"]:
        return "granite_unclosed"  # the same rule: vLLM's olmo3 batch makes it all content
    if tool == "hunyuan_a13b" and "</tool_calls>" not in case["text"][case["text"].find("<tool_calls>"):]:
        return "hunyuan_unclosed"
    if reasoning == "hunyuan_a13b" and "\n</think>\n<answer>\n" not in text \
            and text.startswith("<think>\n"):
        return "granite_unclosed"  # the same rule: vLLM's hunyuan batch makes it all content
    if trunc and kind in ("n_calls", "content", "args", "args_bytes") and len(gc) >= len(wc):
        return "truncated_call"
    if tool == "granite" and kind in ("content", "n_calls") and len(wc) > len(gc) \
            and _subsequence(gc, wc) and _subsequence(wcont, gcont) \
            and all(f'"name": "{n}"' in gcont for n, a in wc if [n, a] not in gc):
        return "element_loose"  # vLLM read a broken element's name and arguments loosely
    if tool == "granite" and kind in ("args", "content") and re.search(r'"arguments"\s*:\s*"', text):
        return "string_args"  # tito reads granite4's string arguments, vLLM's granite does not
    if tool == "kimi_k2" and kind in ("content", "n_calls", "name") and len(wc) >= len(gc) \
            and _subsequence(wcont, gcont) \
            and all(a == "{}" for n, a in wc if not any(_kept_call([n, a], g) for g in gc)) \
            and text.count("<|tool_call_argument_begin|>") < text.count("<|tool_call_begin|>"):
        return "args_marker_broken"  # vLLM calls it with {}, its arguments' text dropped
    end = {"step3": "<｜tool_calls_end｜>", "hy_v3": "</tool_calls>", "hy_v4": "</tool_calls>"}.get(
        tool or "")
    if end and kind == "content" and not wc and not gc and end in wcont \
            and wcont.replace(end, "").strip() == gcont.replace(end, "").strip():
        return "section_end_dropped"  # a section with no call: tito drops its end marker
    if tool == "mistral" and kind == "n_calls" and 0 < len(gc) < len(wc) \
            and "[TOOL_CALLS]" in gc[-1][1] and not _json_equal(gc[-1][1], gc[-1][1]):
        return "marker_in_string"  # a stray quote: tito's arguments run on over the next calls
    if tool == "gemma4" and kind in ("args", "n_calls", "content") and any(
            any(c in k for c in "}<") for _, a in wc for k in _keys(a)):
        return "gemma4_after_args"  # vLLM read the text after the arguments as a member
    if tool == "step3" and vs1 and "error" not in vs1 and re.search(
            "<｜tool_call_begin｜>(?!function<｜tool_sep｜>)", text):
        from parser_pipeline import norm  # noqa: PLC0415  (tests/goldens, on sys.path)

        if not compare(norm(vs1), got):
            return "follows_vllm_stream"  # a call without function<｜tool_sep｜>: its stream's
    if tool in ("granite", "hunyuan_a13b") and kind == "content" and not wc and not gc \
            and _subsequence(gcont, wcont) and "tool_call" in wcont:
        # a list whose elements are all no call: tito keeps their text, not the list's markup
        # (vLLM's granite alone drops it all; composed with granite's reasoning: all of it;
        # hunyuan_a13b's batch and stream keep the whole output, fuzz seed 28)
        return "list_markup"
    if kind in ("content", "n_calls", "name", "args", "args_bytes") and any(
            text.count(closer) < text.count(opener)
            for opener, closer in _CALL_CLOSERS.get(tool or "", ())):
        return "call_unclosed"  # vLLM's call runs to the next closer (or is never emitted)
    if tool == "minimax_m2" and kind in ("content", "n_calls") and _subsequence(
            wc, gc, same=_kept_call) and (-1 < text.find("<invoke name=") < text.find(
            "<minimax:tool_call>") or re.search(r'<invoke name="[^"<>]*"(?!>)', text)):
        # an invoke written as text, or one whose header lost its '>': vLLM's name runs over
        # the next call's markup (no tool: both dropped)
        return "call_unclosed"
    if tool == "dots" and kind in ("content", "n_calls", "name", "args", "args_bytes") \
            and _dots_unclosed(text):
        return "call_unclosed"  # a long invoke with a misspelt closer, or one nested in it
    if tool == "plamo3" and kind in ("content", "args", "n_calls") \
            and text.count("<|plamo:begin_tool_name:plamo|>") < text.count(":end_tool_name:plamo|>"):
        return "args_to_previous"  # vLLM appends a nameless request's arguments to the call before
    if tool in ("deepseek_v3", "deepseek_v31"):
        found = _deepseek_stream_side(kind, want, got, vs1, text)
        if found:
            return found
        if tool == "deepseek_v31" and kind in ("content", "n_calls", "args", "args_bytes") \
                and len(gc) < len(wc) and any(not a.lstrip().startswith("{") for _, a in wc):
            return "args_not_json"  # vLLM's call takes any text as its arguments
    section = {"jamba": "<tool_calls>", "hunyuan_a13b": "<tool_calls>", "hy_v4": "<tool_calls>",
               "kimi_k3": "<|open|>tools<|sep|>",
               "step3": "<｜tool_calls_begin｜>", "phi4_mini_json": "functools["}.get(tool or "")
    if section and kind in ("content", "n_calls", "args_bytes") and text.count(section) > 1 \
            and _subsequence(wc, gc, same=_kept_call):
        return "text_after_calls"  # vLLM's jamba / hunyuan_a13b / step3 / phi4 / hy_v4 read one section
    if kind in ("content", "n_calls", "name", "reasoning") and any(
            not _NAME.fullmatch(n or "") for n, _ in wc):
        return "markup_name"  # vLLM named a call with text or markup (a marker in the text)
    if kind in ("content", "n_calls", "name") and any(
            re.search(r"<function=\s*" + re.escape(n) + r"\s*<", text) for n, _ in wc if n):
        return "markup_name"  # (its batch strips the name: `<function= token <tool_call>`)
    if reasoning == "gemma4" and kind in ("reasoning", "content"):
        end = text.find("<channel|>")
        if end != -1 and "<|channel>" not in text[:end] and not text.startswith("thought\n"):
            return "gemma4_bare_end"  # vLLM's batch: the whole text decides; tito: its stream
    if kind == "content" and kept_calls and _subsequence(wcont, gcont):
        return "text_kept"  # markup or text vLLM drops (a broken call, a stray marker) is content
    wr, gr = want.get("reasoning") or "", got.get("reasoning") or ""
    markers = _REOPEN_MARKERS.get(reasoning or "")
    if kind == "reasoning" and markers and markers[0] in text[max(text.find(markers[1]), 0):] \
            and markers[1] in text and (vs1.get("reasoning") or "").strip() == gr.strip():
        # (vLLM's stream in random chunks may reopen it too: deepseek_v41 seed 27)
        return "reopen_after_call"  # vLLM's batch reopens the block after the call start
    if kind == "reasoning" and (gr.endswith(wr) if wr else gr.strip() == text[
            :max(text.find("<think>"), 0)].strip()) and (
            text.find("<think>") > 0 or text.find("<|open|>think<|sep|>") > 0):
        return "text_kept"  # the text before a <think> in an open block stays reasoning
    from parser_pipeline import norm  # noqa: PLC0415  (tests/goldens, on sys.path)

    streams = [norm(v) for v in vstreams.values() if "error" not in v]
    if streams and all(not compare(v, got) for v in streams):
        return "follows_vllm_stream"  # vLLM's batch and stream disagree; tito is its stream
    return None


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
}

#: a function name as a model writes one (vLLM's names with spaces, markup or punctuation come
#: from a marker in the text: ``markup_name``)
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


def vs1_reasoning(vstreams: dict) -> str | None:
    """The reasoning of vLLM's stream one token per delta (None when it was not run)."""
    return (vstreams.get("1") or {}).get("reasoning")


def _muse_deviation(kind: str, want: dict, got: dict, vs1: dict, case: dict) -> str | None:
    """muse7's classes (``tito.core.parsers.muse`` header): tito's reasoning or content is vLLM's
    stream (the tool parser alone: its batch makes the framed output content), or the calls are
    vLLM's and the content only adds text vLLM drops (text outside messages, a tool channel's
    text outside its invokes). glimmer8's: an output with no ``<|message|>`` at all is content
    (rule 2, ``no_header``: vLLM reads its invokes as calls); the calls are vLLM's stream's and
    the content only adds text its stream drops; an invoke whose closer was dropped or cut is
    a call of what came, ended by its channel (rule 3), where vLLM's invoke runs on into the
    next channel and takes its call (every vLLM call is one of tito's); so is one whose closer
    is misspelt (its text, the misspelt closer included, is content)."""
    wc, gc = want.get("calls") or [], got.get("calls") or []
    if kind in ("reasoning", "content") and vs1 \
            and (vs1.get(kind) or "").strip() == (got.get(kind) or "").strip():
        return "follows_vllm_stream"
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
    return None
