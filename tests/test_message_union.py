"""Which message type vLLM 0.33 gives a message (its custom type or its role's OpenAI type):
``tito.core.message_union.custom_typed`` against vLLM's own pydantic union, recorded by
``conformance/record_message_union.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
from hypothesis import given, settings, strategies as st
from openai.types.chat import ChatCompletionFunctionToolParam

from tito.core.message_union import custom_typed, typed_tools

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "goldens" / "message_union.json"

_TOOLS = pydantic.TypeAdapter(list[ChatCompletionFunctionToolParam])


def test_custom_typed_matches_vllms_union() -> None:
    cases = json.loads(GOLDEN.read_text())["cases"]
    assert len(cases) > 500
    assert {c["custom"] for c in cases} == {True, False}
    wrong = [c for c in cases if custom_typed(c["message"]) != c["custom"]]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"


_STRICT = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(
    [0.0, 1.0, 0.5, "yes", "YES", "No", "t", "F", "on", "off", "1", "0", "true", "maybe", "",
     " yes", [], {}]))


@settings(max_examples=300, deadline=None)
@given(strict=_STRICT, name=st.one_of(st.text(max_size=3), st.integers()),
       description=st.one_of(st.none(), st.text(max_size=3)),
       parameters=st.one_of(st.none(), st.just({}), st.just([]), st.just({"a": 1})))
def test_typed_tools_validate_as_openais_typed_dict(strict, name, description, parameters
                                                    ) -> None:
    """A developer message's tools are typed as pydantic types them with openai's
    ``ChatCompletionFunctionToolParam`` (the reference): accepted or refused alike, ``strict``
    read as the same lax bool, the typed keys in declaration order."""
    fn = {"strict": strict, "parameters": parameters, "description": description, "name": name}
    tool = {"type": "function", "function": fn}  # extras: render_chat_messages' goldens
    try:
        want = _TOOLS.validate_python([tool])
    except pydantic.ValidationError:
        assert typed_tools([tool]) is False
        return
    got = typed_tools([tool])
    assert got == want
    assert [list(t) for t in got] == [["function", "type"]]
    assert list(got[0]["function"]) == ["name", "description", "parameters", "strict"]
    assert typed_tools(None) is None and typed_tools({"a": 1}) is False
