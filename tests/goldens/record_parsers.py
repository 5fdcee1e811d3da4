"""Record ``parsers_vllm.json``: vLLM 0.33.0's real parsers on ``parser_cases.CASES``.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_parsers.py [ID_PREFIX ...]

With id prefixes only the cases whose id starts with one are recorded again; the others keep
their stored goldens (the file stays in ``CASES`` order; cases no longer in ``CASES`` go).

For each case: the Qwen3 tokenizer of ``layers/tokenizer/models/qwen3`` with the format's markers
added as special tokens (``parser_cases.MARKERS``), vLLM's composed parser
(``ParserManager.get_parser(tool, reasoning, enable_auto_tools=True)``) built as vLLM's chat
serving builds it (tokenizer, request tools, chat_template_kwargs); ``batch`` is
``parser.parse`` (reasoning, content, calls), ``stream`` the concatenated ``parse_delta`` results
with one token per delta (vLLM's incremental detokenizer, special tokens kept); ``ids`` only
for Kimi-K2, whose ids the model writes (other formats' ids are random).
"""

from __future__ import annotations

import json
import pathlib
import shutil
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from parser_cases import CASES, ENDED_CASES, markers_for  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.tokenizers import get_tokenizer  # noqa: E402
from vllm.tokenizers.detokenizer_utils import detokenize_incrementally  # noqa: E402

QWEN3 = HERE.parents[1] / "layers" / "tokenizer" / "models" / "qwen3"
_TOKENIZERS: dict[tuple[str, ...], object] = {}


def tokenizer(markers: list[str]):
    key = tuple(markers)
    if key not in _TOKENIZERS:
        d = pathlib.Path(tempfile.mkdtemp())
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(QWEN3 / f, d / f)
        tok = PreTrainedTokenizerFast.from_pretrained(str(d))
        if markers:
            tok.add_special_tokens({"additional_special_tokens": markers})
        tok.save_pretrained(str(d))
        _TOKENIZERS[key] = get_tokenizer(str(d))
    return _TOKENIZERS[key]


def _calls(calls) -> list[list]:
    return [[c.function.name if hasattr(c, "function") else c.name,
             c.function.arguments if hasattr(c, "function") else c.arguments] for c in calls or []]


def record(case: dict) -> dict:
    tok = tokenizer(markers_for(case))
    kwargs = case.get("kwargs") or {}
    cls = ParserManager.get_parser(
        tool_parser_name=case["tool"], reasoning_parser_name=case["reasoning"],
        enable_auto_tools=case["tool"] is not None,
    )
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}],
        tools=case["tools"] or None, chat_template_kwargs=kwargs or None,
    )
    out: dict = {"id": case["id"]}
    prompt_ids = tok.encode(case["prompt"], add_special_tokens=False) if "prompt" in case else []
    parser = cls(tok, request.tools, chat_template_kwargs=kwargs)
    if prompt_ids:
        parser.set_prompt_token_ids(prompt_ids)
    try:
        reasoning, content, calls = parser.parse(case["text"], request, enable_auto_tools=case["tool"] is not None)
        out["batch"] = {"reasoning": reasoning, "content": content, "calls": _calls(calls)}
    except Exception as exc:  # a reference failure is recorded, not hidden
        out["batch"] = {"error": f"{type(exc).__name__}: {exc}"}

    out["stream"] = stream(case, [1], final_alone=True)
    return out


