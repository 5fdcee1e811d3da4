"""One reasoning format's row: :class:`ReasoningParser`, its markers and switches.

Why a module of its own: the row type (its fields say what each switch does, and why) is apart
from the table of rows, :mod:`tito.core.parsers.reasoning_formats` (one row per vLLM
``--reasoning-parser`` name), so that neither passes ~400 lines; the state machine that runs
every row is :mod:`tito.core.parsers.reasoning`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tito.errors import BadRequest


#: rows whose vLLM 0.33 class hands ``enable_thinking`` unchanged to a cached grammar builder
#: (Qwen3Parser and its subclasses seed_oss and mimo, nemotron_v3, granite_thinking_parser,
#: plamo3, gemma4): :meth:`ReasoningParser.check_kwargs`
RAW_ENABLE_THINKING = frozenset({"qwen3", "seed_oss", "mimo", "nemotron_v3",
                                 "granite_thinking_parser", "plamo3", "gemma4"})


@dataclass(frozen=True)
class ReasoningParser:
    """A reasoning format: its markers and where an output starts when the prompt says nothing."""

    name: str
    start: str = "<think>"
    end: str = "</think>"
    #: True: output is reasoning until ``</think>`` even without ``<think>`` (deepseek_r1).
    implicit_open: bool = False
    #: True: parsing is off unless ``thinking`` or ``enable_thinking`` is true (deepseek_v3:
    #: vLLM's parser is deepseek_r1 with the switch on, the identity parser without it)
    thinking_opt_in: bool = False
    #: further spellings of the markers (granite: ``Here's`` / ``Here is``)
    alt_starts: tuple[str, ...] = ()
    alt_ends: tuple[str, ...] = ()
    #: a marker closing the content, dropped when it first appears after the block
    #: (hunyuan_a13b's ``\n</answer>``)
    content_end: str = ""

    @property
    def starts(self) -> tuple[str, ...]:
        """The start markers (none when ``start`` is ``""``: step3's ``<think>`` is text)."""
        return tuple(m for m in (self.start, *self.alt_starts) if m)

    @property
    def ends(self) -> tuple[str, ...]:
        return (self.end, *self.alt_ends)
    #: the template kwargs that switch thinking off: ``"enable"`` (``enable_thinking`` falsy,
    #: qwen3, seed_oss), ``"either"`` (``thinking``/``enable_thinking``: on when neither is
    #: given, else when either is true: glm45, kimi_k2), ``"effort"`` (on only with a
    #: ``reasoning_effort`` other than ``no_think``: hy_v3), ``"effort_on"`` (on unless
    #: ``reasoning_effort`` is ``no_think``: hy_v4), ``"mode"`` (``thinking_mode: "enabled"``:
    #: minimax_m3, with ``enabled_opens``), ``"thinking"`` (``thinking``'s truth, else
    #: ``enable_thinking``'s, on when neither is given: kimi_k3), ``""`` (no switch)
    switch: str = ""
    #: the switch decides where the output starts, not whether blocks are parsed: on, in
    #: ``think`` (the template prefilled the start marker); off, in ``pre`` (minimax_m3)
    enabled_opens: bool = False
    #: an end marker that opens the output outside the block is dropped (only there: later
    #: ones are content), as vLLM 0.33's MiniMaxM3ReasoningParser drops a stray first closer
    lead_end: bool = False
    #: the model's tool-call start marker, which also ends the block (vLLM 0.33's grammars: a
    #: call straight from reasoning ends it, whatever tool parser runs, or none: the grammar is
    #: the reasoning parser's own); the marker stays in the content for the tool parser
    implicit_end: str = ""
    #: the tool format's call end (gemma4's ``<tool_call|>``, GLM's ``</tool_call>``): after
    #: :attr:`implicit_end` the text is the call's (phase ``call``: no reasoning marker read)
    #: until this marker, which stays content and leads to ``post``, where (with
    #: :attr:`reopen`) a start marker opens the block again, as vLLM 0.33's Gemma4 and GLM
    #: grammars (the call end returns to CONTENT, where the start marker opens REASONING;
    #: batch, composed stream and count alike). ``""``: a call start ends the reasoning for
    #: good (phase ``done``)
    call_end: str = ""
    #: a :attr:`call_end` outside a call is dropped (gemma4's grammar: CONTENT + TOOL_END stays
    #: CONTENT); False: it is text where it stands (GLM's grammar: a stray ``</tool_call>``)
    call_end_absorbed: bool = True
    #: every output is content with this text in front (minimax_m2_append_think: ``<think>``)
    prepend: str = ""
    #: repeated markers are dropped, as vLLM 0.33's engine grammars absorb them: a start inside
    #: the block, an end outside it (before the block, or after it until a tool call starts:
    #: phase ``post``)
    absorb: bool = False
    #: with ``absorb``: a start marker after the block (phase ``post``, before any tool call)
    #: opens it again and its reasoning is appended, as vLLM 0.33's GLM / DeepSeek-V4 /
    #: Mistral grammars do (CONTENT + start -> REASONING, batch and the composed stream); the
    #: trailing whitespace held at the block's end (``strip_trailing_ws``) is then kept, since
    #: only the whole reasoning's trailing run is dropped
    reopen: bool = False
    #: reasoning loses its trailing whitespace (vLLM's ``strip_trailing_reasoning_whitespace``):
    #: a whitespace run is held until more reasoning shows it is not trailing; the block's end
    #: (or the output's) drops it. Only a run's last :data:`WS_HOLD` characters are ever dropped.
    strip_trailing_ws: bool = False
    #: text the model writes first inside the block, dropped from the reasoning (gemma4's
    #: ``thought\n``); a reasoning that is only its first line (``thought``) is none
    block_prefix: str = ""
    #: an output that starts with :attr:`block_prefix` opens the block (the template's prompt
    #: wrote the start marker: vLLM's gemma4 injects it)
    lead_opens: bool = False
    #: characters dropped from the start of the content (granite_thinking_parser: the
    #: template's ``\n`` after ``</think>``)
    content_lstrip: str = ""
    #: markers dropped from the content after the block wherever they stand (ernie45's
    #: ``<response>`` wrapper)
    content_drop: tuple[str, ...] = ()

    #: further special tokens the markers are written with (PLaMo 3's ``<|plamo:begin_``...)
    pieces: tuple[str, ...] = ()
    #: strings never matched whose trailing proper prefix is held like a marker's, so a marker
    #: the output's end cut reaches its last chunk (PLaMo 3's grammar markers:
    #: :mod:`tito.core.parsers.plamo3_cut`, which drops it there)
    holds: tuple[str, ...] = ()
    #: usage counts reasoning tokens (:mod:`tito.core.parsers.reasoning_count`); False where
    #: vLLM's class keeps its base class's count of 0 (granite, hunyuan_a13b, olmo3)
    counted: bool = True
    #: markers chosen per request (k2_horizon): ``(reasoning_effort, start, end)`` rows, the
    #: first the default. The request's choice (:meth:`variant_from_kwargs`) is carried in the
    #: stream's settings (``ChoiceConfig.reasoning_variant``), so any instance serves any chunk;
    #: :func:`get_reasoning_parser` gives the row with that choice's markers, its start a
    #: :attr:`block_prefix` (vLLM's ``removeprefix``: consumed only where the output starts)
    efforts: tuple[tuple[str, str, str], ...] = ()
    #: the count follows vLLM's KimiK3ReasoningParser.count_reasoning_tokens, apart from the
    #: text split: a start marker after the block opens it again, the call start (the response
    #: channel) closes it only before any start marker, and only until the next one
    count_reopens: bool = False
    #: the count's own rule where vLLM's class counts apart from its text split
    #: (:mod:`tito.core.parsers.reasoning_count`): ``"depth"``, BaseThinkingReasoningParser's
    #: depth counter (ids count only inside start markers of the output, nested; an end pops
    #: one; the prompt is not read; minimax_m3's starts at depth 1 when the switch prefills the
    #: start), counted only while the switch is on; ``"depth_any"``, the same whatever the
    #: switch (hy_v3: vLLM counts with the base class even as its identity parser);
    #: ``"until_end"``, HYV4's: every id before the first end marker (a leading start excluded);
    #: ``""``: the ids inside the block the text split reads
    count_rule: str = ""

    @property
    def count_start(self) -> str:
        """The start marker the count matches (k2_horizon's is its variant's
        :attr:`block_prefix`: its text split consumes it only where the output starts)."""
        return self.start or (self.block_prefix if self.efforts else "")

    @property
    def marker_tokens(self) -> tuple[str, ...]:
        """The markers, which some models hold as special tokens (Mistral's ``[THINK]``)."""
        return (*self.starts, *self.ends, *((self.implicit_end,) if self.implicit_end else ()),
                *((self.call_end,) if self.call_end else ()),
                *self.pieces)

    def variant_from_kwargs(self, chat_template_kwargs: Mapping[str, Any] | None) -> str:
        """The request's choice of markers (``""`` for a row with fixed markers): the template
        kwargs' ``reasoning_effort``, the first of :attr:`efforts` when absent; any other value
        is a 400 (vLLM's K2HorizonReasoningParser raises ValueError building the parser)."""
        if not self.efforts:
            return ""
        effort = (chat_template_kwargs or {}).get("reasoning_effort", self.efforts[0][0])
        names = [e[0] for e in self.efforts]
        if not isinstance(effort, str) or effort not in names:
            raise BadRequest(f"Unsupported reasoning_effort {effort!r}. Supported values: "
                             f"{', '.join(names)}.", param="reasoning_effort")
        return effort

    def check_kwargs(self, chat_template_kwargs: Mapping[str, Any] | None) -> None:
        """400 where vLLM 0.33 cannot build this row's parser from the template kwargs: its
        engine-based classes in :data:`RAW_ENABLE_THINKING` pass ``enable_thinking`` as given
        to a ``functools.cache``d grammar builder (``qwen3_config(thinking=...)``), so a list
        or an object there is a ``TypeError`` its render and derender answer 400 with."""
        value = (chat_template_kwargs or {}).get("enable_thinking")
        if self.name in RAW_ENABLE_THINKING and isinstance(value, (list, dict)):
            raise BadRequest(f"unhashable type: '{type(value).__name__}'")

    def enabled_from_kwargs(self, chat_template_kwargs: Mapping[str, Any] | None) -> bool:
        """The ``enabled`` flag for :func:`initial` from the request's template kwargs (as the
        vLLM parser of the same name reads them)."""
        kw = chat_template_kwargs or {}
        if self.thinking_opt_in:
            return bool(kw.get("thinking")) or bool(kw.get("enable_thinking"))
        if self.switch == "enable":  # vLLM: its truth (0 and "" turn it off; a null never
            # gets here: the kwargs are merged without nulls, service.config.template_kwargs)
            return bool(kw.get("enable_thinking", True))
        if self.switch == "effort":  # thinking only with a reasoning_effort other than no_think
            return (kw.get("reasoning_effort") or "no_think") != "no_think"
        if self.switch == "effort_on":  # the template's default effort is high (hy_v4)
            return (kw.get("reasoning_effort") or "high") != "no_think"
        if self.switch == "thinking":  # vLLM's kimi_k3: thinking wins over enable_thinking
            thinking = kw.get("thinking")
            return bool(kw.get("enable_thinking", True) if thinking is None else thinking)
        if self.switch == "mode":
            return kw.get("thinking_mode") == "enabled"
        if self.switch == "either":
            thinking, enable = kw.get("thinking"), kw.get("enable_thinking")
            return (thinking is None and enable is None) or bool(thinking) or bool(enable)
        return True
