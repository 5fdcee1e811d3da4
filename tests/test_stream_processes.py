"""Statelessness across processes: every chunk of a stream served by a fresh Lambda process.

Each call runs ``tito invoke <Function> -`` in a new Python process (a cold Lambda environment:
handler import, model load, one API Gateway v2 event, exit). The only thing that links the calls
is the ``stream_state`` JSON the test carries, so the streamed output equalling the batch output
proves the state is complete and survives serialization.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import generate_response, stream_chunk

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "events"))

from make_events import http_api_event  # noqa: E402

pytestmark = pytest.mark.slow


def invoke(function: str, path: str, body: dict) -> dict:
    event = http_api_event(f"proc-{function}", "POST", path, body)
    proc = subprocess.run(
        [sys.executable, "-m", "tito.cli", "invoke", function, "-", "--body"],
        input=json.dumps(event), capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("function", "path", "model", "text"),
    [
        ("CompletionsDerenderFunction", "/v1/completions/derender", "gpt2", "Fresh 😀 process, 中文 ok"),
        ("ChatDerenderFunction", "/v1/chat/completions/derender", "mistral-v3", "Per chunk 👩‍👩‍👧 state"),
    ],
)
def test_each_chunk_in_a_fresh_process(vocabs, function, path, model, text):
    vocab = vocabs[model]
    prompt = vocab.encode("Q:")
    ids = vocab.encode(" " + text)
    third = max(1, len(ids) // 3)
    chunks = [ids[:third], ids[third:2 * third], ids[2 * third:]]
    state, pieces = None, []
    for k, part in enumerate(chunks):
        body = {"stream": True, "model": model, "stream_state": state,
                "generate_chunk": stream_chunk(part, finish_reason="length" if k == 2 else None)}
        if state is None:
            body["prompt_token_ids"] = prompt
        out = invoke(function, path, body)
        choice = out["chunk"]["choices"][0]
        pieces.append(choice["text"] if "text" in choice else choice["delta"]["content"] or "")
        state = out["stream_state"]
    batch_body = {"model": model}
    if "chat" in path:
        batch_body.update(prompt_token_ids=prompt, generate_response=generate_response(ids, finish_reason="length"))
        expected = invoke(function, path, batch_body)["choices"][0]["message"]["content"]
    else:
        batch_body.update(prompt_token_ids=[prompt], generate_responses=[generate_response(ids, finish_reason="length")])
        expected = invoke(function, path, batch_body)["choices"][0]["text"]
    assert "".join(pieces) == expected
