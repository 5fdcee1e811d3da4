"""Test helpers: engine-shaped payloads (exactly vLLM's wire) and a derender client."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

#: Texts that stress detokenization: ZWJ emoji, flags, CJK, accents, combining marks, code, spaces.
SAMPLE_TEXTS = [
    "Hello, world!",
    "héllo wörld café naïve — ½ ≠ ∞",
    "Family: 👩‍👩‍👧‍👦 flags: 🇫🇷🇯🇵 skin: 👋🏽 done",
    "中文测试，日本語のテキスト、한국어 텍스트",
    "e\u0301 a\u0308 combining marks",
    "def f(x):\n    return {'a': [1, 2, 3]}  # code\n\n\tindent",
    "many     spaces\n\n\n   and\ttabs   ",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math 𝟙𝟚𝟛 and rare 㐀㐁 chars",
]


def generate_response(
    ids: list[int],
    *,
    request_id: str = "generate-tokens-chatcmpl-test",
    finish_reason: str | None = "stop",
    logprobs: dict[str, Any] | None = None,
    n: int = 1,
) -> dict[str, Any]:
    """A non-streaming ``GenerateTokensResponse`` as vLLM's engine emits it."""
    return {
        "request_id": request_id,
        "output_mode": "tokens",
        "choices": [
            {
                "index": i,
                "token_ids": ids,
                "finish_reason": finish_reason,
                "logprobs": logprobs,
                "routed_experts": None,
            }
            for i in range(n)
        ],
    }


