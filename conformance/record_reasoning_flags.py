"""Record ``render_reasoning_flags.json``: a plain chat and Responses render by vLLM 0.33 for
every ``--reasoning-parser`` tito has (no tool parser), on qwen3's tokenizer with the formats'
markers (``markers.marker_folder``).

Why: the engine request's ``skip_special_tokens`` depends on the reasoning parser's
``adjust_request``: the parser-engine ones turn it off, the older ones (deepseek_r1, step3, ...)
leave the request's flag. tito turned it off for every reasoning parser but harmony's (found in
session 51 by calling each vLLM parser's ``adjust_request``). One server per parser, a few at a
time on the ports given (about two minutes a round on a loaded 2-core box)::

    /work/vllm-venv/bin/python conformance/record_reasoning_flags.py --ports 8451,8452,8453
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance import flag_servers, record  # noqa: E402

OUT = record.GOLDENS / "render_reasoning_flags.json"
MESSAGES = [{"role": "user", "content": "Hi"}]
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions/render", {"messages": MESSAGES}),
    "chat_skip_false": ("/v1/chat/completions/render", {"messages": MESSAGES,
                                                        "skip_special_tokens": False}),
    "responses": ("/v1/responses/render", {"input": "Hi"}),
}


def parsers() -> list[str]:
    """tito's reasoning parsers but the routers' (harmony, Muse, Inkling: their own rules,
    recorded elsewhere)."""
    from tito.core.parsers.reasoning_formats import REASONING_PARSERS

    return sorted(REASONING_PARSERS)


def main() -> None:
    flag_servers.record_pairs(OUT, {p: (p, None) for p in parsers()}, CASES, "8451,8452,8453",
                              "reasoning-flags-")


if __name__ == "__main__":
    main()
