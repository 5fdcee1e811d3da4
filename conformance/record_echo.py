"""Record what vLLM 0.33.0's completions server (with an engine) echoes, as goldens.

vLLM's scale-out derender ignores ``echo`` (tito's echo is checked against the goldens with the
echoed prefix cut, ``echo_cut.strip_echo``), so the echoed prefix itself has no derender golden.
Its reference is vLLM's coupled completions server: ``OpenAIServingCompletion.
request_output_to_completion_response`` builds each choice from the engine's ``RequestOutput``
(the prompt as sent, its ids, its ``prompt_logprobs``) and ``_create_completion_logprobs`` numbers
the text offsets. This script runs that code of the installed vLLM on the echo cases of the
recorded completions derender goldens: each golden's body becomes the ``RequestOutput`` an engine
would have given vLLM (the prompt's and output's logprob entries decoded as vLLM's engine decodes
them, its ``LogprobsProcessor``), and the echoed part of each choice is stored: the text
before the output's, the prompt positions' logprob lists, and the offset the output's first
entry gets. Run with vLLM's Python (no server, no GPU):

    /work/vllm-venv/bin/python conformance/record_echo.py

It writes ``conformance/goldens/echo_coupled.json``; ``tests/test_conformance_echo.py`` checks
tito's batch echo against it. A case vLLM's code refuses (an assertion: echo with ``logprobs``
but no ``prompt_logprobs`` from the engine; a prompt position whose entry lacks the prompt's
token) is stored as that error and not compared (tito answers those; docs/conformance.md).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from conformance import record  # noqa: E402

OUT = HERE / "goldens" / "echo_coupled.json"
#: the recorded groups whose completions echo cases are replayed through vLLM's coupled code
GROUPS = ("derender_fuzz", "derender_completion", "derender_completion_edge")
_LISTS = ("tokens", "token_logprobs", "top_logprobs", "text_offset")


def echo_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    """``group/name`` -> (the model folder's name, the derender body) of every batch
    completions golden whose ``completion_request`` asks for ``echo`` and that vLLM answered."""
    out = {}
    for group in GROUPS:
        path = HERE / "goldens" / f"{group}.json"
        if not path.exists():
            continue
        for name, case in json.loads(path.read_text())["cases"].items():
            body = case.get("request")
            settings = body.get("completion_request") if isinstance(body, dict) else None
            if (case.get("path") == "/v1/completions/derender" and case.get("status") == 200
                    and isinstance(settings, dict) and settings.get("echo") is True):
                out[f"{group}/{name}"] = (case.get("server") or body.get("model"), body)
    return out


def _engine_logprobs(tok: Any, positions: list[dict[str, Any] | None],
                     prompt: bool) -> list[Any]:
    """Engine logprob positions (``{id: {logprob, rank}}``, the scored token first) as vLLM's
    engine hands them to its server: its ``LogprobsProcessor`` decodes each position's ids with
    ``convert_ids_list_to_tokens`` and corrects a U+FFFD with the preceding scored ids
    (``_verify_tokens``; a prompt's first position is None and no context), per position as
    ``_update_prompt_logprobs`` / ``_update_sample_logprobs`` do."""
    from vllm.logprobs import append_logprobs_for_next_position
    from vllm.tokenizers.detokenizer_utils import convert_ids_list_to_tokens
    from vllm.v1.engine.logprobs import LogprobsProcessor

    proc = LogprobsProcessor(tokenizer=tok, logprobs=None, prompt_logprobs=None,
                             cumulative_logprob=None, num_logprobs=None,
                             num_prompt_logprobs=None)
    out: list[Any] = [None] if prompt else []
    for at in positions[1:] if prompt else positions:
        if not at:  # (an engine position without entries: kept empty, no context)
            out.append(None)
            continue
        ids = [int(k) for k in at]
        decoded = proc._verify_tokens(
            decoded_tokens_list=convert_ids_list_to_tokens(tok, ids), tokens=ids,
            context_token_ids=proc._get_sampled_context_ids(out))
        values = list(at.values())
        append_logprobs_for_next_position(out, ids, [v["logprob"] for v in values], decoded,
                                          values[0].get("rank") or 1, len(ids) - 1)
    return out


def _output_positions(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An output's logprob entries (sampled token, then its candidates) as engine positions."""
    out = []
    for e in content:
        at = {str(e["token_id"]): {"logprob": e["logprob"], "rank": e.get("rank")}}
        for c in e.get("top_logprobs") or []:
            at.setdefault(str(c["token_id"]), {"logprob": c["logprob"], "rank": c.get("rank")})
        out.append(at)
    return out


def coupled(tok: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    """vLLM's coupled completions answer to ``body``'s engine outputs: each choice's echoed
    part (``text``: what precedes the output's text; ``logprobs``: the prompt positions'
    lists; ``next_offset``: the output's first text offset)."""
    from vllm.entrypoints.generate.base.protocol import RequestResponseMetadata
    from vllm.entrypoints.openai.completion.protocol import CompletionRequest
    from vllm.entrypoints.openai.completion.serving import OpenAIServingCompletion
    from vllm.outputs import CompletionOutput, RequestOutput

    req = CompletionRequest(**body["completion_request"])
    serving = object.__new__(OpenAIServingCompletion)  # (only the response builder runs)
    serving.return_tokens_as_token_ids = False
    serving.enable_prompt_tokens_details = False
    serving.enable_per_request_metrics = False
    serving.system_fingerprint = None
    batch, outputs, counts = [], [], []
    for r, gen in enumerate(body["generate_responses"]):
        ids = (body.get("prompt_token_ids") or [None] * (r + 1))[r] or gen.get("prompt_token_ids")
        prompt = req.prompt if isinstance(req.prompt, str) else (
            req.prompt[r] if isinstance(req.prompt, list) and isinstance(req.prompt[r], str)
            else None)
        plp = gen.get("prompt_logprobs")
        outs = []
        for ch in gen["choices"]:
            text = tok.decode(ch["token_ids"], skip_special_tokens=True)
            lp = ch.get("logprobs")
            outs.append(CompletionOutput(
                index=ch["index"], text=text, token_ids=ch["token_ids"], cumulative_logprob=None,
                logprobs=(_engine_logprobs(tok, _output_positions(lp["content"]), False)
                          if lp else None),
                finish_reason=ch.get("finish_reason"), stop_reason=ch.get("stop_reason")))
            outputs.append(text)
            counts.append(len(ids))
        batch.append(RequestOutput(
            request_id="echo", prompt=prompt, prompt_token_ids=ids,
            prompt_logprobs=_engine_logprobs(tok, plp, True) if plp is not None else None,
            outputs=outs, finished=True))
    resp = serving.request_output_to_completion_response(
        batch, req, "cmpl-echo", 0, req.model or "m", tok,
        RequestResponseMetadata(request_id="echo"))
    echoed = []
    for choice, text, n in zip(resp.choices, outputs, counts, strict=True):
        lp = choice.logprobs
        echoed.append({
            "text": choice.text[:len(choice.text) - len(text)],
            "logprobs": None if lp is None else {k: getattr(lp, k)[:n] for k in _LISTS},
            "next_offset": None if lp is None or len(lp.text_offset) <= n else lp.text_offset[n],
        })
    return echoed


def main() -> None:
    import vllm
    from vllm.tokenizers import get_tokenizer

    cases = echo_cases()
    tmp = Path(tempfile.mkdtemp(prefix="record-echo-"))
    toks: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for key, (model, body) in sorted(cases.items()):
        folder = "qwen3" if model == "qwen3-cmpl" else model
        if folder not in toks:
            toks[folder] = get_tokenizer(str(record.model_folder(folder, tmp)),
                                         tokenizer_mode="hf")
        try:
            out[key] = {"server": folder, "request": body, "echo": coupled(toks[folder], body)}
        except (AssertionError, KeyError, TypeError) as exc:
            out[key] = {"server": folder, "request": body, "error": type(exc).__name__}
        print(key, "error" if "error" in out[key] else "ok")
    OUT.write_text(json.dumps({"vllm": vllm.__version__, "source": "OpenAIServingCompletion."
                               "request_output_to_completion_response", "cases": out},
                              indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(out)} cases")


if __name__ == "__main__":
    main()
