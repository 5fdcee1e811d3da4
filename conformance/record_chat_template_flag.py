"""Record ``render_chat_template_flag.json``: vLLM 0.33 qwen3 servers (its parsers) started
with ``--chat-template``: a template file (``tests/templates/phi.jinja``), an inline template,
and a template file over a folder whose ``tokenizer_config.json`` names a ``tool_use``
template; chats (with and without tools), ``/tokenize``, Responses and Messages renders and a
request's own ``chat_template`` (refused: not trusted).

Why: the server's template wins over the folder's (vLLM's ``--chat-template``, a path or the
template itself); tito had no such setting (session 54). Starts its own servers on the ports
given::

    /work/vllm-venv/bin/python conformance/record_chat_template_flag.py --ports 8451,8452
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import flag_servers, record  # noqa: E402
from conformance.corpus_base import TOOLS, USER  # noqa: E402

OUT = record.GOLDENS / "render_chat_template_flag.json"
TEMPLATE_FILE = HERE.parent / "tests" / "templates" / "phi.jinja"
INLINE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
          "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
TOOL_USE = ("{{ '<tool_use>' }}{% for m in messages %}{{ m['content'] }}{% endfor %}"
            "{% if tools %}{{ tools | length }}{% endif %}")
#: server -> (tito.json chat_template, the folder's tool_use template or None)
SERVERS: dict[str, tuple[str, str | None]] = {
    "qwen3_template_file": ("templates/phi.jinja", None),
    "qwen3_template_inline": (INLINE, None),
    "qwen3_template_tool_use": ("templates/phi.jinja", TOOL_USE),
}


def cases() -> flag_servers.Cases:
    sys_user = [{"role": "system", "content": "Be brief."}, *USER]
    return {
        "chat": ("/v1/chat/completions/render", {"messages": sys_user}),
        "chat_tools": ("/v1/chat/completions/render", {"messages": sys_user, "tools": TOOLS}),
        "chat_request_template": ("/v1/chat/completions/render",
                                  {"messages": USER, "chat_template": INLINE}),
        "tokenize": ("/tokenize", {"messages": sys_user}),
        "tokenize_tools": ("/tokenize", {"messages": sys_user, "tools": TOOLS}),
        "responses": ("/v1/responses/render", {"input": "Hello", "instructions": "Be brief."}),
        "messages": ("/v1/messages/render", {"max_tokens": 16, "system": "Be brief.",
                                             "messages": USER}),
    }


def main() -> None:
    ns = flag_servers.args("8451,8452")
    tmp = Path(tempfile.mkdtemp(prefix="chat-template-flag-"))
    servers: flag_servers.Servers = {}
    files: dict[str, dict[str, Any]] = {}
    for name, (template, tool_use) in SERVERS.items():
        folder = record.model_folder("qwen3", tmp / name)
        (folder / "templates").mkdir()
        (folder / "templates" / "phi.jinja").write_text(TEMPLATE_FILE.read_text())
        if tool_use is not None:
            config_file = folder / "tokenizer_config.json"
            config = json.loads(config_file.read_text())
            config["chat_template"] = [{"name": "default", "template": config["chat_template"]},
                                       {"name": "tool_use", "template": tool_use}]
            config_file.write_text(json.dumps(config))
            files[name] = {"tokenizer_config.json": config}
        # (vLLM opens a path from its working directory: given absolute here)
        flag = str(folder / template) if template.endswith(".jinja") else template
        servers[name] = (folder, [*flag_servers.flags("qwen3", "hermes"),
                                  "--chat-template", flag])
    version, found = flag_servers.record_servers(servers, cases(), ns, tmp)
    flag_servers.write(OUT, version, {
        name: {"reasoning_parser": "qwen3", "tool_parser": "hermes", "model": "qwen3",
               "tito_json": {"chat_template": template},
               **({"files": files[name]} if name in files else {}),
               **({"template_files": {"templates/phi.jinja": "tests/templates/phi.jinja"}}
                  if template.endswith(".jinja") else {})}
        for name, (template, _) in SERVERS.items()}, found)


if __name__ == "__main__":
    main()
