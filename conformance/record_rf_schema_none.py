"""Record ``render_rf_schema_none.json``: a ``response_format`` json_schema without its schema
beside a request's own ``structured_outputs`` (fuzz_render seed 846 case 220).

Why: vLLM 0.33 applies the format as ``replace(structured_outputs, json=None)``, so the
request's own constraint stays and only no constraint left is the 400; tito refused every such
body. Needs running render servers (record.py's flags)::

    /work/vllm-venv/bin/python conformance/record_rf_schema_none.py \\
        --url qwen3=http://127.0.0.1:8438 --url gpt-oss=http://127.0.0.1:8437
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import url_record  # noqa: E402

RF = {"type": "json_schema", "json_schema": {"name": "w"}}
#: the request's own structured_outputs (None: absent)
OWN = {"none": None, "json_object_false": {"json_object": False},
       "json_object_true": {"json_object": True}, "regex": {"regex": "a+"},
       "choice": {"choice": ["a", "b"]}, "json": {"json": {"type": "object"}}}


def cases(server: str) -> dict[str, dict]:
    out = {}
    for key, own in OWN.items():
        extra = {"response_format": RF, **({"structured_outputs": own} if own else {})}
        out[f"{server}_chat_{key}"] = ("/v1/chat/completions/render", {
            "model": server, "messages": [{"role": "user", "content": "Hi"}], **extra})
        out[f"{server}_cmpl_{key}"] = ("/v1/completions/render", {
            "model": server, "prompt": "Hi", **extra})
    return out


def main() -> None:
    url_record.record_urls("render_rf_schema_none", cases)


if __name__ == "__main__":
    main()
