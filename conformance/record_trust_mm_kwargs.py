"""Record ``render_trust_mm_kwargs.json``: a vLLM 0.33 qwen3 server (its parsers) started with
``--trust-request-mm-kwargs``, rendering chats, completions, ``/tokenize`` and Responses requests
that carry ``mm_processor_kwargs`` / ``media_io_kwargs`` (empty, set, ones that name a template
variable, and bad types).

Why: without the flag vLLM (and tito) refuse per-request multimodal kwargs with a message that
names the flag; tito had no such flag (session 54). Starts its own server on the port given::

    /work/vllm-venv/bin/python conformance/record_trust_mm_kwargs.py --ports 8451
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import USER  # noqa: E402

OUT = record.GOLDENS / "render_trust_mm_kwargs.json"
#: the values sent as each field (``thinking``: a name the qwen3 template reads)
VALUES: dict[str, Any] = {"empty": {}, "set": {"num_crops": 4},
                          "thinking": {"enable_thinking": False}, "string": "x", "list": [1],
                          "null": None}
MEDIA: dict[str, Any] = {"empty": {}, "set": {"image": {"mode": "RGB"}}, "bad": {"image": 1},
                         "string": "x"}


def cases() -> flag_servers.Cases:
    out: flag_servers.Cases = {}
    for key, value in VALUES.items():
        chat = {"messages": USER, "mm_processor_kwargs": value}
        out[f"chat_mm_{key}"] = ("/v1/chat/completions/render", chat)
        out[f"tokenize_mm_{key}"] = ("/tokenize", chat)
        out[f"completions_mm_{key}"] = ("/v1/completions/render",
                                        {"prompt": "Hello", "mm_processor_kwargs": value})
        out[f"responses_mm_{key}"] = ("/v1/responses/render",
                                      {"input": "Hello", "mm_processor_kwargs": value})
    for key, value in MEDIA.items():
        out[f"chat_media_{key}"] = ("/v1/chat/completions/render",
                                    {"messages": USER, "media_io_kwargs": value})
        out[f"completions_media_{key}"] = ("/v1/completions/render",
                                           {"prompt": "Hello", "media_io_kwargs": value})
    out["chat_both"] = ("/v1/chat/completions/render", {
        "messages": USER, "mm_processor_kwargs": {"num_crops": 4},
        "media_io_kwargs": {"image": {"mode": "RGB"}}})
    return out


def main() -> None:
    ns = flag_servers.args("8451")
    tmp = Path(tempfile.mkdtemp(prefix="trust-mm-"))
    folder = record.model_folder("qwen3", tmp / "qwen3")
    server_flags = [*flag_servers.flags("qwen3", "hermes"), "--trust-request-mm-kwargs"]
    version, found = flag_servers.record_servers({"qwen3_trust_mm": (folder, server_flags)},
                                                 cases(), ns, tmp)
    flag_servers.write(OUT, version, {"qwen3_trust_mm": {
        "reasoning_parser": "qwen3", "tool_parser": "hermes", "model": "qwen3",
        "tito_json": {"trust_request_mm_kwargs": True}}}, found)


if __name__ == "__main__":
    main()
