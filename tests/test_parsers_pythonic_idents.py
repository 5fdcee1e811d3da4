"""Names and keywords of any script in the pythonic family, read as Python's ``ast`` reads them.

Why: vLLM 0.33 parses the call list with Python's ``ast``, whose identifiers are Unicode
(``città=``, ``größe=``, ``名前=``, ``_tz=``; NFKC-normalised: ``ｄａｙｓ`` is ``days``); its
batch regex asks only that the first call's name and keyword start with an ASCII letter
(``[a-zA-Z]+\\w*``). tito read ASCII names only, so a schema with a parameter named in another
language lost its calls (goldens ``*/py49_ident_*`` recorded from vLLM,
``tests/goldens/parser_cases_pylit49.py``). The reference here is Python's own parser.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parsers_pythonic_comments import _assert_read, _python_calls


@pytest.mark.parametrize("text", [
    "[f(città='Roma')]",
    "[f(a=1, größe=2, Ünit='c', _x=3, 名前='x')]",
    "[f(a=1), g(名前='x', _tz=1), _h(ä=1), 関数(b=2), h()]",
    "[f(a=1, ｄａｙｓ=2), g(ﬁle=1)]",
    "[get_wéather(city='a')]",
])
def test_identifiers_of_any_script_are_read_as_python_reads_them(text: str) -> None:
    _assert_read("pythonic", text, ("", _python_calls(text)))


@pytest.mark.parametrize("text", [
    "[f(名前='x')]",  # the first call's keyword: an ASCII letter first (vLLM's batch regex)
    "[_f(a=1)]",
    "[名前(a=1)]",
])
def test_the_first_call_s_names_start_with_an_ascii_letter(text: str) -> None:
    _assert_read("pythonic", text, (text, []))


def test_lfm2_s_first_call_takes_python_s_names() -> None:
    """lfm2's vLLM parser matches ``\\[.*\\]$`` and reads the block with ``ast`` alone."""
    listed = "[f(名前='x'), _g(a=1)]"
    _assert_read("lfm2", "<|tool_call_start|>" + listed + "<|tool_call_end|>",
                 ("", _python_calls(listed)))


def test_a_name_python_refuses_ends_the_list() -> None:
    """``a²`` is no identifier (Python refuses the list; vLLM's stream keeps the calls before
    it): the calls before it are kept, the text from the call on is content."""
    _assert_read("pythonic", "[f(a=1), g(a²=1)]", (", g(a²=1)]", [("f", '{"a": 1}')]))
    _assert_read("pythonic", "[f(a=1, b²=1)]", ("b²=1)]", [("f", '{"a": 1')]))


_NAMES = st.sampled_from(["città", "größe", "Ünit", "名前", "_x", "ｄａｙｓ", "ﬁle", "x_1", "été",
                          "Δt", "имя", "a"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=st.lists(st.tuples(_NAMES, st.lists(_NAMES, max_size=3, unique=True)),
                      min_size=1, max_size=3),
       step=st.integers(1, 5))
def test_any_identifiers_at_any_chunking(calls: list[tuple[str, list[str]]], step: int) -> None:
    """Later calls and keywords: any identifier; the first call's name and first keyword are
    ASCII (the batch regex's rule, tested above)."""
    def call(name: str, keys: list[str]) -> str:
        return f"{name}(" + ", ".join(f"{k}={v}" for v, k in enumerate(keys)) + ")"

    text = "[" + ", ".join([call("f", ["a", *(k for k in calls[0][1] if k != "a")]),
                            *(call(n, ks) for n, ks in calls[1:])]) + "]"
    _assert_read("pythonic", text, ("", _python_calls(text)))


def test_olmo3_s_later_lines_take_python_s_names() -> None:
    """olmo3's calls are lines; vLLM reads them as one list with ``ast``, so a later line's
    name and keywords are any identifier, the first line's as the batch regex asks."""
    lines = "f(città=1)\n_g(名前=2, _z=3)\n名前(a=4)"
    want = _python_calls("[" + lines.replace("\n", ", ") + "]")
    _assert_read("olmo3", "<function_calls>\n" + lines + "\n</function_calls>", ("", want))
    first = "<function_calls>\n_f(a=1)\ng(b=2)\n</function_calls>"
    _assert_read("olmo3", first, (first, []))
