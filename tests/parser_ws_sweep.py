"""The whitespace sweep: long whitespace runs in each parser's own fragments, stream vs batch.

Why: a parser holds text while a marker, a header or a gap is undecided, each hold bounded
(``HEADER_LIMIT``, ``WS_LIMIT``, ``VALUE_LIMIT`` in :mod:`tito.core.parsers.tools._base`). A
whitespace run longer than a bound, cut by a chunk, is where a stream's hold and the batch's
one-look decision have come apart (sessions 40 and 41: hermes, mistral, plamo3, deepseek_v32).
This drives every tool parser (``tools.step``), every reasoning parser (``reasoning.step``) and,
with ``--pairs``, each model's pair through the whole choice pipeline (``parser_pipeline.run``:
token ids, chunks of as many tokens as the text chunk has characters) over random joins of its fragments (``test_parsers_tools._FRAGMENTS`` where a parser has them,
else its markers, headers and generic JSON / XML bits), with each ``" "`` / ``"\\n"`` fragment
replaced by a run of 65, 201, 257 or 300 characters (just past each bound), once whole and
once in random chunks with the state round-tripping through JSON: a difference or an exception
is a finding, shrunk (chunks merged, text cut) to a small reproduction.

Run: ``PYTHONPATH=src:tests python3 tests/parser_ws_sweep.py SEED [SEED ...] [-n TEXTS]
[-p NAME ...] [--pairs]`` (one line per finding, ``clean`` otherwise); ``tests/test_parsers_ws_sweep.py``
runs a few seeds in CI.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from helpers import drive_tools

from tito.core.parsers import reasoning as R
from tito.core.parsers import tools as T

#: whitespace run lengths: just past WS_LIMIT (64), HEADER_LIMIT (200), VALUE_LIMIT (256), and more
RUNS = (65, 201, 257, 300)
_GENERIC = ['"f">', "f>", '"f"', "f", "\n", " ", "text", "{", "}", '{"a": 1}', "[1, 2]", '"',
            ">", '{"name": "f", "arguments": {"a": 1}}', "=", "<", "中文", " ", "\n"]


@dataclass(frozen=True)
class Finding:
    """One stream != batch (or an exception) of one parser on one text."""

    kind: str  # "tool", "reasoning" or "pair"
    name: str  # the parser (for reasoning: NAME@PHASE, the stream's first phase)
    what: str  # "neq", or the exception's type and message
    chunks: list[str]  # a small reproduction (the batch is their join)
    batch: Any
    stream: Any

    def line(self) -> str:
        """One printable line."""
        return json.dumps({"kind": self.kind, "name": self.name, "what": self.what,
                           "chunks": self.chunks, "batch": repr(self.batch)[:300],
                           "stream": repr(self.stream)[:300]}, ensure_ascii=False)


def tool_fragments(name: str) -> list[str]:
    """The tool format's fragments: the hand-made table where there is one, else its markers,
    its call header and generic bits."""
    import test_parsers_tools as tp

    if name in tp._FRAGMENTS:
        return list(tp._FRAGMENTS[name])
    parser = tp._parser_for(name)
    marks = list(getattr(parser, "marker_tokens", ()) or ())
    heads = [h for h in (tp.XML_NAME_HEADERS.get(name), tp.XML_SECTIONS.get(name)) if h]
    return [*marks, *heads, *_GENERIC]


def reasoning_fragments(name: str) -> list[str]:
    """The reasoning format's markers (whole and halved) and generic bits."""
    p = R.REASONING_PARSERS[name]
    marks = [m for m in (*p.starts, *p.ends, p.content_end, p.implicit_end) if m]
    return [*marks, *(m[: len(m) // 2] for m in marks), "a", " ", "\n", "中", "text", "<"]


def run_tool(name: str) -> Callable[[list[str]], Any]:
    """The tool parser as a function of the chunks (the last call final)."""
    import test_parsers_tools as tp

    parser = tp._parser_for(name)
    return lambda chunks: drive_tools(parser, chunks)


def run_reasoning(name: str, phase: str) -> Callable[[list[str]], Any]:
    """The reasoning parser from ``phase`` as a function of the chunks."""
    parser = R.REASONING_PARSERS[name]

    def run(chunks: list[str]) -> Any:
        state = R.ReasoningState(phase=phase, id_phase=phase, implicit_end=parser.implicit_end)
        reasoning, content = [], []
        for k, text in enumerate(chunks):
            state = R.ReasoningState.model_validate_json(state.model_dump_json())
            state, r, c = R.step(parser, state, text, [], final=k == len(chunks) - 1)
            reasoning.append(r)
            content.append(c)
        return "".join(reasoning), "".join(content)

    return run


#: the tools a pair's request declares (typed parameters, as ``test_parsers_tools._parser_for``)
_PAIR_TOOLS = [
    {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "o": {"type": ["object", "array"]}, "s": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "g", "parameters": {"type": "object",
                                                                  "properties": {}}}},
]


def run_pair(tool: str, reasoning: str) -> Callable[[list[str]], Any]:
    """The (tool, reasoning) pair through the choice pipeline; chunk k of the text becomes a
    chunk of ``len(chunks[k])`` token ids (one chunk: the whole output)."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "goldens"))
    from parser_pipeline import run

    def go(chunks: list[str]) -> Any:
        case = {"tool": tool, "reasoning": reasoning, "tools": _PAIR_TOOLS,
                "text": "".join(chunks)}
        sizes = [10**6] if len(chunks) == 1 else [max(1, len(c)) for c in chunks]
        out = run(case, sizes)
        return out["reasoning"], out["content"], out["calls"]

    return go


def _differs(run: Callable[[list[str]], Any], chunks: list[str]) -> tuple[str, Any, Any]:
    """("" when the stream equals the batch, else "neq" or the exception), batch, stream."""
    try:
        batch = run(["".join(chunks)])
    except Exception as e:  # noqa: BLE001 - any exception is a finding
        return f"batch {type(e).__name__}: {str(e)[:200]}", None, None
    try:
        stream = run([*chunks, ""])
    except Exception as e:  # noqa: BLE001
        return f"stream {type(e).__name__}: {str(e)[:200]}", batch, None
    return ("" if stream == batch else "neq"), batch, stream


def shrink(run: Callable[[list[str]], Any], chunks: list[str], budget: int = 3000) -> list[str]:
    """A smaller chunk list that still differs: chunks merged, then pieces of text cut."""
    tries = 0

    def bad(c: list[str]) -> bool:
        nonlocal tries
        tries += 1
        return bool(_differs(run, c)[0])

    changed = True
    while changed and tries < budget:
        changed = False
        for i in range(len(chunks) - 1):
            merged = [*chunks[:i], chunks[i] + chunks[i + 1], *chunks[i + 2 :]]
            if bad(merged):
                chunks, changed = merged, True
                break
        if changed:
            continue
        for i in range(len(chunks)):
            for size in (100, 20, 5, 1):
                for j in range(0, len(chunks[i]), size):
                    rest = chunks[i][:j] + chunks[i][j + size :]
                    cut = [*chunks[:i], *([rest] if rest else []), *chunks[i + 1 :]]
                    if tries >= budget:
                        return chunks
                    if bad(cut):
                        chunks, changed = cut, True
                        break
                if changed:
                    break
            if changed:
                break
    return chunks


def _texts(rng: random.Random, frags: Sequence[str], n: int) -> list[tuple[str, list[str]]]:
    """``n`` texts (a join of 1-14 fragments, whitespace fragments made long) and their chunks."""
    out = []
    for _ in range(n):
        parts = [rng.choice(frags) for _ in range(rng.randint(1, 14))]
        parts = [p * rng.choice(RUNS) if p in (" ", "\n") else p for p in parts]
        text = "".join(parts)
        chunks, i = [], 0
        while i < len(text):
            k = rng.randint(1, 40)
            chunks.append(text[i : i + k])
            i += k
        out.append((text, chunks))
    return out


def sweep(seed: int, n: int = 300, names: Sequence[str] = (), minimize: bool = True,
          pairs: bool = False) -> list[Finding]:
    """Every parser (or ``names``: tool or reasoning names) over ``n`` texts drawn with
    ``seed``; the first finding of each parser. ``pairs``: the models' pairs instead."""
    rng = random.Random(seed)
    jobs: list[tuple[str, str, Callable[[list[str]], Any], list[str]]] = []
    for tool, reasoning in _pairs() if pairs else ():
        if not names or tool in names or reasoning in names:
            frags = tool_fragments(tool)  # (muse's, inkling's routers: no reasoning table)
            if reasoning in R.REASONING_PARSERS:
                frags += reasoning_fragments(reasoning)
            jobs.append(("pair", f"{tool}+{reasoning}", run_pair(tool, reasoning), frags))
    for name in () if pairs else sorted(T.TOOL_PARSERS):
        if not names or name in names:
            jobs.append(("tool", name, run_tool(name), tool_fragments(name)))
    for name in () if pairs else sorted(R.REASONING_PARSERS):
        if not names or name in names:
            for phase in ("pre", "think"):
                jobs.append(("reasoning", f"{name}@{phase}", run_reasoning(name, phase),
                             reasoning_fragments(name)))
    found = []
    for kind, name, run, frags in jobs:
        for _text, chunks in _texts(rng, frags, n):
            what, batch, stream = _differs(run, chunks)
            if not what:
                continue
            if minimize:
                chunks = shrink(run, chunks)
                what, batch, stream = _differs(run, chunks)
            found.append(Finding(kind, name, what, chunks, batch, stream))
            break
    return found


def _pairs() -> list[tuple[str, str]]:
    """Each model's (tool, reasoning) pair, as the parser fuzzer lists them."""
    sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "conformance"))
    from fuzz_parser_cases import PAIRS

    return list(PAIRS)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (module header); exit status 1 when anything was found."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("-n", type=int, default=300, help="texts per parser and seed")
    ap.add_argument("-p", "--parser", action="append", default=[], help="only these parsers")
    ap.add_argument("--pairs", action="store_true", help="the models' pairs, whole pipeline")
    args = ap.parse_args(argv)
    bad = 0
    for seed in args.seeds:
        found = sweep(seed, args.n, args.parser, pairs=args.pairs)
        for f in found:
            print(seed, f.line(), flush=True)
        if not found:
            print(seed, "clean", flush=True)
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
