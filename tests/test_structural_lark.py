"""Lark grammars converted to EBNF as vLLM 0.33 sends them (``tito.core.lark_convert``) against
xgrammar 0.2.8's own conversion, ``str(xgrammar.Grammar.from_lark(g))``, recorded on a corpus
of 1,010 grammars (``conformance/record_xgrammar.py`` -> ``goldens/structural/_lark.json``):
the same text byte for byte, the same refusals; only the features tito does not port may be
left unconverted. The render server's answers (the or-format's branch, gpt-oss's final channel,
the 400s) are compared in ``tests/test_structural_tags.py`` (``validation_*lark*``).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tito.core.grammar_check import ebnf_error
from tito.core.lark_convert import LarkError, Unsupported, lark_error, lark_to_ebnf
from tito.core.structured_check import xgrammar_supports

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "goldens" / "structural" / \
    "_lark.json"
#: what tito does not port (conformance/record_xgrammar.py's LARK has a few of each)
_UNPORTED = re.compile(r"/|%import|%json|%regex|%lark|%grammar_options|<|@|\w\[")


def test_conversion_is_xgrammars() -> None:
    data = json.loads(GOLDEN.read_text())
    assert data["xgrammar"] == "0.2.8"
    wrong, unported = [], 0
    for case in data["cases"]:
        grammar, want = case["grammar"], case["ebnf"]
        try:
            got = lark_to_ebnf(grammar)
        except LarkError as e:
            if want is not None:
                wrong.append(f"refused {grammar!r} ({e}); xgrammar: {want!r}")
            continue
        except Unsupported:
            unported += 1
            if not _UNPORTED.search(grammar):
                wrong.append(f"unported {grammar!r}")
            continue
        if got != want:
            wrong.append(f"{grammar!r}:\n tito    {got!r}\n xgrammar {want!r}")
        elif ebnf_error(got) is not None:  # xgrammar parses what it prints
            wrong.append(f"tito's EBNF check refuses {got!r}: {ebnf_error(got)}")
    assert not wrong, "\n".join(wrong[:10])
    converted = sum(c["ebnf"] is not None for c in data["cases"])
    assert converted > 600 and unported < 20


def test_or_format_check_follows_the_conversion() -> None:
    """The or-format needs the request's grammar to pass xgrammar's validation: a Lark one
    that xgrammar refuses does not (the recorded verdicts), an unported one is not refused."""
    data = json.loads(GOLDEN.read_text())
    for case in data["cases"][:200]:
        if not _UNPORTED.search(case["grammar"]) and case["grammar"].strip():
            assert xgrammar_supports({"grammar": case["grammar"]}) == (case["ebnf"] is not None)
    assert lark_error("start: /[0-9]+/") is None


@pytest.mark.parametrize("grammar", [
    "start: " + "(" * 5000 + '"a"' + ")" * 5000,
    "start: " + " | ".join(f'"{i}"' for i in range(20000)),
    "\n".join(f"T{i}: T{i + 1}" for i in range(3000)) + '\nT3000: "x"\nstart: T0',
    "\n".join(f"r{i}: r{i + 1}*" for i in range(3000)) + '\nr3000: "x"\nstart: r0',
    "start: " + '"a"~2147483647 ' * 1000,
])
def test_bounded(grammar: str) -> None:
    """Deep, wide and long grammars are answered at once, without recursion errors."""
    start = time.process_time()
    try:
        lark_to_ebnf(grammar)
    except (LarkError, Unsupported):
        pass
    assert time.process_time() - start < 2.0
