#!/usr/bin/env python3
"""Generate the API Gateway HTTP API (payload 2.0) test events in ``events/``.

Why generated and not hand-written: the derender events carry real token ids, and a hand-typed id
list silently drifts from the tokenizer. This script encodes every text with the shipped Qwen3
tokenizer (``layers/tokenizer/models/qwen3``) and renders the chat prompt with the model's own
chat template, so the ids are exactly what vLLM's render (and an engine) would produce.

Usage (from the repository root)::

    python events/make_events.py           # (re)write events/*.json
    python events/make_events.py --check   # exit 1 if a file is missing or differs (CI)

The output is deterministic: no clock, no randomness. Request ids, trace ids and timestamps are
derived from the event name and one fixed instant, so regenerating gives byte-identical files
(``tests/test_handlers.py`` checks this).

Every event is valid for ``sam local invoke -e events/<name>.json`` and ``tito invoke``: ``version``
``"2.0"``, ``routeKey``, ``rawPath``, lower-case ``headers``, ``requestContext`` with ``stage``
``"$default"`` (no stage prefix in ``rawPath``), the body as a compact JSON string,
``isBase64Encoded`` false. Bodies follow vLLM 0.33's scale-out wire (``docs/conformance.md``
says how tito is compared with it).

Events:

* ``chat_derender.json``: batch chat derender of a real Qwen3 reply (reasoning then answer, ending
  in ``<|im_end|>`` 151645, ``finish_reason`` "stop"), with ``prompt_token_ids`` of the rendered
  prompt and the ``chat_request`` (required: Qwen3 has reasoning and tool parsers configured).
* ``chat_derender_stream_first.json``: the first streaming call for the same reply
  (``stream: true``, ``stream_state: null``, the first engine chunk only).
* ``completions_derender.json``: batch completion derender with integer-id logprobs (top-1), ending
  in Qwen's extra EOS ``<|endoftext|>`` 151643.
* ``chat_render.json`` / ``completions_render.json``: OpenAI requests for the render endpoints, with
  the same messages / prompt as the derender events (so render must give their prompt ids).
* ``responses_render.json``: an OpenAI Responses request (instructions + the chat question);
  ``responses_derender.json`` / ``responses_derender_stream_first.json``: the chat reply derendered
  as a ``Response`` (batch) and as the first streaming call (``responses_request`` given).
* ``messages_render.json``: the chat question as an Anthropic Messages request (the same prompt).
* ``health.json`` / ``models.json`` / ``version.json``: the GET routes.
* ``chat_render_gpt_oss.json`` / ``chat_derender_gpt_oss.json``: gpt-oss (harmony): a chat
  request with instructions and a tool, and the batch derender of a reply that reasons on the
  ``analysis`` channel and calls the tool (``<|call|>``).
* ``tokenize.json``: the chat messages of ``chat_render.json`` through ``/tokenize`` (the ids are
  the render's prompt ids), with ``return_token_strs``; ``detokenize.json``: the reply's ids
  (ending in ``<|im_end|>``) through ``/detokenize``.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EVENTS_DIR = Path(__file__).resolve().parent
ROOT = EVENTS_DIR.parent
MODEL_DIR = ROOT / "layers" / "tokenizer" / "models" / "qwen3"
MODEL = "qwen3"

#: One fixed instant for every timestamp in the events (2026-11-30T12:00:00Z).
INSTANT = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=dt.UTC)
ACCOUNT_ID = "123456789012"
API_ID = "t1t0api001"
DOMAIN = f"{API_ID}.execute-api.us-east-1.amazonaws.com"
SOURCE_IP = "203.0.113.10"  # TEST-NET-3: a documentation address
USER_AGENT = "tito-events/1.0"

IM_END = 151645  # <|im_end|>: Qwen3 chat EOS (tokenizer_config eos_token)
END_OF_TEXT = 151643  # <|endoftext|>: Qwen3 extra EOS (tito.json extra_eos_token_ids)

CHAT_MESSAGES = [
    {"role": "user", "content": "What is the capital of France? Answer in one sentence."},
]
CHAT_REPLY = (
    "<think>\nThe user wants the capital of France in one sentence. It is Paris.\n</think>\n\n"
    "The capital of France is Paris."
)
COMPLETION_PROMPT = "The capital of France is"
COMPLETION_REPLY = " Paris, which is also the largest city in the country."
STREAM_FIRST_CHUNK_TOKENS = 3


# -- tokenizer and chat template ----------------------------------------------------------------


class Qwen3:
    """The shipped Qwen3 tokenizer plus its chat template, rendered the way transformers does."""

    def __init__(self, folder: Path = MODEL_DIR) -> None:
        from jinja2.sandbox import ImmutableSandboxedEnvironment
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
        )
        # transformers' tojson does not HTML-escape (Jinja2's does, which corrupts tool JSON).
        env.filters["tojson"] = lambda value, indent=None: json.dumps(
            value, ensure_ascii=False, indent=indent
        )
        env.globals["raise_exception"] = _raise_template_error
        self.template = env.from_string(config["chat_template"])
        assert self.tokenizer.token_to_id("<|im_end|>") == IM_END
        assert self.tokenizer.token_to_id("<|endoftext|>") == END_OF_TEXT

    def encode(self, text: str) -> list[int]:
        """Ids of ``text`` without special-token wrapping (Qwen adds none anyway)."""
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=False))

    def chat_prompt_ids(self, messages: list[dict[str, Any]], **kwargs: Any) -> list[int]:
        """The generation prompt for ``messages`` as vLLM's chat render tokenizes it."""
        text = self.template.render(messages=messages, add_generation_prompt=True, **kwargs)
        return self.encode(text)


