"""The qwen3 tokenizer with every tool format's markers added as special tokens.

Why: vLLM's tool parsers check at server start that their markers are tokens of the tokenizer
(``<|python_tag|>`` for llama3_json, DeepSeek's and Kimi's call markers, Mistral's
``[TOOL_CALLS]``...), and the real models hold them as special tokens. tito has no tokenizer of
those models, so the structural-tag goldens (``record_structural.py``) and their test use
qwen3's tokenizer with these markers added (ids 151669 on, in this order: **not** the models'
ids). Built with the ``tokenizers`` package, so the recorder and the test get the same ids.
:func:`inkling_folder` is an Inkling model folder the same way (Inkling's chat tokens added, for
the native render goldens).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QWEN3 = ROOT / "layers" / "tokenizer" / "models" / "qwen3"

MARKERS = [
    "<|python_tag|>", "<|python_start|>", "<|python_end|>",
    "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
    "<|tool_call_end|>", "<|tool_call_argument_begin|>",
    "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
    "<minimax:tool_call>", "</minimax:tool_call>", "<seed:tool_call>", "</seed:tool_call>",
    "[TOOL_CALLS]", "[ARGS]", "<|tool_call|>", "<tool_calls>", "</tool_calls>",
    "<longcat_tool_call>", "</longcat_tool_call>",
    # newparsers
    "<|tool_call>", "<tool_call|>", '<|"|>', "<|channel>", "<channel|>",
    "<tool_sep>", "<response>", "</response>",
    "<|action_start|>", "<|plugin|>", "<|action_end|>", "<start_function_call>",
    "<end_function_call>", "<escape>",
    "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>", "<｜tool_call_end｜>",
    "<｜tool_sep｜>",
    # newparsers4
    "<|tool_call_start|>", "<|tool_call_end|>", "<|tools_prefix|>", "<|tools_suffix|>",
    "<|plamo:begin_", "<|plamo:end_", ":plamo|>", "<|plamo:tag|>",
    "<|message_sep|>", "<|role_sep|>", "<|function_call|>",
    # parsers6b: Kimi K3's XTML marker pieces
    "<|open|>", "<|close|>", "<|sep|>",
    # muse7: Muse's framing markers
    "<|start|>", "<|message|>", "<|eom|>", "<|eot|>",
    # inkling10: Inkling's block markers
    "<|message_model|>", "<|content_text|>", "<|content_thinking|>",
    "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>", "<|content_tool_error|>",
    "<|content_model_end_sampling|>", "<|end_message|>",
]


def marker_folder(dst: Path) -> Path:
    """Write qwen3's tokenizer files with :data:`MARKERS` added into ``dst`` (and tito.json)."""
    return _with_specials(dst, MARKERS, ("tokenizer_config.json", "tito.json"))


#: Inkling's chat tokens (vLLM's ``inkling_encoding``: its renderer resolves each by name in the
#: vocabulary and refuses a tokenizer without them; its parsers read the last two as well)
INKLING_TOKENS = [
    "<|message_user|>", "<|message_model|>", "<|message_system|>", "<|message_tool|>",
    "<|content_text|>", "<|content_image|>", "<|content_model_end_sampling|>",
    "<|content_thinking|>", "<|content_audio_input|>", "<|content_xml|>",
    "<|content_invoke_tool_json|>", "<|end_message|>", "<|audio_end|>",
    "<|content_invoke_tool_text|>", "<|content_tool_error|>",
]


def inkling_folder(dst: Path) -> Path:
    """An Inkling model folder for render goldens and their test: qwen3's tokenizer with
    :data:`INKLING_TOKENS` added as special tokens (ids 151669 on, not Inkling's own; no chat
    template: vLLM encodes Inkling chats by code) and ``conformance/models/inkling``'s
    ``config.json`` (the architecture) and ``generation_config.json``."""
    _with_specials(dst, INKLING_TOKENS, ("tokenizer_config.json",))
    cfg = json.loads((dst / "tokenizer_config.json").read_text(encoding="utf-8"))
    cfg.pop("chat_template", None)
    (dst / "tokenizer_config.json").write_text(json.dumps(cfg, ensure_ascii=False, indent=1),
                                               encoding="utf-8")
    for f in (ROOT / "conformance" / "models" / "inkling").glob("*.json"):
        shutil.copy(f, dst / f.name)
    return dst


def _with_specials(dst: Path, tokens: list[str], copied: tuple[str, ...]) -> Path:
    """qwen3's tokenizer with ``tokens`` added as special tokens, and its ``copied`` files."""
    from tokenizers import AddedToken, Tokenizer

    dst.mkdir(parents=True, exist_ok=True)
    for name in copied:
        shutil.copy(QWEN3 / name, dst / name)
    tok = Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
    tok.add_special_tokens([AddedToken(m, special=True, normalized=False) for m in tokens])
    tok.save(str(dst / "tokenizer.json"))
    cfg = json.loads((dst / "tokenizer_config.json").read_text(encoding="utf-8"))
    for m in tokens:  # transformers rebuilds the added tokens from this table
        cfg["added_tokens_decoder"][str(tok.token_to_id(m))] = {
            "content": m, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": True}
    (dst / "tokenizer_config.json").write_text(json.dumps(cfg, ensure_ascii=False, indent=1),
                                               encoding="utf-8")
    return dst
