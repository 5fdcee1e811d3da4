"""Record ``metaspace_logprobs_vllm.json``: vLLM 0.33.0's logprob tokens for a Metaspace vocabulary.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_metaspace_logprobs.py

A SentencePiece-style ``tokenizer.json`` (Metaspace pre-tokenizer: Llama, Mistral v0.x; here
tito's shipped ``mistral-v3`` folder, which vLLM loads with ``--tokenizer-mode hf``) decodes a
single ``▁Hi`` to ``Hi``. vLLM's derender names a logprob's token through
``decode_token_ids`` (``convert_ids_list_to_tokens``: the decode, with the leading spaces the
raw piece's ``▁`` stand for put back), then repairs a U+FFFD ending from the preceding sampled
ids. This stores, for engine logprob entries built from real texts (words, punctuation, a
newline, byte-fallback characters, a run of spaces, special tokens, an out-of-vocabulary id),
what vLLM's derender functions make of them: the chat ``logprobs.content``
(``online_derenderer._resolve_logprobs``, every candidate kept) and the completions
``logprobs`` (``_convert_chat_logprobs_to_completion_logprobs``). ``tests/test_logprobs_metaspace.py``
compares tito's with them.
"""

from __future__ import annotations

import json
import pathlib

from vllm.entrypoints.scale_out.token_in_token_out.protocol import GenerateLogProbs
from vllm.renderers.online_derenderer import (
    _convert_chat_logprobs_to_completion_logprobs,
    _resolve_logprobs,
)
from vllm.tokenizers import get_tokenizer

HERE = pathlib.Path(__file__).resolve().parent
FOLDER = HERE.parents[1] / "layers" / "tokenizer" / "models" / "mistral-v3"
OUT = HERE / "metaspace_logprobs_vllm.json"

#: the texts whose ids are the sampled tokens (each entry's candidates: the sampled id, the next
#: text id, two fixed ids: ``▁`` alone and a byte piece)
TEXTS = [
    "Hi there, how are you?",
    " Leading space and  two spaces",
    "Line one\nLine two",
    "emoji 😀 and 中文 and café",
    "x    y",
]
FIXED = [29473, 1, 2, 3, 781]  # (``▁``, ``<s>``, ``</s>``, ``[INST]``, a newline)


def entries(ids: list[int]) -> list[dict]:
    out = []
    for k, token_id in enumerate(ids):
        following = ids[k + 1] if k + 1 < len(ids) else FIXED[0]
        top = [token_id, following, *FIXED[(k % 3):(k % 3) + 2]]
        out.append({"token_id": token_id, "logprob": -0.25 * (k + 1), "top_logprobs": [
            {"token_id": t, "logprob": -0.5 * (j + 1)} for j, t in enumerate(top)]})
    return out


def main() -> None:
    tokenizer = get_tokenizer(str(FOLDER), tokenizer_mode="hf")
    cases = []
    for text in TEXTS:
        ids = tokenizer.encode(text, add_special_tokens=False)
        raw = entries(ids)
        if text == TEXTS[0]:
            raw.append({"token_id": 2, "logprob": -0.1, "top_logprobs": [
                {"token_id": 2, "logprob": -0.1}, {"token_id": 40000, "logprob": -3.0}]})
        generate = GenerateLogProbs.model_validate({"content": raw})
        chat = _resolve_logprobs(generate, tokenizer)
        completion = _convert_chat_logprobs_to_completion_logprobs(chat, generate)
        cases.append({"text": text, "entries": raw,
                      "chat": chat.model_dump(mode="json")["content"],
                      "completion": completion.model_dump(mode="json")})
    OUT.write_text(json.dumps({"vllm": "0.33.0", "folder": "layers/tokenizer/models/mistral-v3",
                               "tokenizer_mode": "hf", "cases": cases},
                              ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
