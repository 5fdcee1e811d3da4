"""issue 10's parser cases from ``conformance/fuzz_parsers.py`` seed 9 (deepseek_v3 / v31 / v4, plamo3).

A module of its own (``parser_cases.CASES`` includes it); expected outputs are recorded from
vLLM 0.33's classes (``record_parsers.py fz9`` prefixes: the ids hold ``/fz9_``). Where tito
deliberately differs, ``parser_deviations._FUZZ9_DS_PLAMO_DEVIATIONS`` gives tito's answer and why.

- deepseek_v3 / deepseek_v31, a call outside any section once a section began (after a closed
  section, or behind a misspelt second section marker): vLLM's stream reads every call once the
  section's begin token is among the output ids, its batch's regex every whole call (fixed:
  before, tito made the call's markup content);
- a call whose closer is misspelt (deepseek_v31's ``<｜tool▁call▁end｜>``, plamo3's
  ``<|plamo:end_tool_arguments:plamo|>``): ``call_unclosed``;
- a DeepSeek-V4 call start written as text before a ``<think>``: ``reopen_after_call``;
- plamo3 (seed 11): a misspelt request marker (fixed: vLLM opens the call at the name marker),
  a misspelt name marker (``args_to_previous``);
- plamo3's EOT ``<|plamo:tag|>`` inside and around the block (it ends the block, text and
  count; fixed: before, the tag was a skipped special token and the block ran on).
"""

from __future__ import annotations

_WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}
_TIME = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {}}}}
TOOLS = [_WEATHER, _TIME]

_VB, _VE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_VC, _VS, _VCE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
#: a second section marker with its bar doubled (fuzz seed 9's mutation): text
_VB_BAD = "<｜tool▁calls▁begin｜｜>"


def _v3(name: str, args: str) -> str:
    return f"{_VC}function{_VS}{name}\n```json\n{args}\n```{_VCE}"


def _v31(name: str, args: str) -> str:
    return f"{_VC}{name}{_VS}{args}{_VCE}"


_W, _T = '{"city": "Paris", "days": 3}', "{}"

_P = "<|plamo:"
_PLAMO_CALL = (f"{_P}begin_tool_requests:plamo|>{_P}begin_tool_request:plamo|>"
               f"{_P}begin_tool_name:plamo|>get_time{_P}end_tool_name:plamo|>"
               f"{_P}begin_tool_arguments:plamo|>{_P}constrain|>json{_P}msg|>{{}}"
               f"{_P}end_tool_arguments:plamoo|>{_P}end_tool_request:plamo|>"
               f"{_P}end_tool_requests:plamo|>OK")

_DSML = "｜DSML｜"
_V4_CALL = (f'<{_DSML}tool_calls>\n<{_DSML}invoke name="get_weather">\n'
            f'<{_DSML}parameter name="city" string="true">Paris</{_DSML}parameter>\n'
            f"</{_DSML}invoke>\n</{_DSML}tool_calls>")