def stream(case: dict, sizes: list[int], *, final_alone: bool = False) -> dict:
    """vLLM's ``parse_delta`` over the case's ids in chunks of ``sizes`` (cycled), each chunk's
    text the incremental detokenizer's pieces joined, as vLLM's serving feeds it; the last chunk
    says ``finished`` (``final_alone``: an empty finishing call after the last token instead)."""
    tok = tokenizer(markers_for(case))
    kwargs = case.get("kwargs") or {}
    cls = ParserManager.get_parser(
        tool_parser_name=case["tool"], reasoning_parser_name=case["reasoning"],
        enable_auto_tools=case["tool"] is not None,
    )
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}],
        tools=case["tools"] or None, chat_template_kwargs=kwargs or None,
    )
    prompt_ids = tok.encode(case["prompt"], add_special_tokens=False) if "prompt" in case else []
    parser = cls(tok, request.tools, chat_template_kwargs=kwargs)
    ids = tok.encode(case["text"], add_special_tokens=False)
    chunks, i, k = [], 0, 0
    while i < len(ids):
        n = sizes[k % len(sizes)]
        chunks.append(ids[i : i + n])
        i, k = i + n, k + 1
    if final_alone or not chunks:
        chunks.append([])
    prev_tokens, prefix, read, seen = None, 0, 0, []
    reasoning, content, names, args, call_ids = [], [], {}, {}, {}
    try:
        for j, chunk in enumerate(chunks):
            text = ""
            for t in chunk:
                seen.append(t)
                new, piece, prefix, read = detokenize_incrementally(
                    tok, seen, prev_tokens, prefix, read,
                    skip_special_tokens=False, spaces_between_special_tokens=True,
                )
                prev_tokens = (prev_tokens or []) + new
                text += piece
            d = parser.parse_delta(text, list(chunk), request, prompt_token_ids=prompt_ids,
                                   finished=j == len(chunks) - 1)
            if d is None:
                continue
            reasoning.append(d.reasoning or "")
            content.append(d.content or "")
            for tc in d.tool_calls or []:
                if tc.id:
                    call_ids[tc.index] = tc.id
                if tc.function and tc.function.name:
                    names[tc.index] = tc.function.name
                if tc.function and tc.function.arguments:
                    args[tc.index] = args.get(tc.index, "") + tc.function.arguments
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    keys = sorted(set(names) | set(args))
    return {
        "reasoning": "".join(reasoning) or None,
        "content": "".join(content) or None,
        "calls": [[names.get(k), args.get(k, "")] for k in keys],
        # only the model's own ids (Kimi-K2's) are data; other formats' ids are random, and so
        # is the id vLLM draws for a Kimi call whose header names no id (recorded as None)
        "ids": [None if (call_ids.get(k) or "chatcmpl-tool-").startswith("chatcmpl-tool-")
                else call_ids[k] for k in keys] if case["tool"] == "kimi_k2" else None,
    }


def record_ended() -> list[dict]:
    """vLLM's ``reasoning_ended`` for :data:`ENDED_CASES`: its render asks the composed parser's
    ``is_reasoning_end`` on the prompt ids (``resolve_reasoning_ended``)."""
    out = []
    for name, kwargs, prompt in ENDED_CASES:
        tok = tokenizer(markers_for({"tool": None, "reasoning": name}))
        cls = ParserManager.get_parser(tool_parser_name=None, reasoning_parser_name=name,
                                       enable_auto_tools=False)
        parser = cls(tok, None, chat_template_kwargs=kwargs)
        ended = parser.is_reasoning_end(tok.encode(prompt, add_special_tokens=False))
        out.append({"reasoning": name, "kwargs": kwargs, "prompt": prompt, "ended": ended})
    return out


def main() -> None:
    prefixes = tuple(sys.argv[1:])
    old = {}
    if prefixes and (HERE / "parsers_vllm.json").exists():
        old = {g["id"]: g for g in json.loads((HERE / "parsers_vllm.json").read_text())}
    goldens = [old[c["id"]] if prefixes and not c["id"].startswith(prefixes) and c["id"] in old
               else record(c) for c in CASES]
    (HERE / "parsers_vllm.json").write_text(json.dumps(goldens, ensure_ascii=False, indent=1) + "\n")
    (HERE / "reasoning_ended_vllm.json").write_text(
        json.dumps(record_ended(), ensure_ascii=False, indent=1) + "\n")
    bad = [g["id"] for g in goldens if g["batch"] != {k: g["stream"].get(k) for k in g["batch"]}]
    print(f"{len(goldens)} cases recorded; vLLM batch != stream in {len(bad)}: {bad}")


if __name__ == "__main__":
    main()
