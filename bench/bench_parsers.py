"""Parser-path streaming cost: tito's carried parser state vs vLLM's replay of the history.

Run: ``python bench/bench_parsers.py`` (under a minute on 2 cores). Two Qwen3 outputs are streamed
one token per call through the chat derender pipeline (reasoning parser ``qwen3`` + tool parser
``hermes``): a long reasoning block, and a long tool call whose arguments are one huge JSON object.

At several positions N in the stream it reports, measured in the same run:

- tito: the time of one call at position N (state in, one token, state out) and the state's size;
- vLLM's replay model: vLLM's stateless parser path re-sends every output id and replays them
  through fresh parsers on every call (spec 3.4), so a call at position N costs a replay of N
  tokens. We measure that cost with tito's own pipeline (a fresh state fed the N-token history),
  so the ratio isolates the algorithm, not the implementation language.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tito.core.pipeline import ChoiceConfig, start_choice, step_choice  # noqa: E402
from tito.models import get_registry  # noqa: E402

POSITIONS = (100, 1_000, 10_000)
SAMPLES = 50


def outputs(vocab) -> dict[str, list[int]]:
    thought = "Let me think about this step by step; 中文 and emoji 😀 included. " * 800
    args = json.dumps({"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(900)]})
    return {
        "long reasoning": vocab.encode("<think>\n" + thought),
        "long tool call": vocab.encode(
            '<think>\nok\n</think>\n\n<tool_call>\n{"name": "store", "arguments": ' + args),
    }


def advance(vocab, cfg, prompt, ids, n):
    state = start_choice(vocab, cfg, prompt)
    for k in range(0, n, 500):
        state, _ = step_choice(vocab, cfg, state, ids[k:min(k + 500, n)], finish_reason=None)
    return state


def tito_call(vocab, cfg, state, ids, pos) -> tuple[float, int]:
    times, size = [], 0
    for k in range(SAMPLES):
        t0 = time.perf_counter()
        state, _ = step_choice(vocab, cfg, state, [ids[pos + k]], finish_reason=None)
        times.append(time.perf_counter() - t0)
        size = max(size, len(state.model_dump_json(exclude_defaults=True).encode()))
    return statistics.median(times), size


def replay_call(vocab, cfg, prompt, ids, pos) -> float:
    """One call of the replay model at position ``pos``: a fresh pipeline fed the history."""
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        state = start_choice(vocab, cfg, prompt)
        state, _ = step_choice(vocab, cfg, state, ids[: pos + 1], finish_reason=None)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    model = get_registry().get("qwen3")
    vocab = model.vocab
    prompt = vocab.encode("<|im_start|>user\nGo<|im_end|>\n<|im_start|>assistant\n")
    cfg = ChoiceConfig(skip_special_tokens=False, reasoning_parser="qwen3", tool_parser="hermes",
                       tool_choice="auto")
    print(f"{'output':16s} {'N':>7s} {'tito/call':>10s} {'state':>7s} {'replay/call':>12s} {'replay/tito':>12s}")
    for name, ids in outputs(vocab).items():
        assert len(ids) > max(POSITIONS) + SAMPLES, (name, len(ids))
        for pos in POSITIONS:
            state = advance(vocab, cfg, prompt, ids, pos)
            t, size = tito_call(vocab, cfg, state, ids, pos)
            r = replay_call(vocab, cfg, prompt, ids, pos)
            print(f"{name:16s} {pos:7d} {t*1e6:8.0f}us {size:6d}B {r*1e3:10.1f}ms {r/t:12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