def _raise_template_error(message: str) -> None:
    from jinja2.exceptions import TemplateError

    raise TemplateError(message)


# -- the API Gateway envelope -------------------------------------------------------------------


def _digest(name: str, size: int) -> bytes:
    return hashlib.sha256(f"tito-events/{name}".encode()).digest()[:size]


def http_api_event(name: str, method: str, path: str, body: Any | None = None) -> dict[str, Any]:
    """An HTTP API payload-2.0 event on the ``$default`` stage for ``method path``.

    ``requestId`` (the correlation id Powertools logs) and the X-Ray trace id are derived from the
    event name, so each event is distinct and stable across runs.
    """
    epoch_ms = int(INSTANT.timestamp() * 1000)
    # API Gateway's request id format: 11 bytes in base64, e.g. "JKJaXmPLvHcESHA="
    request_id = base64.b64encode(_digest(name, 11)).decode()
    trace = _digest(name + "/trace", 12).hex()
    headers = {
        "accept": "application/json",
        "host": DOMAIN,
        "user-agent": USER_AGENT,
        "x-amzn-trace-id": f"Root=1-{int(INSTANT.timestamp()):08x}-{trace}",
        "x-forwarded-for": SOURCE_IP,
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
    }
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "domainName": DOMAIN,
            "domainPrefix": API_ID,
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": SOURCE_IP,
                "userAgent": USER_AGENT,
            },
            "requestId": request_id,
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": INSTANT.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": epoch_ms,
        },
        "isBase64Encoded": False,
    }
    if body is not None:
        text = json.dumps(body, separators=(",", ":"))
        headers["content-type"] = "application/json"
        headers["content-length"] = str(len(text.encode()))
        event["headers"] = dict(sorted(headers.items()))
        event["body"] = text
    return event


# -- bodies -------------------------------------------------------------------------------------


def _request_id(kind: str, name: str) -> str:
    """vLLM's generate ids: ``generate-tokens-`` + the render id (``chatcmpl-``/``cmpl-`` + hex)."""
    return f"generate-tokens-{kind}-{_digest(name + '/id', 16).hex()}"


def _usage(prompt: int, completion: int) -> dict[str, int]:
    total = prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


