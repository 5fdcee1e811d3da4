"""The fake engine's reply script: what each choice of each request "generates".

Why a module of its own: the script is the fake engine's input format (a text, or the lines of a
JSONL file: a JSON string or ``{"text"|"token_ids"|"error": ...}``), read by the CLI and by tests
that pin a request's output.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Reply", "ReplyScript"]


@dataclass(frozen=True)
class Reply:
    """One scripted reply: a text (encoded, then EOS appended) or explicit token ids (as is).

    ``error`` makes the engine fail: a streamed choice sends its tokens, then an error event; a
    non-streaming request answers 500. It lets a test check how errors cross the gateway.
    """

    text: str | None = None
    token_ids: tuple[int, ...] | None = None
    error: str | None = None

    @classmethod
    def parse(cls, value: Any, where: str = "reply") -> Reply:
        """A reply from a JSON value: a string, or ``{"text"|"token_ids"|"error": ...}``."""
        if isinstance(value, str):
            return cls(text=value)
        if isinstance(value, dict):
            known = {"text", "token_ids", "error"}
            unknown = set(value) - known
            if unknown or not (set(value) & known):
                raise ValueError(f"{where}: expected a string or an object with keys "
                                 f"{sorted(known)}")
            ids = value.get("token_ids")
            if ids is not None and (
                not isinstance(ids, list) or not all(isinstance(i, int) and i >= 0 for i in ids)
            ):
                raise ValueError(f"{where}: token_ids must be a list of non-negative integers")
            text = value.get("text")
            if text is not None and not isinstance(text, str):
                raise ValueError(f"{where}: text must be a string")
            return cls(text=text, token_ids=tuple(ids) if ids is not None else None,
                       error=value.get("error"))
        raise ValueError(f"{where}: expected a string or an object, got {type(value).__name__}")


class ReplyScript:
    """The replies the engine plays, in order, cycled; thread-safe (one counter per script)."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        if not replies:
            raise ValueError("a reply script needs at least one reply")
        self.replies = tuple(replies)
        self._next = itertools.count()
        self._lock = threading.Lock()

    @classmethod
    def from_text(cls, text: str) -> ReplyScript:
        """The same reply for every choice of every request."""
        return cls([Reply(text=text)])

    @classmethod
    def from_jsonl(cls, path: str | Path) -> ReplyScript:
        """One reply per non-blank line: a JSON string or ``{"text"|"token_ids"|"error": ...}``."""
        replies = []
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            replies.append(Reply.parse(value, f"{path}:{number}"))
        return cls(replies)

    def take(self) -> Reply:
        """The next reply (wrapping around at the end)."""
        with self._lock:
            k = next(self._next)
        return self.replies[k % len(self.replies)]
