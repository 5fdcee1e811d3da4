"""Record ``render_content_format.json``: vLLM 0.33 servers started with
``--chat-template-content-format`` ``openai`` and ``string`` (qwen3 with its parsers), each
rendering chats, ``/tokenize`` and Responses requests whose messages hold content parts, with
qwen3's template and with a request's own (trusted) one that reads both formats.

Why: the flag overrides the format vLLM detects from the chat template (qwen3's: ``string``):
``openai`` hands the template the parts as a list of typed dicts, ``string`` joins the text
parts. tito always used the detected format (session 53). Starts its own servers on the ports
given::

    /work/vllm-venv/bin/python conformance/record_content_format.py --ports 8451,8452
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402

OUT = record.GOLDENS / "render_content_format.json"
FORMATS = ("openai", "string")
PARTS = [{"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]
MESSAGES: dict[str, list[dict[str, Any]]] = {
    "user_string": [{"role": "user", "content": "Hi"}],
    "user_parts": [{"role": "user", "content": PARTS}],
    "user_one_part": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
    "system_parts": [{"role": "system", "content": PARTS}, {"role": "user", "content": "Hi"}],
    "assistant_parts": [{"role": "user", "content": "Hi"},
                        {"role": "assistant", "content": PARTS},
                        {"role": "user", "content": "More"}],
    "tool_parts": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": PARTS}],
    "empty_parts": [{"role": "user", "content": []}],
    "image_part": [{"role": "user", "content": [
        {"type": "text", "text": "Look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}],
}


#: a request's own template that reads either format (vLLM detects ``openai``: it loops over
#: the content), taken with ``--trust-request-chat-template``
PARTS_TEMPLATE = (
    "{% for m in messages %}<{{ m.role }}>{% if m.content is string %}S:{{ m.content }}"
    "{% elif m.content is none %}N{% else %}{% for p in m.content %}P:{{ p.type }}:{{ p.text }}|"
    "{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}")


def cases() -> flag_servers.Cases:
    out: flag_servers.Cases = {}
    for name, messages in MESSAGES.items():
        out[f"chat_{name}"] = ("/v1/chat/completions/render", {"messages": messages})
        out[f"tokenize_{name}"] = ("/tokenize", {"messages": messages})
    for name in ("user_string", "user_parts", "system_parts", "tool_parts", "empty_parts"):
        out[f"chat_own_template_{name}"] = ("/v1/chat/completions/render", {
            "messages": MESSAGES[name], "chat_template": PARTS_TEMPLATE})
        out[f"tokenize_own_template_{name}"] = ("/tokenize", {
            "messages": MESSAGES[name], "chat_template": PARTS_TEMPLATE})
    out["responses_parts"] = ("/v1/responses/render", {"input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Hello"},
                                     {"type": "input_text", "text": "world"}]}]})
    out["responses_string"] = ("/v1/responses/render", {"input": "Hi"})
    return out


def main() -> None:
    ns = flag_servers.args("8451,8452")
    tmp = Path(tempfile.mkdtemp(prefix="content-format-"))
    folder = flag_servers.parser_folder(tmp, "qwen3", "hermes")
    servers = {f"qwen3_{fmt}": (folder, [*flag_servers.flags("qwen3", "hermes"),
                                         "--chat-template-content-format", fmt,
                                         "--trust-request-chat-template"])
               for fmt in FORMATS}
    version, out = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {
        f"qwen3_{fmt}": {"reasoning_parser": "qwen3", "tool_parser": "hermes",
                         "tito_json": {"chat_template_content_format": fmt},
                         "env": {"TITO_TRUST_REQUEST_CHAT_TEMPLATE": "1"}}
        for fmt in FORMATS}, out)


if __name__ == "__main__":
    main()
