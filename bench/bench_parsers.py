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

Then one line per format (``--formats`` runs only those lines): a Qwen3-tokenized output in that
format whose one call carries ~14,000 tokens of arguments (reasoning parsers: a long block), one
token per call at output positions 100 and 10,000; the two must cost the same (``10k/100`` about
1), and the largest state seen outside a call (before it and in the text after it) must stay
under 4 KiB.
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
        size = max(size, len(json.dumps(state.model_dump(exclude_defaults=True),
                                        ensure_ascii=False, separators=(",", ":")).encode()))
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


#: per tool format: (text before the call's arguments, text after them); the arguments are one
#: JSON object (or a pythonic list of keyword arguments) spanning positions 100 to 10,000
_ARGS = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(1100)]}
_JSON = json.dumps(_ARGS)
_PY = "items=" + repr(_ARGS["items"])
TOOL_FORMATS: dict[str, tuple[str, str]] = {
    "hermes": ('Sure.\n<tool_call>\n{"name": "store", "arguments": ' + _JSON, "}\n</tool_call>"),
    "mistral": ('Sure.[TOOL_CALLS]store[ARGS]' + _JSON, ""),
    "llama3_json": ('{"name": "store", "parameters": ' + _JSON, "}"),
    "pythonic": ("[store(" + _PY, ")]"),
    "llama4_pythonic": ("<|python_start|>[store(" + _PY, ")]<|python_end|>"),
    "deepseek_v3": (
        "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>store\n```json\n" + _JSON,
        "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    "granite": ('Sure.<|tool_call|>[{"name": "store", "arguments": ' + _JSON, "}]"),
    "granite-20b-fc": ('Sure.<function_call> {"name": "store", "arguments": ' + _JSON, "}"),
    "hunyuan_a13b": ('Sure.<tool_calls>[{"name": "store", "arguments": ' + _JSON, "}]</tool_calls>"),
    # XML formats: the JSON text is one (string) parameter value
    "qwen3_coder": (
        "Sure.<tool_call>\n<function=store>\n<parameter=items>\n" + _JSON,
        "\n</parameter>\n</function>\n</tool_call>",
    ),
    "seed_oss": (
        "Sure.<seed:tool_call>\n<function=store>\n<parameter=items>\n" + _JSON,
        "\n</parameter>\n</function>\n</seed:tool_call>",
    ),
    "glm45": ("Sure.<tool_call>store\n<arg_key>items</arg_key>\n<arg_value>" + _JSON,
              "</arg_value>\n</tool_call>"),
    "minimax_m2": (
        'Sure.<minimax:tool_call>\n<invoke name="store">\n<parameter name="items">' + _JSON,
        "</parameter>\n</invoke>\n</minimax:tool_call>",
    ),
    "deepseek_v32": (
        'Sure.<｜DSML｜function_calls>\n<｜DSML｜invoke name="store">\n<｜DSML｜parameter '
        'name="items" string="true">' + _JSON,
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    ),
    "kimi_k2": (
        "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.store:0"
        "<|tool_call_argument_begin|>" + _JSON,
        "<|tool_call_end|><|tool_calls_section_end|>",
    ),
    "deepseek_v31": (
        "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>store<｜tool▁sep｜>" + _JSON,
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
}
#: per reasoning format: the text that opens a long block
REASONING_FORMATS: dict[str, str] = {
    "qwen3": "<think>\n",
    "deepseek_r1": "",
    "glm45": "",
    "kimi_k2": "",
    "minimax_m2": "",
    "seed_oss": "<seed:think>",  # the block never closes here (its end is </seed:think>)
}
_THOUGHT = "Let me think about this step by step; 中文 and emoji 😀 included. " * 900
_AFTER = " Done, as you can see." * 40


def format_line(vocab, prompt, name: str, kind: str) -> str:
    """One format's line: per-call cost at positions 100 and 10,000, and the state outside calls."""
    if kind == "tool":
        head, tail = TOOL_FORMATS[name]
        cfg = ChoiceConfig(tool_parser=name, tool_choice="auto")
        ids = vocab.encode(head) + vocab.encode(tail + _AFTER)
        outside = [0, len(ids) - 1]
    else:
        cfg = ChoiceConfig(reasoning_parser=name)
        ids = vocab.encode(REASONING_FORMATS[name] + _THOUGHT + "</think>" + _AFTER)
        outside = [len(ids) - 1]
    _, out = step_choice(vocab, cfg, start_choice(vocab, cfg, prompt), ids, finish_reason="stop")
    if kind == "tool":  # the positions measured lie inside the call's arguments
        assert [c.name for c in out.tool_calls if c.name] == ["store"], (name, out.text[:80])
        assert len(vocab.encode(head)) > 10_100 + SAMPLES, name
    else:
        assert len(out.reasoning) > len(_THOUGHT) - 10, name
    times = {}
    for pos in (100, 10_000):
        state = advance(vocab, cfg, prompt, ids, pos)
        times[pos] = tito_call(vocab, cfg, state, ids, pos)[0]
    sizes, state = [], start_choice(vocab, cfg, prompt)
    for k in range(0, len(ids), 500):
        state, _ = step_choice(vocab, cfg, state, ids[k : k + 500], finish_reason=None)
        if k <= outside[0] or k + 500 >= outside[-1]:
            sizes.append(len(state.model_dump_json().encode()))
    ratio = times[10_000] / times[100]
    flag = "" if ratio < 1.5 and max(sizes) < 4096 else "  <-- check"
    return (f"{kind + ' ' + name:23s} {times[100]*1e6:8.0f}us {times[10_000]*1e6:8.0f}us "
            f"{ratio:8.2f} {max(sizes):10d}B{flag}")


def main() -> int:
    model = get_registry().get("qwen3")
    vocab = model.vocab
    prompt = vocab.encode("<|im_start|>user\nGo<|im_end|>\n<|im_start|>assistant\n")
    cfg = ChoiceConfig(skip_special_tokens=False, reasoning_parser="qwen3", tool_parser="hermes",
                       tool_choice="auto")
    if "--formats" not in sys.argv:
        print(f"{'output':16s} {'N':>7s} {'tito/call':>10s} {'state':>7s} {'replay/call':>12s} "
              f"{'replay/tito':>12s}")
    for name, ids in outputs(vocab).items() if "--formats" not in sys.argv else ():
        assert len(ids) > max(POSITIONS) + SAMPLES, (name, len(ids))
        for pos in POSITIONS:
            state = advance(vocab, cfg, prompt, ids, pos)
            t, size = tito_call(vocab, cfg, state, ids, pos)
            r = replay_call(vocab, cfg, prompt, ids, pos)
            print(f"{name:16s} {pos:7d} {t*1e6:8.0f}us {size:6d}B {r*1e3:10.1f}ms {r/t:12.0f}")
    print(f"\n{'format':23s} {'N=100':>10s} {'N=10,000':>10s} {'10k/100':>8s} {'state out':>11s}")
    for name in TOOL_FORMATS:
        print(format_line(vocab, prompt, name, "tool"))
    for name in REASONING_FORMATS:
        print(format_line(vocab, prompt, name, "reasoning"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