def stream_chunk(
    ids: list[int] | None,
    *,
    index: int = 0,
    request_id: str = "generate-tokens-chatcmpl-test",
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    logprobs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One generate SSE ``data:`` object (``ids=None``: a usage-only chunk with no choices)."""
    choices = []
    if ids is not None:
        choices.append(
            {
                "index": index,
                "finish_reason": finish_reason,
                "token_ids": ids,
                "routed_experts": None,
                "sampling_mask": None,
                "weight_versions": None,
                "logprobs": logprobs,
            }
        )
    return {"request_id": request_id, "output_mode": "tokens", "usage": usage, "choices": choices}


def post_raw(client: TestClient, path: str, body: Any, **headers: str) -> Any:
    """POST ``body`` as JSON (a str: sent as it is, for malformed bodies); the response."""
    raw = body if isinstance(body, str) else json.dumps(body)
    return client.post(path, content=raw, headers={"content-type": "application/json", **headers})


def post(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST and return the JSON body, asserting 200."""
    resp = post_raw(client, path, body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def split(ids: list[int], sizes: list[int]) -> list[list[int]]:
    """Split ids into consecutive chunks of the given sizes (the last takes the rest)."""
    out, i = [], 0
    for s in sizes:
        out.append(ids[i : i + s])
        i += s
    out.append(ids[i:])
    return out


def validate_completion_chunk(chunk: dict[str, Any]) -> None:
    """Validate a streamed completions chunk against the openai SDK's ``Completion``.

    OpenAI's own stream sends ``finish_reason: null`` before the last chunk, but the SDK's
    ``Completion.finish_reason`` type has no None (the SDK builds stream chunks without
    validation). Everything else is validated strictly; a null finish reason is checked apart.
    """
    import openai.types as oa

    choices = []
    for ch in chunk["choices"]:
        assert ch["finish_reason"] in (None, "stop", "length", "content_filter", "abort",
                                       "repetition"), ch["finish_reason"]
        choices.append({**ch, "finish_reason": ch["finish_reason"] or "stop"})
    oa.Completion.model_validate({**chunk, "choices": choices})


def run_router(vocab: Any, cfg: Any, ids: list[int], sizes: list[int], prompt_ids: list[int],
               router: str) -> tuple[dict[str, Any], list[int]]:
    """The ids through the pipeline in chunks of ``sizes`` (cycled), the choice state through
    JSON between calls, for a channel router's format (``router``: the ``ChoiceState`` field,
    ``"muse"`` or ``"inkling"``): the joined result (reasoning, content, calls, the router's
    reasoning count) and the router state's JSON size after every call (its bound)."""
    from tito.core.pipeline import ChoiceState, start_choice, step_choice

    state = start_choice(vocab, cfg, prompt_ids)
    reasoning, content, names, args, sizes_seen = [], [], {}, {}, []
    i = k = 0
    while True:
        n = sizes[k % len(sizes)]
        chunk, i, k = ids[i : i + n], i + n, k + 1
        final = i >= len(ids)
        state = ChoiceState.model_validate_json(state.model_dump_json())
        state, out = step_choice(vocab, cfg, state, chunk,
                                 finish_reason="length" if final else None, response_id="r")
        sizes_seen.append(len(getattr(state, router).model_dump_json().encode()))
        reasoning.append(out.reasoning)
        content.append(out.text)
        for d in out.tool_calls:
            if d.name is not None:
                names[d.index] = d.name
            args[d.index] = args.get(d.index, "") + d.arguments
        if final:
            break
    result = {"reasoning": "".join(reasoning), "content": "".join(content),
              "calls": [[names[j], args[j]] for j in sorted(names)],
              "reasoning_tokens": getattr(state, router).reasoning_tokens}
    return result, sizes_seen


def router_config(vocab: Any, tools: list[dict[str, Any]], tool: str | None,
                  reasoning: str | None) -> Any:
    """A chat choice's settings for a channel router's parser pair (Muse's, Inkling's) as the
    service derives them: the routers' markers kept through ``skip_special_tokens``, calls
    taken (``auto``, typed by ``tools``' schemas) when a tool parser is named."""
    from tito.core.parsers import marker_special_ids
    from tito.core.parsers.tools._schema import tool_params
    from tito.core.pipeline import ChoiceConfig

    return ChoiceConfig(
        skip_special_tokens=True,
        keep_special_ids=marker_special_ids(vocab, tool, reasoning),
        reasoning_parser=reasoning,
        tool_parser=tool,
        tool_choice="auto" if tool else "none",
        tool_params=tool_params(tools) if tool else None,
    )


@contextlib.contextmanager
def marker_model_app(root: Path, tool_parser: str | None, reasoning_parser: str | None
                     ) -> Iterator[tuple[TestClient, Any]]:
    """tito's app serving one model, ``qwen3``: Qwen3's tokenizer with every format's markers
    added (:mod:`conformance.markers`, as the structural goldens) and these parsers; (the
    client, its vocabulary), the registry put back after. Why: a format's tests through the
    app need a model that names it, and no shipped model names most formats."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from conformance import markers

    from tito.adapters.app import create_app
    from tito.models import registry

    base = registry.load_model(markers.marker_folder(root / "qwen3"))
    model = dataclasses.replace(base, config=base.config.model_copy(
        update={"tool_parser": tool_parser, "reasoning_parser": reasoning_parser}))
    saved = registry._registry
    registry.reset_registry(registry.ModelRegistry([model], default=""))
    try:
        yield TestClient(create_app(), raise_server_exceptions=False), model.vocab
    finally:
        registry.reset_registry(saved)


def drive_tools(parser: Any, chunks: list[str],
                watch: Any = None) -> tuple[str, list[tuple[str, str]]]:
    """A tool parser over ``chunks`` (the last call ``final``), its state round-tripping
    through JSON between calls as a client carries it: (content, [(name, arguments)]).
    ``watch`` sees each state after its step (a test of what a stream holds)."""
    from tito.core.parsers import tools as T
    from tito.core.parsers.tools import ToolState

    state, content, calls = T.initial(parser), [], {}
    for k, text in enumerate(chunks):
        state = ToolState.model_validate(json.loads(state.model_dump_json()))
        state, c, deltas = T.step(parser, state, text, final=k == len(chunks) - 1)
        content.append(c)
        for d in deltas:
            name, args = calls.get(d.index, (d.name, ""))
            calls[d.index] = (name, args + d.arguments)
        if watch is not None:
            watch(state)
    return "".join(content), [calls[i] for i in sorted(calls)]
