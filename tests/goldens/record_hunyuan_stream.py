"""Record ``hunyuan_stream_vllm.json``: vLLM 0.33.0's hunyuan_a13b reasoning *stream* on
``parser_cases_hunyuan.TEXTS``, fed Hunyuan's own token ids.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_hunyuan_stream.py

Why apart from ``record_parsers.py``: ``HunyuanA13BReasoningParser.extract_reasoning_streaming``
matches hardcoded ids of Hunyuan's tokenizer (``<think>\\n`` = 14023 771 397, ``\\n</think>\\n
<answer>\\n`` = 198 524 27963 397 27 9399 397, ``\\n</answer>`` = 198 524 9399 29, and the
``>\\n\\n`` token 1363 of ``<think>\\n\\n``), which the goldens' Qwen3-based tokenizer does not
have (no Hunyuan tokenizer is in the repository). The text is cut into those pieces (greedy,
longest first; any other character is one id outside the class's sequences) and fed one id per
delta, as vLLM's serving feeds it; ``batch`` is ``extract_reasoning`` on the text.
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from parser_cases_hunyuan import TEXTS  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.reasoning.hunyuan_a13b_reasoning_parser import HunyuanA13BReasoningParser  # noqa: E402

#: Hunyuan's ids for the pieces of its markers (the class's sequences, read off together)
PIECES = {"<th": 14023, "ink": 771, ">\n\n": 1363, ">\n": 397, "\n": 198, "</": 524,
          "think": 27963, "<": 27, "answer": 9399, ">": 29}


def tokenize(text: str) -> list[tuple[str, int]]:
    out, i = [], 0
    while i < len(text):
        piece = max((p for p in PIECES if text.startswith(p, i)), key=len, default=None)
        if piece is None:
            out.append((text[i], 1_000_000 + ord(text[i])))  # (no id of the class's sequences)
            i += 1
        else:
            out.append((piece, PIECES[piece]))
            i += len(piece)
    return out


class _Tokenizer:
    """What the class's base reads of a tokenizer (its vocabulary: none needed)."""

    def get_vocab(self) -> dict[str, int]:
        return {}


def record(text: str) -> dict:
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    reasoning, content = HunyuanA13BReasoningParser(_Tokenizer()).extract_reasoning(text, request)
    parser = HunyuanA13BReasoningParser(_Tokenizer())
    r, c, prev_text, prev_ids = [], [], "", []
    for piece, tid in tokenize(text):
        d = parser.extract_reasoning_streaming(prev_text, prev_text + piece, piece, prev_ids,
                                               [*prev_ids, tid], [tid])
        prev_text, prev_ids = prev_text + piece, [*prev_ids, tid]
        if d is not None:
            r.append(d.reasoning or "")
            c.append(d.content or "")
    return {"batch": {"reasoning": reasoning, "content": content},
            "stream": {"reasoning": "".join(r) or None, "content": "".join(c) or None}}


def main() -> None:
    out = {cid: record(text) for cid, text in TEXTS.items()}
    (HERE / "hunyuan_stream_vllm.json").write_text(
        json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(out)} cases recorded")


if __name__ == "__main__":
    main()
