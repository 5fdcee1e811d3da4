"""The arguments rewrite of llama3_json / llama4_json / granite4 (``tools._jsonnorm``): any JSON
text, split anywhere, comes out as ``json.dumps(json.loads(text), ensure_ascii=False)`` writes it
(what vLLM 0.33's parsers send; recorded cases: tests/goldens parsers_vllm.json ``*/normalized*``)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tito.core.parsers.tools._jsonnorm import NUMBER_LIMIT, feed

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
_STYLES = [{}, {"ensure_ascii": False}, {"indent": 2}, {"separators": (",", ":")},
           {"separators": (" ,  ", " :\n")}, {"indent": "\t", "ensure_ascii": False}]


def run(text: str, cuts: list[int]) -> str:
    state, out, last = "", [], 0
    for cut in sorted({c % (len(text) + 1) for c in cuts}) + [len(text)]:
        state, piece = feed(state, text[last:cut])
        out.append(piece)
        last = cut
        assert len(state) <= 64
    state, piece = feed(state, "", final=True)
    return "".join([*out, piece])


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(_TEXT, _VALUES, max_size=5), style=st.sampled_from(_STYLES),
       cuts=st.lists(st.integers(0, 10**6), max_size=12))
def test_any_json_any_split_equals_json_dumps(value, style, cuts):
    text = json.dumps(value, **style)
    assert run(text, cuts) == json.dumps(json.loads(text), ensure_ascii=False)


def test_number_spellings_and_escapes():
    text = '{"a" : 1E5, "b":-0, "c":1.50, "d":"\\u00e9\\/\\ud83d\\ude00\\u0001", "e":[ true ,null ]}'
    want = json.dumps(json.loads(text), ensure_ascii=False)
    assert run(text, []) == want == run(text, list(range(len(text))))


def test_lone_surrogates_stay_escaped_and_long_numbers_pass():
    assert run('{"s": "\\ud83d x \\udc00"}', [9, 10]) == '{"s": "\\ud83d x \\udc00"}'
    big = "1" * (NUMBER_LIMIT + 5)
    assert run('{"n": ' + big + "}", [7, 30]) == '{"n": ' + big + "}"


def test_cut_inside_the_arguments_flushes_what_is_held():
    assert run('{"n": 1.50', []) == '{"n": 1.5'
    assert run('{"s": "a\\u00', []) == '{"s": "a\\u00'