def chat_derender_bodies(q: Qwen3) -> tuple[dict[str, Any], dict[str, Any]]:
    """(batch body, first streaming call body) for the Qwen3 chat reply."""
    prompt_ids = q.chat_prompt_ids(CHAT_MESSAGES)
    reply_ids = q.encode(CHAT_REPLY) + [IM_END]
    assert q.decode(reply_ids) == CHAT_REPLY + "<|im_end|>"
    chat_request = {"model": MODEL, "messages": CHAT_MESSAGES, "max_completion_tokens": 256}
    request_id = _request_id("chatcmpl", "chat")
    batch = {
        "model": MODEL,
        "prompt_tokens": len(prompt_ids),
        "prompt_token_ids": prompt_ids,
        "chat_request": chat_request,
        "generate_response": {
            "request_id": request_id,
            "output_mode": "tokens",
            "model": MODEL,
            "created": int(INSTANT.timestamp()),
            "usage": _usage(len(prompt_ids), len(reply_ids)),
            "choices": [
                {"index": 0, "token_ids": reply_ids, "finish_reason": "stop", "logprobs": None}
            ],
        },
    }
    stream_first = {
        "stream": True,
        "model": MODEL,
        "stream_state": None,
        "prompt_tokens": len(prompt_ids),
        "prompt_token_ids": prompt_ids,
        "chat_request": {**chat_request, "stream": True},
        "generate_chunk": {
            "request_id": request_id,
            "output_mode": "tokens",
            "usage": None,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": None,
                    "token_ids": reply_ids[:STREAM_FIRST_CHUNK_TOKENS],
                    "logprobs": None,
                }
            ],
        },
    }
    return batch, stream_first


def responses_derender_bodies(q: Qwen3) -> tuple[dict[str, Any], dict[str, Any]]:
    """(batch body, first streaming call body) for the same Qwen3 reply as a Responses output;
    the request is ``responses_render.json``'s, whose prompt is the chat one plus instructions."""
    chat_batch, chat_first = chat_derender_bodies(q)
    request = responses_render_body()
    messages = [{"role": "system", "content": request["instructions"]}, *CHAT_MESSAGES]
    prompt_ids = q.chat_prompt_ids(messages)
    request_id = f"resp_{_digest('responses/id', 16).hex()}"
    batch = {
        "model": MODEL, "prompt_token_ids": prompt_ids, "responses_request": request,
        "generate_response": {**chat_batch["generate_response"], "request_id": request_id,
                              "usage": _usage(len(prompt_ids), len(q.encode(CHAT_REPLY)) + 1)},
    }
    first = {
        "stream": True, "model": MODEL, "stream_state": None, "prompt_token_ids": prompt_ids,
        "responses_request": {**request, "stream": True},
        "generate_chunk": {**chat_first["generate_chunk"], "request_id": request_id},
    }
    return batch, first


def completions_derender_body(q: Qwen3) -> dict[str, Any]:
    """Batch completion derender with top-1 integer-id logprobs (deterministic values)."""
    prompt_ids = q.encode(COMPLETION_PROMPT)
    reply_ids = q.encode(COMPLETION_REPLY) + [END_OF_TEXT]
    content = []
    for i, token_id in enumerate(reply_ids):
        logprob = round(-0.05 - 0.01 * i, 4)
        entry = {"token_id": token_id, "logprob": logprob, "rank": 1}
        content.append({**entry, "top_logprobs": [dict(entry)]})
    return {
        "model": MODEL,
        "prompt_tokens": [len(prompt_ids)],
        "prompt_token_ids": [prompt_ids],
        "completion_request": {
            "model": MODEL,
            "prompt": COMPLETION_PROMPT,
            "max_tokens": 32,
            "logprobs": 1,
        },
        "generate_responses": [
            {
                "request_id": _request_id("cmpl", "completions"),
                "output_mode": "tokens",
                "model": MODEL,
                "created": int(INSTANT.timestamp()),
                "usage": _usage(len(prompt_ids), len(reply_ids)),
                "choices": [
                    {
                        "index": 0,
                        "token_ids": reply_ids,
                        "finish_reason": "stop",
                        "logprobs": {"content": content},
                    }
                ],
            }
        ],
    }


