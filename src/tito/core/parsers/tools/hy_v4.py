"""``hy_v4``: Tencent Hunyuan 4 (Hy4) tool calls: Hy3's calls section without ``<tool_sep>``.

Format (vLLM 0.33's ``HYV4ToolParser``; the markers are special tokens, written back to back)::

    TEXT <tool_calls><tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
         ...</tool_call><tool_call>...</tool_call></tool_calls>

Grammar (phases and shared rules in :mod:`._xml`, the rest as :mod:`.hy_v3`): ``<tool_calls>``
opens a section of ``<tool_call>`` calls (a ``<tool_call>`` outside a section is text); NAME is
the text up to the first ``<arg_key>`` or ``</tool_call>`` (stripped, non-empty, without ``<``;
neither marker is consumed); KEY runs to ``</arg_key>`` (stripped), then ``<arg_value>``; VALUE
is verbatim up to ``</arg_value>``. Unknown tools pass through (vLLM does not check names).
Typing is Hy3's (vLLM's hy_v4 ``_parse_value`` is hy_v3's, the type aliases included).

Where vLLM differs (documented in ``docs/conformance.md``; tito keeps stream == batch):
- its batch is strict: a section without ``</tool_calls>``, unbalanced tags, text between the
  argument tags (a newline between ``</arg_key>`` and ``<arg_value>``) make the *whole output*
  content, while its stream reads the calls (and writes such an argument's markup into the
  arguments); tito reads the calls, whitespace between tags allowed (Hy3's grammar);
- the text after ``</tool_calls>`` is dropped by both its paths: tito keeps it (text is never
  lost, ``text_after_calls``);
- a section that holds no call (a misspelt ``</tool_call>``): its batch makes the whole output
  content, its stream drops the section; tito keeps the section's text, its ``</tool_calls>``
  dropped as markup (``section_end_dropped``, as step3 and hy_v3);
- vLLM reads a per-checkpoint suffix of the markers (``<tool_calls:6124c78e>``) from the
  vocabulary: tito has the unsuffixed markers and refuses a suffixed checkpoint at load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers._text import find_first
from tito.core.parsers.tools._xml_head import BAD, NEED, HeadResult
from tito.core.parsers.tools.hy_v3 import HyV3Parser

#: the markers that end a call's name (not consumed: the arguments phase reads them)
_NAME_ENDS = ("<arg_key>", "</tool_call>")


@dataclass(frozen=True)
class HyV4Parser(HyV3Parser):
    name: ClassVar[str] = "hy_v4"
    structural_tag_model: ClassVar[str | None] = "hy_v4"
    #: vLLM's ``supports_required_and_named = False``: required / named output is the model's
    #: own calls (the structural tag constrains it to them)
    forced_calls: ClassVar[str] = "native"
    header_markers: ClassVar[tuple[str, ...]] = ("</arg_key>", "<arg_value>")
    #: vLLM's strict batch reads the first section only: a ``<tool_call>`` after its
    #: ``</tool_calls>`` is text (``text_after_calls``), as before Hy3's rule
    calls_after_section: ClassVar[bool] = False

    def _name(self, h: str) -> HeadResult:
        j, _ = find_first(h, _NAME_ENDS, 0)
        if j == -1:  # wait, unless a '<' came that cannot start either end
            k = h.find("<")
            return NEED if k == -1 or any(m.startswith(h[k:]) for m in _NAME_ENDS) else BAD
        name = h[:j].strip()
        return ("ok", j, name, "") if name and "<" not in name else BAD