def cases() -> list[dict]:
    out = []

    def add(cid: str, tool: str | None, reasoning: str | None, text: str, **kw) -> None:
        out.append({"id": cid, "tool": tool, "reasoning": reasoning, "tools": TOOLS,
                    "text": text, **kw})

    # a call right after a closed section (no marker of its own): a call in both vLLM paths
    add("deepseek_v3/fz9_call_after_section", "deepseek_v3", None,
        f"x{_VB}{_v3('get_weather', _W)}{_VE}{_v3('get_time', _T)}{_VE}")
    add("deepseek_v31/fz9_call_after_section", "deepseek_v31", None,
        f"x{_VB}{_v31('get_weather', _W)}{_VE}{_v31('get_time', _T)}")
    # the fuzz case: text and a misspelt section marker between the sections (vLLM's batch
    # drops that text, its stream keeps it: text_kept)
    add("deepseek_v3+deepseek_r1/fz9_misspelt_section", "deepseek_v3", "deepseek_r1",
        f"<think>a</think>x{_VB}{_v3('get_weather', _W)}{_VE}x{_VB_BAD}{_v3('get_time', _T)}"
        f"{_v3('get_weather', _T)}{_VE}done\n")
    add("deepseek_v31/fz9_misspelt_section", "deepseek_v31", None,
        f"x{_VB}{_v31('get_weather', _W)}{_VE}y{_VB_BAD}{_v31('get_time', _T)}{_VE}z")
    # a misspelt call end (fuzz: deepseek_v31+deepseek_v3/1; plamo3+plamo3/9)
    add("deepseek_v31+deepseek_v3/fz9_misspelt_call_end", "deepseek_v31", "deepseek_v3",
        f"ok\n\n</think>Sure.{_VB}{_VC}get_time{_VS}{{}}<｜tool▁cal▁end｜>{_VE}Here you go:",
        kwargs={"thinking": True})
    add("plamo3+plamo3/fz9_misspelt_args_end", "plamo3", "plamo3",
        f"{_P}begin_think:plamo|>  spaced thought  {_P}end_think:plamo|>Let me check."
        + _PLAMO_CALL)
    # a DSML call start written as text before <think> (fuzz: deepseek_v4+deepseek_v4/0, /10)
    add("deepseek_v4+deepseek_v4/fz9_marker_before_think", "deepseek_v4", "deepseek_v4",
        f"Use <{_DSML}tool_calls> to call. <think>Let me think.</think>Sure.{_V4_CALL}Here.")
    add("deepseek_v4+deepseek_v4/fz9_marker_opens_output", "deepseek_v4", "deepseek_v4",
        f"<{_DSML}tool_calls><think>hm.{_V4_CALL}")
    # plamo3's EOT <|plamo:tag|> (its grammar ends the block there and drops it everywhere;
    # usage counts the block up to it: reasoning_tokens_vllm.json records these too)
    b, e, t = f"{_P}begin_think:plamo|>", f"{_P}end_think:plamo|>", f"{_P}tag|>"
    for cid, text, kw in (("tag_in_block", f"{b}a{t}b{e}c", {}), ("tag_opens", f"a b{t}c", {}),
                          ("tag_after_block", f"{b}a{e}b{t}c", {}),
                          ("tag_thinking_off", f"{b}a{t}b{e}c", {"enable_thinking": False})):
        add(f"plamo3/fz9_reasoning_{cid}", None, "plamo3", text, **({"kwargs": kw} if kw else {}))
    add("plamo3+plamo3/fz9_tag_in_block", "plamo3", "plamo3", f"{b}a{t}b{e}c")
    add("plamo3+plamo3/fz9_tag_before_call", "plamo3", "plamo3",
        f"x{t}y{_PLAMO_CALL.replace('plamoo|>', 'plamo|>').removesuffix('OK')}")
    # fuzz seed 11: a misspelt request marker (vLLM opens the call at the name marker: fixed)
    # and a misspelt name marker (vLLM appends the arguments to the call before: args_to_previous)
    req = f"{_P}begin_tool_request:plamo|>"
    good = _PLAMO_CALL.replace("plamoo|>", "plamo|>").removesuffix("OK")
    second = good.replace(f"{_P}begin_tool_requests:plamo|>", "").replace(
        f"{_P}end_tool_requests:plamo|>", "").replace("get_time", "get_weather")
    add("plamo3/fz9_misspelt_request_marker", "plamo3", None,
        "Hi" + good.replace(req, "<|plammo:begin_tool_request:plamo|>", 1)
        .replace(f"{_P}end_tool_requests:plamo|>", second + f"{_P}end_tool_requests:plamo|>")
        + "Sure.")
    add("plamo3+plamo3/fz9_misspelt_name_marker", "plamo3", "plamo3",
        f"{b}hm{e}" + good + "\n" + good.replace(
            f"{_P}begin_tool_name:plamo|>", "<|plamo:begin_ttool_name:plamo|>").replace(
            "get_time", "get_weather") + "Done.")
    return out
