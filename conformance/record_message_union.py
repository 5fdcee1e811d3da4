"""Record which message type vLLM 0.33.0's chat request gives each of a corpus of messages.

Why: vLLM's ``ChatCompletionMessageParam`` is a pydantic smart union of the OpenAI role types
(content parts an iterator, checked strictly only when render reads them) and its own custom
type (parts a list, validated up front and permissively). Which one a message gets decides
whether a malformed part is a 400 or is skipped, and whether gpt-oss's harmony path reads the
parts at all. ``tito.core.message_union.custom_typed`` states the rule;
``tests/test_message_union.py`` checks it against this golden.

    /work/vllm-venv/bin/python conformance/record_message_union.py   # writes the golden

A message is recorded when vLLM's request model takes it; ``custom`` is whether its content
came out a list (the custom type) rather than an iterator.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "goldens" / "message_union.json"

PARTS: list[Any] = [
    {"type": "text", "text": "a"}, {"type": "text"}, {"type": "thinking", "thinking": "h"},
    {"type": "thinking"}, {"type": "thinking", "thinking": "h", "closed": True},
    {"type": "refusal", "refusal": "r"}, {"type": "refusal"}, {"type": "text", "text": 5},
    {"type": "bogus"}, "str", {"type": "input_text", "text": "i"}, {"text": "x"},
    {"type": "image_url", "image_url": {"url": "u"}}, {"image_url": "u"},
    {"type": "tool_reference", "name": "t"},
    {"type": "image_url", "image_url": {"url": "u", "detail": "low"}},
    {"type": "text", "text": "a", "extra": 1}, {"audio_url": "u", "uuid": "x"}, 5,
]
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
EXTRA: dict[str, list[Any]] = {
    "name": ["n", 5], "tool_call_id": ["c", None, 4], "tool_calls": [[CALL], [], None,
                                                                    [{"type": "function"}]],
    "reasoning": ["r", None, 4], "refusal": ["no"], "task": ["t", 4], "tools": [None, "t"],
    "foo": [1],
    "audio": [{"id": "a"}], "function_call": [{"name": "f", "arguments": "{}"}],
}
ROLES = ["user", "system", "assistant", "tool", "developer"]
#: media and file parts of every payload shape (the second corpus: fuzz_render s342-251, an
#: assistant's input_audio part, whose payload has no url)
MEDIA_PARTS: list[Any] = [
    {"type": "input_audio", "input_audio": {"data": "d", "format": "wav"}},
    {"type": "input_audio", "input_audio": {"data": "d", "format": "mp3", "x": 1}},
    {"type": "input_audio", "input_audio": {"data": "d", "format": "ogg"}},
    {"type": "input_audio", "input_audio": {"data": "d"}},
    {"type": "input_audio", "input_audio": {"data": 5, "format": "wav"}},
    {"type": "input_audio", "input_audio": "d"},
    {"type": "file", "file": {"file_id": "f"}}, {"type": "file", "file": {}},
    {"type": "file", "file": {"file_data": "d", "filename": "n", "file_id": "f"}},
    {"type": "file", "file": {"file_data": 5}}, {"type": "file", "file": {"x": 1}},
    {"type": "file", "file": "f"},
    {"type": "image_url", "image_url": {"url": "u", "detail": "bogus"}},
    {"type": "image_url", "image_url": {"url": "u", "x": 1}},
    {"type": "image_url", "image_url": {"url": 5}},
    {"type": "image_url", "image_url": {"url": "u"}, "uuid": "x"},
    {"type": "video_url", "video_url": {"url": "u"}},
    {"type": "video_url", "video_url": {"url": "u"}, "uuid": "x"},
    {"type": "video_url", "video_url": "u"}, {"video_url": "u", "uuid": "x"},
    {"type": "audio_url", "audio_url": {"url": "u"}}, {"type": "audio_url", "audio_url": "u"},
    {"type": "image_embeds", "image_embeds": "e"},
    {"type": "image_embeds", "image_embeds": "e", "uuid": "x"},
    {"type": "audio_embeds", "audio_embeds": {"a": "b"}},
    {"type": "video_embeds", "video_embeds": "e", "audio_embeds": "a"},
    {"type": "prompt_embeds", "data": "d"}, {"type": "image_pil"},
    {"type": "text", "text": "a"}, {"type": "text", "text": 5}, {"type": "refusal", "refusal": "r"},
]


def corpus(n: int, seed: int, parts: list[Any] = PARTS) -> list[dict[str, Any]]:
    r = random.Random(seed)
    out = []
    for _ in range(n):
        message: dict[str, Any] = {"role": r.choice(ROLES),
                                   "content": [r.choice(parts) for _ in range(r.randint(0, 3))]}
        for key in r.sample(list(EXTRA), r.randint(0, 3)):
            message[key] = r.choice(EXTRA[key])
        out.append(message)
    return out


def main() -> None:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    cases = []
    for message in [*corpus(2500, seed=33), *corpus(1500, seed=34, parts=MEDIA_PARTS)]:
        try:
            request = ChatCompletionRequest(model="m", messages=[message])
        except Exception:  # noqa: BLE001 - refused by the request model: not a union case
            continue
        content = request.messages[0].get("content")
        cases.append({"message": message, "custom": isinstance(content, list)})
    GOLDEN.write_text(json.dumps({"vllm": "0.33.0", "cases": cases}, indent=0) + "\n")
    print(f"{GOLDEN}: {len(cases)} cases")


if __name__ == "__main__":
    main()
