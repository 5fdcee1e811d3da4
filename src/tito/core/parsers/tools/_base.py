"""Common ground of every tool-call parser: the state, the deltas, the step loop, the gap rule.

Theory of operation
===================

A tool parser reads a choice's *content* text (after the reasoning parser) one chunk at a time and
splits it into content and tool-call deltas. Each format is one subclass of :class:`ToolParser`
whose module owns its phases; they all share one :class:`ToolState` and these rules:

**Unprocessed text.** ``state.buf`` holds text received but not decided yet: a possible marker
prefix, or the *header* of a call (everything before its name is known and its arguments start).
Every call prepends ``buf`` to the new text and runs the phase handlers over it from position 0;
a handler either consumes text (emitting content or arguments) or asks to *hold* the rest, which
becomes the new ``buf``. A header is re-parsed from its start on every call; it may not exceed
:data:`HEADER_LIMIT` characters: a header still undecided at that length is not a call (its text
is content). With ``final`` nothing is held: every handler decides with what it has.

**Calls.** A call starts once its name is complete: the first delta carries the complete name
(``ToolCallDelta.name``) and every later delta only appends to ``arguments``. Arguments stream as
the model's own text of the arguments JSON (JSON formats: the raw substring, whitespace kept, so
the concatenated deltas equal the batch arguments byte for byte); only an O(1) scanner state
(``depth``, ``in_str``, ``esc``) is kept, never the arguments. Indexes count calls from 0 in order.

**Content.** Text outside calls is content, verbatim, with one exception, the *gap rule*: a run of
ASCII whitespace standing between the start of the output or the end of a call and the start of a
call, a structural token of the format (``</tool_call>``, ``,``, ``]``, ``;``...) or the end of the
output (when any call was made) is dropped. Such runs are held (in ``state.ws``, or in ``buf`` at a
structural position) up to :data:`WS_LIMIT` characters; a longer run is content. So the model's
``\\n`` around ``</tool_call>`` does not become content, while an output without calls is always
returned unchanged, and whitespace before text that follows a call is kept with that text.

**Malformed input** never raises and never loses text: a call whose header does not parse is
content (marker included) and parsing resumes right after the offending character; a call whose
arguments break after they started streaming ends there (reported as far as it got).
**Truncation**: at ``final`` a call still open stays a call with the arguments received so far and
``state.truncated`` is set; a header still undecided at ``final`` is content, except where vLLM
0.33's parser engine makes a call of it (the XML and DSML formats, kimi_k2, mistral's v11 calls,
granite: their headers say how).

Because the state machine is a pure function of the text (the chunking only changes *when*
things are emitted), any split of the same text gives the same concatenated content and the same
calls; batch is one call with the whole text and ``final=True``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tito.core.parsers._text import ASCII_WS, is_proper_prefix, scan_to
from tito.core.state import Field, State

#: Longest call header (lead markers excluded) kept while waiting for a call's name (characters).
#: OpenAI function names are at most 64 characters; real headers are about 100.
HEADER_LIMIT = 200
#: Longest whitespace run held by the gap rule (characters).
WS_LIMIT = 64
#: Longest lead markers of a header (DeepSeek's four markers: 60 characters).
LEAD_LIMIT = 64
#: Longest typed parameter value buffered by the XML formats before it commits (characters).
VALUE_LIMIT = 256
#: Hard bound of ``len(state.model_dump_json())`` in bytes (see :class:`ToolState`).
STATE_BYTES_LIMIT = 4096


class ToolState(State):
    """Everything a tool parser carries between chunks (one class for every format).

    Bounded whatever the output (the field limits are also validated on the way in):
    ``buf`` <= :data:`HEADER_LIMIT` + :data:`LEAD_LIMIT` characters (a header) or a marker prefix
    plus :data:`WS_LIMIT` whitespace; ``ws`` <= :data:`WS_LIMIT` ASCII whitespace; the pythonic
    fields: ``stack`` <= 63, ``tok`` <= :data:`HEADER_LIMIT` ASCII, ``key`` <= :data:`HEADER_LIMIT`
    (JSON text), ``pend`` <= 100 ASCII. ``buf`` holds a header only outside the pythonic transcoder,
    so ``len(state.model_dump_json())`` stays under :data:`STATE_BYTES_LIMIT` (2 KiB) for any
    output (up to 6 bytes per buffered character when every one is a JSON-escaped control
    character; ``json.dumps`` with ``ensure_ascii=True`` spends up to 12 bytes on an astral
    character, so keep ``ensure_ascii=False`` when measuring against the bound).
    """

    phase: str = Field(default="text", max_length=16)  #: the format's phase (module headers)
    buf: str = Field(default="", max_length=HEADER_LIMIT + LEAD_LIMIT)  #: unprocessed text
    ws: str = Field(default="", max_length=WS_LIMIT)  #: gap whitespace held (see gap rule)
    gap: bool = True  #: at the start of the output or right after a call
    calls: int = Field(default=0, ge=0, le=1_000_000)  #: calls started so far (= next index)
    name_sent: bool = False  #: the current call's name went out
    args_sent: int = Field(default=0, ge=0)  #: characters of the current call's arguments sent
    depth: int = Field(default=0, ge=0)  #: JSON scanner: open brackets
    in_str: bool = False  #: JSON scanner: inside a string
    esc: bool = False  #: JSON scanner: after a backslash inside a string
    truncated: bool = False  #: set at final: the last call was cut before it closed
    # pythonic transcoder (tito.core.parsers.tools.pythonic); empty for other formats
    stack: str = Field(default="", max_length=63)
    expect: str = Field(default="", max_length=8)
    tok: str = Field(default="", max_length=HEADER_LIMIT)
    key: str = Field(default="", max_length=HEADER_LIMIT)
    quote: str = Field(default="", max_length=5)  #: flags (r, f) and quote
    pend: str = Field(default="", max_length=100)
    comma: bool = False
    # XML parameter formats (tito.core.parsers.tools._xml); empty for other formats
    #: the open call's name (typing); a name is bounded by its held header, which may reach
    #: past HEADER_LIMIT by the unused part of LEAD_LIMIT (a bare call: session 41's sweep found
    #: a 201-character name valid in batch and a StateError in a stream)
    fn: str = Field(default="", max_length=HEADER_LIMIT + LEAD_LIMIT)
    vt: str = Field(default="", max_length=16)  #: the open value's type code
    val: str = Field(default="", max_length=VALUE_LIMIT + 1)  #: buffered typed value / held \n
    vs: bool = False  #: the open value has started (leading-newline trim)
    #: inside a tool-call section (between its markers); deepseek_v3 / v31: a section has begun
    #: in the output (later calls are read outside sections too, as vLLM's)
    insec: bool = False
    #: content other than whitespace went out (granite4's verbatim text: until then whitespace
    #: is held, so an output of calls and whitespace has no content, as vLLM's batch)
    said: bool = False


#: The name the format handlers use for the state they advance in place: a :class:`ToolState`
#: (plain slots, so per-token attribute updates cost nothing extra); :meth:`ToolParser.step`
#: works on a copy, so the caller's state is never changed.
Work = ToolState


@dataclass(slots=True)
class ToolCallDelta:
    """One call's part of one chunk: ``name`` only on the call's first delta (complete);
    ``id`` on that delta when the model wrote the call's id itself (Kimi-K2), else None."""

    index: int
    name: str | None = None
    arguments: str = ""
    id: str | None = None


