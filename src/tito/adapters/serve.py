"""``tito serve``: every endpoint in one local server (uvicorn).

Without ``--model`` it serves the model folders of ``TITO_MODELS_DIR`` (default: the shipped
ones). With ``--model DIR`` it serves that one folder, with vLLM's flag names for what vLLM takes
on its command line (they win over the folder's ``tito.json``)::

    tito serve --model ./Qwen3-0.6B --served-model-name qwen3 \\
        --tool-call-parser hermes --reasoning-parser qwen3

A folder that does not load is reported by path and reason on stderr, without a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from tito.adapters.cli_args import add_server_options, new_parser

#: flag dest -> tito.json key
_OVERRIDES = {
    "served_model_name": "served_model_name",
    "tool_call_parser": "tool_parser",
    "reasoning_parser": "reasoning_parser",
    "max_model_len": "max_model_len",
    "max_logprobs": "max_logprobs",
    "default_chat_template_kwargs": "default_chat_template_kwargs",
    "tool_strict_level": "tool_strict_level",
    "reasoning_effort_map": "reasoning_effort_map",
    "chat_template_content_format": "chat_template_content_format",
    "anthropic_disabled_thinking_effort": "anthropic_disabled_thinking_effort",
    "trust_request_mm_kwargs": "trust_request_mm_kwargs",
    "generation_config": "generation_config",
    "chat_template": "chat_template",
    "exclude_tools_when_tool_choice_none": "exclude_tools_when_tool_choice_none",
    "override_generation_config": "override_generation_config",
}

DESCRIPTION = (
    "Serve every tito endpoint (render, derender, tokenize, models, health) in one local "
    "server: the model folders of TITO_MODELS_DIR (default: the shipped models), or with "
    "--model DIR that one folder, with vLLM's flag names for what vLLM takes on its command "
    "line (they win over the folder's tito.json). A folder that does not load is reported by "
    "path and reason on stderr, without a traceback."
)


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def _template_or_path(text: str) -> str:
    """``--chat-template``: a file named from the working directory becomes an absolute path
    (tito.json's are relative to the model folder); a template passes as it is."""
    path = Path(text)
    try:
        return str(path.resolve()) if path.is_file() else text
    except (OSError, ValueError):
        return text


def _generation_source(text: str) -> str:
    """``--generation-config``: ``auto``, ``vllm``, or a folder named from the working
    directory, made absolute (tito.json's are relative to the model folder)."""
    path = Path(text)
    return str(path.resolve()) if text not in ("auto", "vllm") and path.is_dir() else text


def build_parser() -> argparse.ArgumentParser:
    parser = new_parser("tito serve", DESCRIPTION)
    add_server_options(parser, port=8000)
    model = parser.add_argument_group("one model folder (vLLM's flags)")
    model.add_argument("--model", metavar="DIR",
                       help="serve this model folder only (default: every folder of TITO_MODELS_DIR)")
    model.add_argument("--served-model-name", metavar="NAME", nargs="+",
                       help="the name requests use; several: each serves the model, the first "
                       "its own (default: tito.json's, else the folder name)")
    model.add_argument("--tool-call-parser", metavar="NAME",
                       help="vLLM's tool parser name, e.g. hermes (default: tito.json's, else none)")
    model.add_argument("--reasoning-parser", metavar="NAME",
                       help="vLLM's reasoning parser name, e.g. qwen3 (default: tito.json's, "
                       "else none)")
    model.add_argument("--max-model-len", type=int, metavar="N",
                       help="context length (default: tito.json, config.json or "
                       "tokenizer_config.json)")
    model.add_argument("--max-logprobs", type=int, metavar="N",
                       help="largest top_logprobs accepted (default: tito.json's, else 20)")
    model.add_argument("--default-chat-template-kwargs", type=_json_object, metavar="JSON",
                       help="chat template variables every request gets unless it sets them "
                       "(default: none)")
    model.add_argument("--tool-strict-level", choices=("auto", "function", "parameter"),
                       help="floor of the tool-call structural tags: function constrains the "
                       "call envelope for every request with tools, parameter also pins every "
                       "tool's arguments (default: tito.json's, else the tool parser's)")
    model.add_argument("--chat-template-content-format", choices=("auto", "string", "openai"),
                       help="how content parts reach the chat template (default: tito.json's, "
                       "else auto: detected from the template)")
    model.add_argument("--anthropic-disabled-thinking-effort",
                       choices=("auto", "none", "low", "medium", "high", "xhigh", "max"),
                       help="the reasoning effort of a Messages request with thinking disabled "
                       "(default: tito.json's, else auto: none unless the template ignores it)")
    model.add_argument("--reasoning-effort-map", type=_json_object, metavar="JSON",
                       help="a request's reasoning effort rewritten to the model's own, e.g. "
                       "'{\"none\": \"no_think\"}' (default: tito.json's, else none)")
    model.add_argument("--chat-template", type=_template_or_path, metavar="FILE|TEMPLATE",
                       help="the chat template to render with instead of the folder's: a file, "
                       "or the template itself (default: tito.json's, else the folder's)")
    model.add_argument("--generation-config", type=_generation_source, metavar="auto|vllm|DIR",
                       help="where sampling defaults come from: auto (the folder's "
                       "generation_config.json), vllm (none), or a folder holding one "
                       "(default: tito.json's, else auto)")
    model.add_argument("--override-generation-config", type=_json_object, metavar="JSON",
                       help="generation config fields set over the source's, e.g. "
                       "'{\"temperature\": 0.5}'; its max_new_tokens caps max_tokens "
                       "(default: tito.json's, else none)")
    parser.add_argument("--trust-request-chat-template", action="store_true",
                        help="let requests carry their own chat_template (vLLM's flag; "
                        "tito's TITO_TRUST_REQUEST_CHAT_TEMPLATE=1 for every model)")
    model.add_argument("--exclude-tools-when-tool-choice-none", action="store_true",
                       default=None, help="leave a request's tools out of the prompt when its "
                       "tool_choice is none (default: tito.json's, else kept)")
    model.add_argument("--trust-request-mm-kwargs", action="store_true", default=None,
                       help="accept a request's mm_processor_kwargs and media_io_kwargs "
                       "(default: tito.json's, else refused with a 400)")
    model.add_argument("--enable-auto-tool-choice", action="store_true",
                       help="accepted for vLLM compatibility (a tool parser enables auto tool choice)")
    return parser


def load(args: argparse.Namespace) -> Any:
    """The registry to serve (installed as the process registry); ModelLoadError when unusable."""
    from tito.models import ModelRegistry, get_registry, load_model, reset_registry

    overrides = {key: getattr(args, dest) for dest, key in _OVERRIDES.items()
                 if getattr(args, dest) is not None}
    names = overrides.get("served_model_name")
    if isinstance(names, list) and len(names) == 1:  # (one name: tito.json's plain form)
        overrides["served_model_name"] = names[0]
    if args.model is None:
        if overrides:
            raise SystemExit("tito serve: --served-model-name and the parser/length flags need --model DIR")
        # a long-running server: load every model before accepting traffic, so every broken
        # folder is reported at start and no first request waits for a tokenizer
        return get_registry().load_all()
    registry = ModelRegistry([load_model(args.model, overrides)], default="")
    reset_registry(registry)
    return registry


def main(argv: list[str]) -> int:
    """Parse the flags, load the models, run uvicorn until interrupted."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper())
    if args.trust_request_chat_template:  # (a process setting, read with the others below)
        os.environ["TITO_TRUST_REQUEST_CHAT_TEMPLATE"] = "1"

    from tito.models import ModelLoadError
    from tito.settings import SettingsError, check_environment

    try:
        check_environment()
    except SettingsError as exc:
        print(f"tito serve: {exc}", file=sys.stderr)
        return 2
    try:
        registry = load(args)  # load the models before accepting traffic
    except ModelLoadError as exc:
        print(f"tito serve: {exc}", file=sys.stderr)
        return 1
    for folder, reason in registry.failed.items():
        print(f"tito serve: not serving {folder}: {reason}", file=sys.stderr)
    from tito.service.render import warm_up

    for model in registry:  # compile every chat template before accepting traffic
        warm_up(model)
    logging.getLogger("tito").info(
        "serving models %s (default %s)", registry.names(), registry.default_name
    )

    import uvicorn

    from tito.adapters.app import create_app

    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)
    return 0
