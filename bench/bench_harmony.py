"""Benchmark: tito's own harmony code against openai-harmony (the Rust wheel), for the decision
"use openai-harmony at run time, or tito's renderer and parser tested against it".

Measured in one run, CPU time (``time.process_time``), medians:

* **cold start**: a fresh interpreter that imports the code and gets ready to render
  (tito: ``import tito.core.harmony`` + the parser, on the ``tokenizers`` object tito loads
  anyway; openai-harmony: ``import openai_harmony`` + ``load_harmony_encoding``, which parses
  its own copy of the o200k vocabulary, on top of the tokenizer tito loads anyway);
* **render**: a multi-turn tool conversation (about ``--tokens`` prompt tokens) to ids;
* **parse**: an output of ``--tokens`` tokens through the streaming parser one token at a time
  (tito: :func:`tito.core.parsers.harmony.step` per token with its state; openai-harmony:
  ``StreamableParser.process``), and tito's cost per token when one call takes every token
  (a batch, or a chunk of many tokens); plus the wheel size on disk.

Run: ``python bench/bench_harmony.py [--tokens 4000] [--repeat 7]`` (offline: the o200k file is
rebuilt from gpt-oss's tokenizer.json into a temporary folder). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from harmony_ref import build_o200k, harmony_encoding, render_ids, vllm_conversation  # noqa: E402

TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"]}}}


def conversation(target_tokens: int) -> list[dict]:
    msgs: list[dict] = [{"role": "system", "content": "You are a weather bot."}]
    i = 0
    while len(msgs) * 17 < target_tokens:
        msgs += [
            {"role": "user", "content": f"Weather in city {i}? Please be precise and brief."},
            {"role": "assistant", "content": None, "reasoning": "I should call the tool.",
             "tool_calls": [{"id": f"c{i}", "type": "function", "function": {
                 "name": "get_weather", "arguments": json.dumps({"city": f"city {i}"})}}]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": f"{i % 30} degrees, clear"},
            {"role": "assistant", "content": f"It is {i % 30} degrees in city {i}."},
        ]
        i += 1
    return msgs


def cpu(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


COLD_TITO = """
import time; t = time.process_time()
from tokenizers import Tokenizer
tok = Tokenizer.from_file({tok!r})
t1 = time.process_time()
import tito.core.harmony, tito.core.parsers.harmony
print(t1 - t, time.process_time() - t1)
"""
COLD_HARMONY = """
import os, time; os.environ["TIKTOKEN_ENCODINGS_BASE"] = {base!r}
t = time.process_time()
from openai_harmony import load_harmony_encoding, HarmonyEncodingName
load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
print(time.process_time() - t)
"""


def cold(code: str, repeat: int) -> list[float]:
    runs = []
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, check=True).stdout.split()
        runs.append([float(x) for x in out])
    return [statistics.median(col) for col in zip(*runs, strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()

    from tito.core.harmony import build_conversation, render_for_completion
    from tito.core.parsers import harmony as hp
    from tito.core.vocab import Vocab

    base = pathlib.Path(tempfile.mkdtemp())
    build_o200k(base)
    enc = harmony_encoding(base)
    tok_file = str(ROOT / "layers/tokenizer/models/gpt-oss/tokenizer.json")
    vocab = Vocab.from_file(tok_file)

    msgs = conversation(args.tokens)
    date = "2026-12-01"
    tito_ids = render_for_completion(vocab, build_conversation(msgs, tools=[TOOL], start_date=date))
    ref_ids = render_ids(enc, vllm_conversation(msgs, [TOOL], None, date))
    assert tito_ids == ref_ids
    t_render = cpu(lambda: render_for_completion(
        vocab, build_conversation(msgs, tools=[TOOL], start_date=date)), args.repeat)
    h_render = cpu(lambda: render_ids(enc, vllm_conversation(msgs, [TOOL], None, date)),
                   args.repeat)

    body = " ".join(f"word{i % 97}" for i in range(args.tokens))
    out_ids = enc.encode(f"<|channel|>analysis<|message|>{body}<|end|><|start|>assistant"
                         f"<|channel|>final<|message|>done<|return|>", allowed_special="all")
    pieces = [vocab.decode([i], skip_special_tokens=False) for i in out_ids]

    def tito_parse() -> None:
        state = hp.initial()
        for i, p in zip(out_ids, pieces, strict=True):
            state, _ = hp.step(vocab, state, [i], [p], final=False)

    def harmony_parse() -> None:
        from openai_harmony import Role, StreamableParser

        parser = StreamableParser(enc, Role.ASSISTANT)
        for i in out_ids:
            parser.process(i)
            _ = parser.last_content_delta

    def tito_batch() -> None:
        hp.step(vocab, hp.initial(), out_ids, pieces, final=True)

    t_batch = cpu(tito_batch, args.repeat)
    t_parse = cpu(tito_parse, args.repeat)
    h_parse = cpu(harmony_parse, args.repeat)
    tok_load, tito_import = cold(COLD_TITO.format(tok=tok_file), 3)
    (h_cold,) = cold(COLD_HARMONY.format(base=str(base)), 3)
    import openai_harmony

    wheel_dir = pathlib.Path(openai_harmony.__file__).parent
    size = sum(f.stat().st_size for f in wheel_dir.rglob("*") if f.is_file())
    print(json.dumps({
        "prompt_tokens": len(tito_ids),
        "render_ms": {"tito": round(t_render * 1e3, 2), "openai_harmony": round(h_render * 1e3, 2),
                      "ratio": round(t_render / h_render, 2)},
        "parse_us_per_token": {"tito": round(t_parse / len(out_ids) * 1e6, 2),
                               "openai_harmony": round(h_parse / len(out_ids) * 1e6, 2),
                               "ratio": round(t_parse / h_parse, 2),
                               "tito_one_call_for_all": round(t_batch / len(out_ids) * 1e6, 2)},
        "cold_start_cpu_s": {"gpt_oss_tokenizer_load": round(tok_load, 3),
                             "tito_harmony_import": round(tito_import, 3),
                             "openai_harmony_import_and_load": round(h_cold, 3)},
        "openai_harmony_installed_bytes": size,
        "o200k_base_tiktoken_bytes": (base / "o200k_base.tiktoken").stat().st_size,
    }, indent=1))


if __name__ == "__main__":
    main()
