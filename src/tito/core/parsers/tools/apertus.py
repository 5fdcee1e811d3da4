"""``apertus``: Swiss AI Apertus tool calls, a JSON list of ``{NAME: ARGS}`` between markers.

Format (vLLM 0.33's ``ApertusToolParser``; the markers are special tokens)::

    TEXT <|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|> TEXT

Grammar: content up to the first ``<|tools_prefix|>``; then a JSON list (whitespace allowed
before ``[``) whose elements are objects: the first key is the function's name (a non-empty
JSON string), its value, an object, the arguments (sent as ``json.dumps`` writes them, as
vLLM's batch re-serializes them); further members of an element are skipped. Whitespace and
``<|tools_suffix|>`` after the list's ``]`` are dropped; the text after the block is content.
One block is read, as vLLM's regex does: a later ``<|tools_prefix|>`` is text.

Phases: ``text`` (content; the marker goes to ``head``, held back while a proper prefix), then
:mod:`.json_list`'s ``head`` / ``next`` (an element's header, parsed here: ``{"NAME":`` up to
the arguments' ``{``) / ``args`` / ``tail`` / ``sep``, then ``after`` (the closing marker), then
``rest``. An element that does not parse ends the list: it and what follows are content. A
lone object after the marker (no ``[``) is one call, as vLLM reads the first JSON value after
the marker (``raw_decode``; not a list: one element), and what follows it is ``after``'s (the
closing marker, else content: a ``, {...}]`` the model went on with; session 42, fuzz seed 119,
``fuzz/apertus/4``: tito made the block content); ``insec`` says so until its call ends.

Where vLLM differs: its batch joins the text before and after the block with ``\\n`` (its
stream sends it as written, as tito does); it reads an element whose value is not an object
(a string, ``null``) as a call with that JSON as arguments and skips an empty ``{}``: tito
ends the list there (content); it removes every ``<|tools_suffix|>`` from the content, tito
only the one closing the list. Names are not checked against the request's tools (as vLLM).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._json import NEED, Header, match_leads, skip_ws, string_end
from tito.core.parsers.tools.json_list import JsonListParser

START = "<|tools_prefix|>"
END = "<|tools_suffix|>"


def parse_keyed_header(s: str, lead: Sequence[str]) -> Header:
    """``lead {"NAME": {`` (whitespace allowed between the tokens): COMMIT at the arguments'
    ``{``, NEED while valid so far, INVALID at the first character that cannot belong."""
    led = match_leads(s, lead, 0)
    if isinstance(led, Header):
        return led
    n = len(s)
    i = skip_ws(s, led)
    for token in "{", '"':
        if i == n:
            return NEED
        if s[i] != token:
            return Header("invalid", i)
        if token == "{":
            i = skip_ws(s, i + 1)
    e = string_end(s, i)
    if e == -1:
        return NEED
    try:
        name = json.loads(s[i:e])
    except ValueError:
        return Header("invalid", i)
    i = skip_ws(s, e)
    for token in ":", "{":
        if i == n:
            return NEED
        if s[i] != token or not name:
            return Header("invalid", i)
        if token == ":":
            i = skip_ws(s, i + 1)
    return Header("commit", i, name)


@dataclass(frozen=True)
class ApertusParser(JsonListParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "apertus"
    first_phase: ClassVar[str] = "text"
    marker: ClassVar[str] = START
    resume_phase: ClassVar[str] = "rest"
    closed_phase: ClassVar[str] = "after"
    end_marker: ClassVar[str] = END
    stop_markers: ClassVar[tuple[str, ...]] = (END,)
    normalize_args: ClassVar[bool] = True
    marker_tokens: ClassVar[tuple[str, ...]] = (START, END)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, START, "head")

    def _object_header(self, s: str, lead: Sequence[str], opt: str) -> Header:
        return parse_keyed_header(s, lead)

    def _lead(self, st: Work) -> Sequence[str]:
        if st.phase == "head" and st.insec:  # a lone object: no ``[``
            return (self.marker,)
        return super()._lead(st)

    def _on_head(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        # (``insec``: the block is a lone object, decided on its first character; re-read from
        # the marker on every chunk while the header is held; a later element's header, led by
        # ``,`` in ``next``, is never one: parser fuzz seed 137, ``fuzz/apertus/0``, read a
        # ``{`` the marker's length past its comma and ended the list after that element)
        st.insec = st.phase == "head" and s.startswith("{", skip_ws(s, pos + len(self.marker)))
        return super()._on_head(st, s, pos, out, final)

    def _on_sep(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        if st.insec:  # after a lone object's call: the closing marker, else text (``after``)
            st.insec = False
            st.phase = "after"
            return pos, False
        return super()._on_sep(st, s, pos, out, final)

    def _on_after(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._closing_marker(st, s, pos, out, final, END, "rest")
