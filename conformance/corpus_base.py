"""The conformance corpus's shared pieces: the served models' token ids and folders, the
tools and request builders every per-model corpus uses, and the engine outputs derender cases
are written with (``out``, ``lp_entries``, ``chunkings``)."""

from __future__ import annotations

import json
import random
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "layers" / "tokenizer" / "models"

IM_START, IM_END, EOT = 151644, 151645, 151643
THINK, END_THINK = 151667, 151668
TOOL_CALL, END_TOOL_CALL = 151657, 151658
GPT2_EOT = 50256
HARMONY_RETURN, HARMONY_CALL = 200002, 200012
MISTRAL_EOS = 2
#: the EOS id that ends a ``stop`` output of each served model (``out``)
EOS_IDS = {"qwen3": IM_END, "gpt2": GPT2_EOT, "gpt-oss": HARMONY_RETURN, "mistral-v3": MISTRAL_EOS,
           "mistral-v3-hf": MISTRAL_EOS}


@lru_cache(maxsize=None)
def _tok(model: str) -> Any:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(MODELS / model.removesuffix("-hf") / "tokenizer.json"))


def ids(text: str, model: str = "qwen3") -> list[int]:
    """Token ids of ``text`` (special-token markup in the text becomes its special token)."""
    if model == "mistral-v3":  # the same ids as mistral-common's v3 SentencePiece model
        model = "mistral-v3-hf"
    return list(_tok(model).encode(text, add_special_tokens=False).ids)


def mistral_folder(folder: Path) -> Path:
    """mistral-v3 as vLLM's ``--tokenizer-mode mistral`` serves it: mistral-common's own
    ``tokenizer.model.v3`` (the file ``layers/tokenizer/models/mistral-v3/tokenizer.json`` was
    converted from) and tito's ``tito.json``; no ``tokenizer.json``, so tito serves it through
    mistral-common too. Built at record and at replay time (mistral-common is a dev dependency)."""
    import mistral_common

    data = Path(mistral_common.__file__).parent / "data"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(data / "mistral_instruct_tokenizer_240323.model.v3", folder / "tokenizer.model.v3")
    shutil.copy(MODELS / "mistral-v3" / "tito.json", folder / "tito.json")
    return folder


def mistral_hf_folder(folder: Path) -> Path:
    """mistral-v3 from tito's shipped ``tokenizer.json`` folder, served as ``mistral-v3-hf``
    (vLLM: ``--tokenizer-mode hf``; tito: that folder's files with its ``tito.json`` renamed):
    how a Llama-style SentencePiece ``tokenizer.json`` model is served without mistral-common."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in (MODELS / "mistral-v3").iterdir():
        if f.name != "tito.json" and f.is_file():
            shutil.copy(f, folder / f.name)
    cfg = json.loads((MODELS / "mistral-v3" / "tito.json").read_text())
    (folder / "tito.json").write_text(json.dumps({**cfg, "served_model_name": "mistral-v3-hf"}))
    return folder


#: the natively encoded render servers (vLLM picks the encoding from config.json's architecture,
#: tito its core/render_<name> module): served name -> (tool parser, reasoning parser), the flags
#: ``tests/goldens/record_dsv32_render.py`` records each model's goldens with
NATIVE = {"dsv32": ("deepseek_v32", "deepseek_v3"), "dsv4": ("deepseek_v4", "deepseek_v4"),
          "dsv41": ("deepseek_v41", "deepseek_v41"), "inkling": ("inkling", "inkling")}


def native_folder(name: str, folder: Path) -> Path:
    """A folder of a :data:`NATIVE` architecture served as ``name``: Qwen3's tokenizer files
    without their chat template (Inkling's: with its chat tokens added,
    :func:`conformance.markers.inkling_folder`) and ``conformance/models/<name>`` (the
    architecture, sizes; EOS ids), as the render goldens' tests build them; vLLM and tito both
    render it with the model's own encoding."""
    if name == "inkling":
        from conformance.markers import inkling_folder

        inkling_folder(folder)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(MODELS / "qwen3" / "tokenizer.json", folder)
        config = json.loads((MODELS / "qwen3" / "tokenizer_config.json").read_text())
        config.pop("chat_template", None)
        (folder / "tokenizer_config.json").write_text(json.dumps(config))
    for f in (ROOT / "conformance" / "models" / name).glob("*.json"):
        shutil.copy(f, folder)
    tool_parser, reasoning_parser = NATIVE[name]
    (folder / "tito.json").write_text(json.dumps(
        {"served_model_name": name, "tool_parser": tool_parser,
         "reasoning_parser": reasoning_parser}))
    return folder


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string",
                                                                "enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
}
STRICT = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Strict lookup",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                       "required": ["q"], "additionalProperties": False},
        "strict": True,
    },
}
NOPARAMS = {"type": "function", "function": {"name": "ping"}}
TOOLS = [WEATHER, TIME]
USER = [{"role": "user", "content": "What is the weather in Paris?"}]
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def chat(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "qwen3", "messages": USER}
    body.update(fields)
    return body


