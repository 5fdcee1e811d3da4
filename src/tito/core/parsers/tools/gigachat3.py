"""``gigachat3``: Sber GigaChat 3 tool calls, one JSON call object after the function-call role.

Format (vLLM 0.33's ``GigaChat3ToolParser``; ``<|message_sep|>``, ``<|role_sep|>`` and
``<|function_call|>`` are special tokens)::

    TEXT <|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name": "NAME", "arguments": {ARGS}}
    TEXT <|function_call|>{"name": "NAME", "arguments": {ARGS}}

Phases (``head``/``args``/``sargs``/``tail`` are in :mod:`._objects`): ``text`` is content up to
``<|message_sep|>``, ``<|function_call|>`` or ``function call<|role_sep|>`` (held back while a
proper prefix); ``head`` is the call header: ``<|function_call|>``, or ``<|message_sep|>`` then
``function call<|role_sep|>``, or the role alone (vLLM's regex finds ``function
call<|role_sep|>\n`` anywhere: a misspelt ``<|message_ep|>`` before it is text and the call is
still read; whitespace allowed around the markers), then the call object, name first (see
:mod:`._json`); the arguments stream as the model wrote them (vLLM's stream; its batch
re-serializes an object with ``json.dumps``). One call is read: what follows its object is
content (``rest``). A header that does not parse is content and ``text`` goes on.

Where vLLM differs: its batch reads the call only when the rest of the output is exactly the
JSON object (text after it makes the whole output content) and drops the text after a
``<|message_sep|>`` that no call follows; tito keeps text (the rule of every format here). With
the role but no ``<|message_sep|>`` before it vLLM's batch makes the call and, its content regex
finding no separator, the whole output content, the call's JSON included; its stream sends the
text up to the role as content: tito's content is the text before the role
(``role_without_sep``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tito.core.parsers.tools._base import Out, Work
from tito.core.parsers.tools._objects import ObjectCallParser

MESSAGE_SEP = "<|message_sep|>"
ROLE = "function call<|role_sep|>"
FUNCTION_CALL = "<|function_call|>"


@dataclass(frozen=True)
class GigaChat3Parser(ObjectCallParser):
    engine_reads_special: ClassVar[bool] = True  # vLLM: skip_special_tokens off with tools
    name: ClassVar[str] = "gigachat3"
    first_phase: ClassVar[str] = "text"
    resume_phase: ClassVar[str] = "text"
    after_phase: ClassVar[str] = "rest"
    args_required: ClassVar[bool] = True  # vLLM: an object without "arguments" is no call
    marker_tokens: ClassVar[tuple[str, ...]] = (MESSAGE_SEP, "<|role_sep|>", FUNCTION_CALL)

    def _lead_at(self, st: Work, s: str, pos: int) -> Sequence[str]:
        if s.startswith(MESSAGE_SEP, pos):
            return (MESSAGE_SEP, ROLE)
        return (ROLE,) if s.startswith(ROLE, pos) else (FUNCTION_CALL,)

    def _on_text(self, st: Work, s: str, pos: int, out: Out, final: bool) -> tuple[int, bool]:
        return self._text_until(st, s, pos, out, final, (MESSAGE_SEP, FUNCTION_CALL, ROLE), "head")
