"""The derender fuzzer's fourth set of added draws (session 43), from a generator of their own.

Why a generator of its own: a seed's earlier draws, and the goldens found with them, must stay
as they were; these run after them on ``random.Random("more4:MODEL:SEED:I")``.

What they draw: an engine's logprob list longer or shorter than its token ids, which nothing on
the wire forbids and vLLM 0.33's derender resolves entry by entry (batch and each streamed
chunk; goldens ``derender_logprob_entries`` / ``stream_logprob_entries`` hold fixed cases):
entries more at the end or in the middle (another id's, or one of the ids again), fewer (the
tail cut), none. A batch choice's list is changed as a whole; a stream's chunks each carry the
entries of their own ids, changed the same way on each chunk that has any (so a stream is not
its batch: each is compared with vLLM's own). A case whose changed chunk comes before a
character's later bytes is tagged ``lp_count_repair_context``: the ``token`` of that U+FFFD
piece is repaired from the entries before it in tito's stream (as vLLM's batch), from the
chunks' ids in vLLM's stream (deviation ``*_repair_*``; ``--show gpt2:531:1``).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from conformance.fuzz_derender_case import Case, decode

MODES = ("more", "more_mid", "fewer", "zero")


def more4(case: Case, rnd: random.Random) -> None:
    """Draw the fourth set of additions into ``case`` (see the module docstring)."""
    for ch in case.choices:
        content = (ch.get("logprobs") or {}).get("content")
        if not content or rnd.random() >= 0.2:
            continue
        mode = rnd.choice(MODES)
        original = copy.deepcopy(content)
        ch["logprobs"]["content"] = changed(content, mode, random.Random(rnd.randrange(2**32)))
        chunks_rnd, chunks, pos = random.Random(rnd.randrange(2**32)), [], 0
        for n in case.sizes.get(ch["index"]) or [0]:
            own = original[pos:pos + n]
            chunks.append(changed(own, mode, chunks_rnd) if own else [])
            pos += n
        case.lp_split[ch["index"]] = chunks
        case.tags.update({"lp_count", f"lp_count_{mode}"})
        if _repair_context(case, ch["token_ids"], case.sizes.get(ch["index"]) or [0], chunks):
            case.tags.add("lp_count_repair_context")


def _repair_context(case: Case, ids: list[int], sizes: list[int],
                    chunks: list[list[dict[str, Any]]]) -> bool:
    """Does a chunk whose entries' last sampled ids are not its ids' come before an id that
    decodes alone to U+FFFD (a character's later bytes)? Its logprob ``token`` is repaired with
    the ids before it: tito's stream reads them from the entries (as vLLM's batch), vLLM's
    stream from the chunks' ids (deviation ``*_repair_*``)."""
    pos, off = 0, False
    for n, entries in zip(sizes, chunks, strict=True):
        if off and any("\ufffd" in decode(case.model, [t], False) for t in ids[pos:pos + n]):
            return True
        tail = [e.get("token_id") for e in entries][-4:]
        off = off or tail != ids[max(pos, pos + n - 4):pos + n] and bool(entries or n)
        pos += n
    return False


def changed(entries: list[dict[str, Any]], mode: str, rnd: random.Random
            ) -> list[dict[str, Any]]:
    """``entries`` changed by ``mode`` (more / more_mid: 1-3 copies of random entries, at the
    end or anywhere; fewer: a random tail cut, at least one entry gone; zero: none)."""
    if not entries:
        return []
    if mode == "zero":
        return []
    if mode == "fewer":
        return entries[:rnd.randrange(len(entries))]
    out = list(entries)
    for _ in range(rnd.randint(1, 3)):
        extra = copy.deepcopy(rnd.choice(entries))
        at = len(out) if mode == "more" else rnd.randint(0, len(out))
        out.insert(at, extra)
    return out


def split_events(case: Case, choice: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """A stream's events of a choice drawn above: each event's entries are its own ids' (from
    the list before the change), changed by the choice's mode (drawn with the case)."""
    chunks = case.lp_split.get(choice["index"])
    if chunks is None:
        return
    for ev, entries in zip(events, chunks, strict=True):
        c = ev["choices"][0]
        if "logprobs" in c:
            c["logprobs"] = {"content": entries}