def completion(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt2", "prompt": "Once upon a time", "max_tokens": 16}
    body.update(fields)
    return body



# -- derender ----------------------------------------------------------------------------------


def lp_entries(token_ids: list[int], k: int = 5, seed: int = 0) -> dict[str, Any]:
    """Engine logprobs (integer ids): the sampled token first, then ``k-1`` other candidates."""
    rnd = random.Random(seed)
    content = []
    for pos, t in enumerate(token_ids):
        top = [{"token_id": t, "logprob": round(-0.05 - pos * 0.01, 4), "rank": 1}]
        for r in range(2, k + 1):
            alt = (t + 17 * r + rnd.randrange(1000)) % 151000
            top.append({"token_id": alt, "logprob": round(-1.0 - r - rnd.random(), 4),
                        "rank": r})
        content.append({"token_id": t, "logprob": top[0]["logprob"], "rank": 1,
                        "top_logprobs": top})
    return {"content": content}


def out(text: str | list[int], finish: str | None = "stop", *, eos: bool | int = True,
        model: str = "qwen3", stop_reason: Any = None, logprobs: int | None = None,
        index: int = 0) -> dict[str, Any]:
    """One engine choice: ``text`` encoded (markup of special tokens becomes them), plus, when
    ``finish`` is stop, the id that stopped it: the model's EOS (``eos=True``), the id ``eos``
    (e.g. harmony's ``<|call|>``), none (``eos=False`` or a ``stop_reason``)."""
    toks = list(text) if isinstance(text, list) else ids(text, model)
    if finish == "stop" and eos is not False and stop_reason is None:
        toks.append(EOS_IDS[model] if eos is True else eos)
    choice: dict[str, Any] = {"index": index, "token_ids": toks, "finish_reason": finish}
    if stop_reason is not None:
        choice["stop_reason"] = stop_reason
    if logprobs is not None:
        choice["logprobs"] = lp_entries(toks, logprobs, seed=len(toks))
    return choice


METRICS = {"time_to_first_token_ms": 12.5, "generation_time_ms": 340.0, "queue_time_ms": 1.5,
           "mean_itl_ms": 8.25, "tokens_per_second": 121.0}

THINK_TEXT = "<think>\nThe user wants weather.\n</think>\n\n"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
CALL2 = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>'


def chunkings(n: int, seed: int) -> list[list[int]]:
    """Chunk sizes for a stream of ``n`` ids: one per call, and a seeded random split."""
    rnd = random.Random(seed)
    sizes, left = [], n
    while left > 0:
        k = min(left, rnd.randint(1, 6))
        sizes.append(k)
        left -= k
    return [[1] * n, sizes]


# -- single-call derender cases (the derender_*_corpus modules) ---------------------------------

CHAT_D, CMPL_D = "/v1/chat/completions/derender", "/v1/completions/derender"
DERENDER_PROMPT = [100, 200]


def derender_settings(server: str, chat: bool, extra: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A single-call derender case's settings key and settings: one user message (chat) or the
    prompt "x", one logprob asked, then ``extra``."""
    if chat:
        return "chat_request", {"model": server, "messages": [{"role": "user", "content": "x"}],
                                "logprobs": True, "top_logprobs": 1, **extra}
    return "completion_request", {"model": server, "prompt": "x", "logprobs": 1, **extra}


def derender_batch(server: str, chat: bool, extra: dict[str, Any], choices: list[dict[str, Any]]
                   ) -> tuple[str, str, dict[str, Any]]:
    """A batch derender case, (server, path, body), of one engine response with ``choices``
    (completions: one per prompt, a list of one)."""
    key, settings = derender_settings(server, chat, extra)
    body: dict[str, Any] = {"model": server, key: settings}
    response = {"request_id": "r", "choices": choices}
    if chat:
        body.update(prompt_token_ids=DERENDER_PROMPT, generate_response=response)
    else:
        body.update(prompt_token_ids=[DERENDER_PROMPT], generate_responses=[response])
    return server, CHAT_D if chat else CMPL_D, body


def derender_stream(server: str, chat: bool, extra: dict[str, Any], chunks: list[dict[str, Any]]
                    ) -> tuple[str, str, str, dict[str, Any], list[int], list[dict[str, Any]]]:
    """A stream case as ``record.py`` drives it: (server, path, settings key, settings, prompt
    ids, engine chunks)."""
    key, settings = derender_settings(server, chat, extra)
    return server, CHAT_D if chat else CMPL_D, key, settings, DERENDER_PROMPT, chunks


def one_logprob(token_ids: list[int]) -> dict[str, Any]:
    """Engine logprobs of ``token_ids``: each its own only candidate, logprob -0.5."""
    return {"content": [{"token_id": t, "logprob": -0.5, "rank": 1,
                         "top_logprobs": [{"token_id": t, "logprob": -0.5, "rank": 1}]}
                        for t in token_ids]}
