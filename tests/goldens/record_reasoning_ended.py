"""Record ``reasoning_ended_render_vllm.json``: vLLM 0.33.0's render answer for ``reasoning_ended``.

Run with vLLM's python (never from the tests)::

    /work/vllm-venv/bin/python tests/goldens/record_reasoning_ended.py

vLLM's render server (``vllm/entrypoints/scale_out/render/serving.py``) builds the composed
parser with the request's effective template kwargs and answers
``request.resolve_reasoning_ended(parser, prompt_token_ids)``; this does the same for every
reasoning parser tito implements, four kwargs and a few prompt shapes, on the Qwen3 tokenizer
with the format's markers added as special tokens (``parser_cases.markers_for``), as
``record_parsers.py``. Each entry: reasoning parser, kwargs, prompt name, prompt text, vLLM's
answer.
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record_parsers import tokenizer  # noqa: E402
from parser_cases import markers_for  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

_T = ("<think>", "</think>")
#: reasoning parser -> its markers (the prompt shapes are written with them)
PARSERS = {
    **{name: _T for name in (
        "qwen3", "deepseek_r1", "deepseek_v3", "glm45", "glm47", "kimi_k2", "minimax_m2",
        "step5", "holo2", "ling3", "step3p5", "mimo", "nemotron_v3", "deepseek_v4",
        "deepseek_v41", "olmo3", "hunyuan_a13b")},
    "seed_oss": ("<seed:think>", "</seed:think>"),
    "mistral": ("[THINK]", "[/THINK]"),
}
KWARGS = [None, {"enable_thinking": False}, {"thinking": False}, {"thinking": True}]
_Q = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def prompts(start: str, end: str) -> dict[str, str]:
    return {
        "plain": _Q, "open": _Q + start + "\n", "closed": _Q + start + "\n\n" + end + "\n\n",
        "end_only": _Q + end + "\n\n", "empty": "",
        # a closed block in an earlier turn, then a new turn that writes none
        "history": _Q + start + "a" + end + "b<|im_end|>\n<|im_start|>user\nq<|im_end|>\n"
                   "<|im_start|>assistant\n",
    }


def main() -> None:
    out = []
    for name, (start, end) in PARSERS.items():
        tok = tokenizer(markers_for({"tool": None, "reasoning": name}))
        cls = ParserManager.get_parser(tool_parser_name=None, reasoning_parser_name=name,
                                       enable_auto_tools=False)
        for kw in KWARGS:
            request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                            chat_template_kwargs=kw)
            for pname, text in prompts(start, end).items():
                parser = cls(tok, None, chat_template_kwargs=kw or {})
                ids = tok.encode(text, add_special_tokens=False)
                out.append({"reasoning": name, "kwargs": kw, "prompt": pname, "text": text,
                            "vllm": request.resolve_reasoning_ended(parser, ids)})
    (HERE / "reasoning_ended_render_vllm.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(out)} answers recorded")


if __name__ == "__main__":
    main()
