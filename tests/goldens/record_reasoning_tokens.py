"""Record ``reasoning_tokens_vllm.json``: vLLM 0.33.0's usage ``reasoning_tokens`` per case.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_reasoning_tokens.py
    /work/vllm-venv/bin/python tests/goldens/record_reasoning_tokens.py --only count/special_

The cases: every case of ``parser_cases.CASES`` with a reasoning parser, and
``parser_cases_count.cases()`` (markers of several ids). Each is counted as vLLM's chat serving
counts: ``batch`` is the composed parser's ``parse(text, ..., model_output_token_ids=ids)``
then ``count_reasoning_tokens(ids)``; ``stream`` the same parser fed by ``parse_delta`` in
chunks of the listed sizes (cycled; the incremental detokenizer's text, special tokens kept;
an empty finishing delta), then ``count_reasoning_tokens`` of every generated id, as the
serving's end of stream asks it. Tokenizers as ``record_parsers.py`` builds them.
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import parser_cases_count  # noqa: E402
import record_parsers  # noqa: E402
from parser_cases import CASES, markers_for  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.tokenizers.detokenizer_utils import detokenize_incrementally  # noqa: E402

#: the chunkings recorded for vLLM's stream
SIZES = ([1], [3, 1, 2], [2, 5])


def all_cases() -> list[dict]:
    return [c for c in CASES if c["reasoning"]] \
        + parser_cases_count.cases()


def _build(case: dict):
    tok = record_parsers.tokenizer(markers_for(case))
    kwargs = case.get("kwargs") or {}
    cls = ParserManager.get_parser(
        tool_parser_name=case["tool"], reasoning_parser_name=case["reasoning"],
        enable_auto_tools=case["tool"] is not None)
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}],
        tools=case["tools"] or None, chat_template_kwargs=kwargs or None)
    parser = cls(tok, request.tools, chat_template_kwargs=kwargs)
    prompt_ids = tok.encode(case["prompt"], add_special_tokens=False) if "prompt" in case else []
    if prompt_ids:
        parser.set_prompt_token_ids(prompt_ids)
    return tok, parser, request, prompt_ids


def batch(case: dict) -> int | str:
    tok, parser, request, _ = _build(case)
    ids = tok.encode(case["text"], add_special_tokens=False)
    try:
        parser.parse(tok.decode(ids), request, enable_auto_tools=case["tool"] is not None,
                     model_output_token_ids=ids)
        return parser.count_reasoning_tokens(ids)
    except Exception as exc:  # a reference failure is recorded, not hidden
        return f"error {type(exc).__name__}: {exc}"


def stream(case: dict, sizes: list[int]) -> int | str:
    tok, parser, request, prompt_ids = _build(case)
    ids = tok.encode(case["text"], add_special_tokens=False)
    chunks, i, k = [], 0, 0
    while i < len(ids):
        n = sizes[k % len(sizes)]
        chunks.append(ids[i : i + n])
        i, k = i + n, k + 1
    chunks.append([])
    prev, prefix, read, seen = None, 0, 0, []
    try:
        for j, chunk in enumerate(chunks):
            text = ""
            for t in chunk:
                seen.append(t)
                new, piece, prefix, read = detokenize_incrementally(
                    tok, seen, prev, prefix, read,
                    skip_special_tokens=False, spaces_between_special_tokens=True)
                prev = (prev or []) + new
                text += piece
            parser.parse_delta(text, list(chunk), request, prompt_token_ids=prompt_ids,
                               finished=j == len(chunks) - 1)
        return parser.count_reasoning_tokens(tuple(seen)) if seen else 0
    except Exception as exc:
        return f"error {type(exc).__name__}: {exc}"


def main() -> None:
    """All cases; with ``--only PREFIX``: the cases whose id starts so, merged into the file
    (the others' records kept as they are)."""
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    path = HERE / "reasoning_tokens_vllm.json"
    new = [{"id": c["id"], "reasoning": c["reasoning"], "batch": batch(c),
            "stream": {",".join(map(str, s)): stream(c, s) for s in SIZES}}
           for c in all_cases() if only is None or c["id"].startswith(only)]
    out = new
    if only is not None:
        fresh = {g["id"] for g in new}
        out = [g for g in json.loads(path.read_text()) if g["id"] not in fresh] + new
    path.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n")
    bad = [g["id"] for g in new if set(g["stream"].values()) != {g["batch"]}]
    print(f"{len(new)} cases recorded; vLLM batch != stream in {len(bad)}: {bad}")


if __name__ == "__main__":
    main()