@dataclass
class Out:
    """What one step produced: content pieces; per call, in order, its name and argument pieces."""

    content: list[str] = field(default_factory=list)
    _calls: list[tuple[int, str | None, list[str]]] = field(default_factory=list)
    _ids: dict[int, str] = field(default_factory=dict)

    def start(self, index: int, name: str, call_id: str | None = None) -> None:
        self._calls.append((index, name, []))
        if call_id:
            self._ids[index] = call_id

    def args(self, st: Work, text: str) -> None:
        if not text:
            return
        st.args_sent += len(text)
        index = st.calls - 1
        if index < 0:  # only a tampered state gets here (arguments phase without a call)
            raise ValueError("tool-call arguments without a call")
        if not self._calls or self._calls[-1][0] != index:
            self._calls.append((index, None, []))
        self._calls[-1][2].append(text)

    @property
    def calls(self) -> list[ToolCallDelta]:
        return [
            ToolCallDelta(
                index=i,
                name=name,
                arguments="".join(parts),
                id=self._ids.get(i) if name is not None else None,
            )
            for i, name, parts in self._calls
        ]


@dataclass(frozen=True)
class ToolParser:
    """Base of every format. Subclasses set :attr:`name`, :attr:`first_phase` and handlers."""

    name: ClassVar[str] = ""
    first_phase: ClassVar[str] = "text"
    #: the format's phases: the names of its ``_on_<phase>`` handlers (set per subclass), so a
    #: state carried by a client can be checked before its phase selects a handler
    phases: ClassVar[frozenset[str]] = frozenset({"rest"})
    #: the shape of the tool-call ids the pipeline derives for this format's calls: ``openai``
    #: (``chatcmpl-tool-…``) or ``mistral`` (9 alphanumerics, which mistral-common requires when
    #: the call comes back in the history)
    id_shape: ClassVar[str] = "openai"
    #: the format's markers, which some models' vocabularies hold as *special* tokens
    #: (Mistral's ``[TOOL_CALLS]``): decoding keeps exactly these (and no other special token)
    #: in the text the parser reads, whatever ``skip_special_tokens`` says
    marker_tokens: ClassVar[tuple[str, ...]] = ()
    #: vLLM 0.33's ``structural_tag_model`` of the format (a key of
    #: :data:`.structural_formats.BUILDERS`), or None: render constrains ``required`` / named
    #: calls with that structural tag (:mod:`.structural`) and derender then parses them as the
    #: format's own calls; without one, ``required`` / named use the JSON-list schema
    structural_tag_model: ClassVar[str | None] = None
    #: vLLM 0.33's parser ``adjust_request`` turns the engine's ``skip_special_tokens`` off when
    #: the request has tools and ``tool_choice`` is not "none" (its markers are special tokens
    #: of some models); render sends the same flag (recorded: conformance/goldens/structural)
    engine_reads_special: ClassVar[bool] = False
    #: ... also without tools, whenever vLLM adjusts the request: a ``tool_choice`` but "none"
    #: (null too: vLLM 0.33's mistral parser on a tokenizer without its grammar;
    #: conformance/goldens render_messages_models), or any request when a reasoning parser is
    #: configured (vLLM then adjusts every request). vLLM's parser engines do (goldens
    #: ``render_reasoning_flags``, dsv32's ``render_fuzz``); its older parsers need tools
    engine_reads_special_without_tools: ClassVar[bool] = False
    #: ... and turns ``spaces_between_special_tokens`` off with it (vLLM 0.33's kimi_k3: its
    #: markers span several tokens and must reach the parser unspaced; recorded:
    #: conformance/goldens/structural/kimi_k3.json)
    engine_joins_special: ClassVar[bool] = False
    #: vLLM's ``default_tool_strict_level`` (``--tool-strict-level`` unset): ``auto``, or
    #: ``function`` (every request with tools gets the tag, ``auto`` included: GLM)
    default_tool_strict_level: ClassVar[str] = "auto"
    #: without a tag, how ``required`` / named are constrained and read back: ``json_list``
    #: (vLLM's base parser: a list of ``{name, parameters}``, named: the bare arguments) or
    #: ``mistral_list`` (vLLM's mistral parser: ``[{name, arguments}]``, one item when named;
    #: no constraint for Responses requests) or ``native`` (vLLM's ``supports_required_and_named
    #: = False`` engine formats: no constraint; the output is read as ``auto`` reads it)
    forced_calls: ClassVar[str] = "json_list"
    #: keep only the call with index 0 in the output (``parallel_tool_calls=false``)
    single_call: bool = False
    #: an output without calls whose content is only whitespace has no content (``required``
    #: / named read with the format's own parser: vLLM's ``_extract_tool_calls`` returns none)
    forced: bool = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.phases = frozenset(n[4:] for n in dir(cls) if n.startswith("_on_"))

    # -- public ------------------------------------------------------------------------------

    def initial(self) -> ToolState:
        """The state before the first chunk."""
        return ToolState(phase=self.first_phase)

    def step(
        self, state: ToolState, text: str, *, final: bool
    ) -> tuple[ToolState, str, list[ToolCallDelta]]:
        """Advance by one chunk of content text: ``(new_state, content_delta, call_deltas)``."""
        st = state.model_copy()
        s = st.buf + text
        st.buf = ""
        out = Out()
        pos = 0
        while True:
            phase = st.phase
            handler = getattr(self, "_on_" + phase)
            new_pos, hold = handler(st, s, pos, out, final)
            if new_pos == pos and st.phase == phase and not hold and pos < len(s):
                raise RuntimeError(f"{self.name}: no progress in phase {phase!r}")  # a bug
            if hold:
                st.buf = s[new_pos:]
                break
            if new_pos >= len(s):
                break
            pos = new_pos
        if final:
            self._finish(st, out)
        calls = out.calls
        if self.single_call:
            calls = [c for c in calls if c.index == 0]
        return st, "".join(out.content), calls

    # -- helpers for subclasses -------------------------------------------------------------

    def _finish(self, st: Work, out: Out) -> None:
        """End of output: resolve the gap rule and the truncation flag."""
        if st.ws:
            if st.calls == 0 and not self.forced:
                out.content.append(st.ws)
            st.ws = ""
        st.truncated = self._is_open(st)

    def _is_open(self, st: Work) -> bool:
        """Whether a call is open in this phase (arguments not closed)."""
        return False

    def _text_until(
        self, st: Work, s: str, pos: int, out: Out, final: bool, marker: str | tuple[str, ...],
        phase: str, holds: tuple[str, ...] = (),
    ) -> tuple[int, bool]:
        """Content up to the first ``marker`` (or the earliest of several; then ``phase``, at the
        marker); a trailing proper prefix of one, or of one of ``holds`` (never matched), is held
        back. The ``text`` phase of every marker-led format."""
        markers = (marker,) if isinstance(marker, str) else marker
        hit, _, stop = scan_to(s, markers, pos, final, holds)
        self._content(st, out, s[pos:stop])
        if hit == -1:
            return stop, stop < len(s)
        st.phase = phase
        return hit, False

    def _on_rest(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        """Phase ``rest``: after the calls, everything is content."""
        self._content(st, out, s[pos:])
        return len(s), False

    @staticmethod
    def _content(st: Work, out: Out, text: str) -> None:
        """Emit content through the gap rule."""
        if not text:
            return
        if st.gap:
            body = text.lstrip(ASCII_WS)
            st.ws += text[: len(text) - len(body)]
            if len(st.ws) > WS_LIMIT:
                out.content.append(st.ws)
                st.ws = ""
                st.gap = False
            if not body:
                return
            if st.ws:
                out.content.append(st.ws)
                st.ws = ""
            st.gap = False
            text = body
        out.content.append(text)

    def _structural_ws(
        self, st: Work, s: str, pos: int, out: Out, final: bool
    ) -> tuple[int, str, bool]:
        """Whitespace right after a call, before the format's next structural token.

        Returns ``(i, run, hold)``: ``s[pos:i]`` is the whitespace run; ``run`` is the part the
        caller must still decide on (drop it when a structural token such as ``,`` or an end
        marker follows, else pass it to :meth:`_content`); ``hold``: the run reaches the end of
        the text, keep it (from ``pos``) until more text decides. A run longer than
        :data:`WS_LIMIT` is content at once (gap rule), so the decision never depends on chunking.
        """
        i = pos
        n = len(s)
        while i < n and s[i] in ASCII_WS:
            i += 1
        if not st.gap or i - pos > WS_LIMIT:
            self._content(st, out, s[pos:i])
            return i, "", False
        if i == n and not final:  # also an empty chunk: nothing is decided yet
            return pos, "", True
        return i, s[pos:i], False

    def _between_calls(
        self, st: Work, s: str, pos: int, out: Out, final: bool, call: str, call_phase: str,
        end: str,
    ) -> tuple[int, bool]:
        """Between the calls of a section: whitespace (gap rule), then ``call`` (the next call:
        ``call_phase`` at the marker) or ``end`` (the section's end, consumed: ``text``);
        anything else is text (``text``); cut inside one of the markers at ``final``: markup."""
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if s.startswith(call, i):
            st.phase = call_phase
            return i, False
        if end and s.startswith(end, i):
            st.phase = "text"
            return i + len(end), False
        if is_proper_prefix(s[i:], [m for m in (call, end) if m]):
            if final:
                st.phase = "text"
                return len(s), False
            return (pos if st.gap else i), True  # (out of a gap the run went out as content)
        self._content(st, out, run)
        if i < len(s):  # else more text may still bring the next call
            st.phase = "text"
        return i, False

    def _closing_marker(
        self, st: Work, s: str, pos: int, out: Out, final: bool, marker: str, phase: str
    ) -> tuple[int, bool]:
        """After a call or list: whitespace, then ``marker`` (both dropped, also when the output
        ends inside the marker), then ``phase``; anything else is text there (gap rule)."""
        i, run, hold = self._structural_ws(st, s, pos, out, final)
        if hold:
            return pos, True
        if s.startswith(marker, i):
            st.phase = phase
            return i + len(marker), False
        if is_proper_prefix(s[i:], (marker,)):
            if final:  # the output was cut inside the closing marker: markup, not text
                st.phase = phase
                return len(s), False
            return (pos if st.gap else i), True  # (out of a gap the run went out as content)
        self._content(st, out, run)
        if i == len(s) and not final:  # a long run went out as content at the chunk's end:
            return i, True  # the marker may still come (as in one chunk: stream == batch)
        st.phase = phase
        return i, False

    @staticmethod
    def _start_call(st: Work, out: Out, name: str, call_id: str | None = None) -> None:
        """A call begins (its name is complete): drop held gap whitespace, emit the name
        (and the model's own id for the call, when the format has one)."""
        st.ws = ""
        st.gap = False
        st.name_sent = True
        st.args_sent = 0
        st.depth = 0
        st.in_str = False
        st.esc = False
        out.start(st.calls, name, call_id)
        st.calls += 1

    @staticmethod
    def _end_call(st: Work) -> None:
        """The current call is over; what follows is in a gap."""
        st.gap = True
        st.name_sent = False
        st.depth = 0
        st.in_str = False
        st.esc = False
