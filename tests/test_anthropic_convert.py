"""``tito.core.anthropic`` against vLLM 0.33.0's own conversion, request by request.

Why: the render goldens compare token ids, which hide what a template does not show (tool-call
ids, message boundaries a template merges, fields the prompt ignores). These goldens
(``conformance/goldens/anthropic_to_chat.json``, recorded by ``conformance/record_messages.py``)
hold the chat request vLLM's ``AnthropicServingMessages.to_chat_completion_request`` builds for
every request of the Messages corpus, with inline-system merging on and off; tito's conversion
must give the same messages and the same fields.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import replay  # noqa: E402
from tito.core.anthropic import to_chat_fields  # noqa: E402
from tito.protocol.anthropic import AnthropicMessagesRequest  # noqa: E402

CASES = json.loads((replay.GOLDENS / "anthropic_to_chat.json").read_text())["cases"]


def _vllm_ids(obj: Any) -> Any:
    """vLLM names a tool_use block without id ``call_<unix seconds>``; tito ``call_<m>_<b>``
    (the module's one deliberate difference): both become ``call_*``."""
    return json.loads(re.sub(r'"call_[0-9_]+"', '"call_*"', json.dumps(obj)))


def _tools(tools: list[dict[str, Any]] | None) -> Any:
    """Tools as the chat request holds them (null ``strict`` / ``defer_loading`` are dropped by
    the chat model's dump, on both sides)."""
    if tools is None:
        return None
    return [{"type": t["type"], "function": {k: v for k, v in t["function"].items()
                                             if v is not None or k == "description"}}
            for t in tools]


@pytest.mark.parametrize("name", sorted(CASES))
def test_conversion_matches_vllm(name: str) -> None:
    case = CASES[name]
    request = AnthropicMessagesRequest.model_validate(case["request"])
    got = to_chat_fields(request, merge_inline_system=case["merge_inline_system"])
    mine = {**got.fields, **got.assigned}
    want = dict(case["chat"])
    assert _vllm_ids(mine["messages"]) == _vllm_ids(want.pop("messages"))
    assert _tools(mine.get("tools")) == _tools(want.pop("tools", None))
    for key, value in want.items():
        if key == "response_format":  # vLLM dumps the schema by field name, not by alias
            inner = value["json_schema"]
            value = {"type": value["type"], "json_schema": {
                "name": inner["name"], "schema": inner.get("json_schema", inner.get("schema"))}}
        assert mine.get(key) == value, key
    extra = {k for k, v in mine.items() if v is not None and k not in case["chat"]}
    assert extra <= {"tools"}, extra  # every field tito sets, vLLM set too


def test_the_corpus_covers_the_conversion_rules() -> None:
    """The recorded requests exercise every block type and every choice/thinking kind."""
    bodies = [c["request"] for c in CASES.values()]
    blocks = {b.get("type") for body in bodies for m in body["messages"]
              if isinstance(m["content"], list) for b in m["content"]}
    assert blocks >= {"text", "thinking", "redacted_thinking", "tool_use", "tool_result",
                      "tool_addition", "tool_removal"}
    assert {b["tool_choice"]["type"] for b in bodies if "tool_choice" in b} == {
        "auto", "any", "tool", "none"}
    assert {b["thinking"]["type"] for b in bodies if "thinking" in b} == {
        "enabled", "disabled", "adaptive"}
