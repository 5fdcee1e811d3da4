"""Record ``render_responses_forced_parsers.json``: the Responses renders of
``record_responses_forced_none.py`` (tools that show the model no function, or some, under every
tool choice) on servers of other parser flags: no parser, a reasoning parser alone, and tool
parsers without a structural tag (granite, a JSON list; pythonic; seed_oss, XML).

Why: that golden's server (hermes) constrains forced calls with a structural tag, where vLLM 0.33
refuses a forced choice with no function to call. Without a tag its Responses render takes the
older paths (a JSON schema of the calls, or nothing without a tool parser), whose checks differ
(helper hren's reading of vLLM's source, session 52). A few servers at a time::

    /work/vllm-venv/bin/python conformance/record_responses_forced_parsers.py --ports 8451,8452
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "src"))

from conformance import flag_servers, record  # noqa: E402
from conformance.record_responses_forced_none import cases  # noqa: E402

OUT = record.GOLDENS / "render_responses_forced_parsers.json"
#: server -> (reasoning parser, tool parser)
SERVERS: dict[str, tuple[str | None, str | None]] = {
    "plain": (None, None), "reasoning": ("qwen3", None), "granite": (None, "granite"),
    "pythonic": (None, "pythonic"), "seed_oss": (None, "seed_oss")}


def main() -> None:
    body_cases = {name.removeprefix("qwen3_"): (path, {k: v for k, v in body.items()
                                                        if k != "model"})
                  for name, (path, body) in cases("qwen3").items()}
    flag_servers.record_pairs(OUT, SERVERS, body_cases, "8451,8452", "forced-parsers-")


if __name__ == "__main__":
    main()