def chat_render_body() -> dict[str, Any]:
    """A streaming chat request as a gateway would forward it to render.

    Same messages as the derender events, so render must return exactly their
    ``prompt_token_ids`` (tests check it).
    """
    return {
        "model": MODEL,
        "messages": CHAT_MESSAGES,
        "max_completion_tokens": 256,
        "temperature": 0.6,
        "top_p": 0.95,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def completions_render_body() -> dict[str, Any]:
    return {"model": MODEL, "prompt": COMPLETION_PROMPT, "max_tokens": 32, "temperature": 0.0}


def responses_render_body() -> dict[str, Any]:
    return {"model": MODEL, "instructions": "Answer briefly.", "input": CHAT_MESSAGES[-1]["content"],
            "max_output_tokens": 64}


def messages_render_body() -> dict[str, Any]:
    """``chat_render.json``'s conversation as an Anthropic Messages request (same prompt)."""
    chat = chat_render_body()
    return {"model": MODEL, "max_tokens": chat["max_completion_tokens"], "messages": CHAT_MESSAGES,
            "temperature": chat["temperature"], "top_p": chat["top_p"]}


# -- assembly -----------------------------------------------------------------------------------


#: gpt-oss (harmony): a weather question with a tool, and the model's reply calling it
GPT_OSS_DIR = ROOT / "layers" / "tokenizer" / "models" / "gpt-oss"
GPT_OSS_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
GPT_OSS_MESSAGES = [{"role": "system", "content": "Answer briefly."},
                    {"role": "user", "content": "What is the weather in Paris?"}]
GPT_OSS_REPLY = (
    "<|channel|>analysis<|message|>The user wants the weather in Paris: call the tool.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
    '<|message|>{"city": "Paris"}<|call|>'
)


def gpt_oss_render_body() -> dict[str, Any]:
    return {"model": "gpt-oss", "messages": GPT_OSS_MESSAGES, "tools": GPT_OSS_TOOLS,
            "reasoning_effort": "low", "max_completion_tokens": 512}


def gpt_oss_derender_body() -> dict[str, Any]:
    """Batch derender of a gpt-oss reply that ends in ``<|call|>`` (a tool call)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(GPT_OSS_DIR / "tokenizer.json"))
    ids = tok.encode(GPT_OSS_REPLY, add_special_tokens=False).ids  # specials as their ids
    return {
        "model": "gpt-oss",
        "chat_request": {"model": "gpt-oss", "messages": GPT_OSS_MESSAGES,
                         "tools": GPT_OSS_TOOLS},
        "generate_response": {
            "request_id": _request_id("chatcmpl", "chat_derender_gpt_oss"),
            "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}],
        },
    }


def build_events() -> dict[str, dict[str, Any]]:
    """File name -> event, in a stable order."""
    q = Qwen3()
    chat_batch, chat_stream_first = chat_derender_bodies(q)
    responses_batch, responses_stream_first = responses_derender_bodies(q)
    specs: list[tuple[str, str, str, Callable[[], Any | None]]] = [
        ("chat_derender", "POST", "/v1/chat/completions/derender", lambda: chat_batch),
        ("chat_derender_stream_first", "POST", "/v1/chat/completions/derender",
         lambda: chat_stream_first),
        ("completions_derender", "POST", "/v1/completions/derender",
         lambda: completions_derender_body(q)),
        ("chat_render", "POST", "/v1/chat/completions/render", chat_render_body),
        ("completions_render", "POST", "/v1/completions/render", completions_render_body),
        ("responses_render", "POST", "/v1/responses/render", responses_render_body),
        ("messages_render", "POST", "/v1/messages/render", messages_render_body),
        ("responses_derender", "POST", "/v1/responses/derender", lambda: responses_batch),
        ("responses_derender_stream_first", "POST", "/v1/responses/derender",
         lambda: responses_stream_first),
        ("health", "GET", "/health", lambda: None),
        ("models", "GET", "/v1/models", lambda: None),
        ("tokenize", "POST", "/tokenize",
         lambda: {"model": MODEL, "messages": CHAT_MESSAGES, "return_token_strs": True}),
        ("detokenize", "POST", "/detokenize",
         lambda: {"model": MODEL, "tokens": q.encode(CHAT_REPLY) + [IM_END]}),
        ("version", "GET", "/version", lambda: None),
        ("chat_render_gpt_oss", "POST", "/v1/chat/completions/render", gpt_oss_render_body),
        ("chat_derender_gpt_oss", "POST", "/v1/chat/completions/derender",
         gpt_oss_derender_body),
    ]
    return {f"{name}.json": http_api_event(name, method, path, make()) for name, method, path, make
            in specs}


def render_file(event: dict[str, Any]) -> str:
    """The exact file text: 2-space JSON, trailing newline."""
    return json.dumps(event, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if any event file is missing or out of date")
    parser.add_argument("--out", type=Path, default=EVENTS_DIR, help="output folder")
    args = parser.parse_args(argv)
    stale = []
    for name, event in build_events().items():
        path = args.out / name
        text = render_file(event)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)} (run python events/make_events.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
