"""Completions ``echo`` against vLLM 0.33.0's coupled completions server.

Why: vLLM's derender ignores ``echo``, so the derender goldens check only the output part of an
echo answer (``echo_cut.strip_echo``). What vLLM's completions server (with an engine) echoes was
recorded by ``conformance/record_echo.py``, running vLLM 0.33's own
``request_output_to_completion_response`` on the engine outputs of the recorded echo goldens
(``conformance/goldens/echo_coupled.json``): the text before the output (the prompt as sent, or
``""`` with ``return_token_ids``), the prompt positions' logprobs, and the output's first text
offset, which counts every token string before it (a BOS's ``"<s>"`` too, not the echoed
text's length: ``derender_fuzz`` ``echo_bos_prompt_logprobs_hf``, fuzz seed 513 case 41).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import echo_cut, replay  # noqa: E402

COUPLED = json.loads((ROOT / "conformance" / "goldens" / "echo_coupled.json").read_text())
CASES = {k: v for k, v in COUPLED["cases"].items() if "echo" in v}


@pytest.fixture(scope="module")
def tito() -> replay.Tito:
    return replay.Tito()


def _golden(key: str) -> dict[str, Any]:
    group, name = key.split("/", 1)
    return replay.load(group)[name]


def test_recorded_from_vllm_033() -> None:
    assert COUPLED["vllm"] == "0.33.0"
    assert len(CASES) >= 6


@pytest.mark.parametrize("key", sorted(CASES))
def test_echo_is_vllm_completions_echo(tito: replay.Tito, key: str) -> None:
    """tito's batch echo is vLLM's coupled echo followed by vLLM's derender output."""
    golden = _golden(key)
    status, got = tito.post(golden["path"], golden["request"])
    assert status == 200
    for k, (want, choice) in enumerate(zip(CASES[key]["echo"], got["choices"], strict=True)):
        output = golden["response"]["choices"][k]["text"]
        assert choice["text"] == want["text"] + output, (key, k)
        if want["logprobs"] is None:
            continue
        n = len(want["logprobs"]["tokens"])
        mine = {name: choice["logprobs"][name][:n] for name in want["logprobs"]}
        assert mine == want["logprobs"], (key, k)
        if want["next_offset"] is not None:
            assert choice["logprobs"]["text_offset"][n] == want["next_offset"], (key, k)


def test_a_bos_counts_in_the_offsets_not_the_echoed_text() -> None:
    """The case the replay once misread (it shifted the output's offsets back by the echoed
    text's length): vLLM's output offsets start after ``"<s>" + " x"``, 5, where the echoed
    text ``"x"`` is 1 long; with ``return_token_ids`` the text is ``""``, the offsets the same."""
    for key in ("derender_fuzz/echo_bos_prompt_logprobs_hf", "derender_fuzz/echo_return_token_ids_hf"):
        (want,) = CASES[key]["echo"]
        assert want["logprobs"]["tokens"][0] == "<s>"
        assert want["next_offset"] == sum(len(t) for t in want["logprobs"]["tokens"])
        assert want["next_offset"] != len(want["text"])
    assert CASES["derender_fuzz/echo_return_token_ids_hf"]["echo"][0]["text"] == ""


def test_strip_echo_shifts_by_the_echoed_token_strings() -> None:
    """The replay cuts an echoed prefix as vLLM numbers the offsets: by the echoed entries'
    token strings when there are some, else by the echoed text."""
    want = {"text": " a", "logprobs": {"tokens": [" a"], "token_logprobs": [-1.0],
                                       "top_logprobs": [None], "text_offset": [0]}}
    got = {"text": "x a", "logprobs": {"tokens": ["<s>", " x", " a"],
                                       "token_logprobs": [None, -2.0, -1.0],
                                       "top_logprobs": [None, None, None],
                                       "text_offset": [0, 3, 5]}}
    stripped, prefix, cut = echo_cut.strip_echo(want, got)
    assert (prefix, cut) == ("x", 2)
    assert stripped["logprobs"] == want["logprobs"]
    wrong = json.loads(json.dumps(got))
    wrong["logprobs"]["text_offset"] = [0, 3, 4]  # (offsets after the echoed text: not vLLM's)
    assert echo_cut.strip_echo(want, wrong)[0]["logprobs"]["text_offset"] == [-1]
    assert echo_cut.echoed({"completion_request": {"echo": True, "prompt": "x",
                                                 "return_token_ids": True}}) == ""


def test_an_echo_whose_output_differs_is_judged_by_its_start() -> None:
    """When the output part differs (its own difference, maybe an intended one), the prefix
    cannot be cut: the echo is then judged by the text's start (fuzz seed 516 case 56, a special
    token mid-output: the prompt "x" was reported as not echoed)."""
    want = {"text": " out"}
    found = list(echo_cut.echo_diffs(want, {"text": "x other"}, "choices.0.", "x"))
    assert not [d for d in found if d[0].endswith("echo_prompt")]
    assert ("choices.0.text", " out", " other") in found  # (the prompt cut off)
    found = list(echo_cut.echo_diffs(want, {"text": "y other"}, "choices.0.", "x"))
    assert ("choices.0.echo_prompt", "x", "y") in found
    # an echo of no text (return_token_ids) still cuts the prompt's logprob entries when the
    # output part differs (fuzz seed 422 case 24, mistral-v3-hf-cmpl: a special token kept)
    lps = {"tokens": [" out"], "token_logprobs": [-1.0], "top_logprobs": [None],
           "text_offset": [0]}
    echoed = {"tokens": ["<s>", " x", " other"], "token_logprobs": [None, -2.0, -1.0],
              "top_logprobs": [None, None, None], "text_offset": [0, 3, 5]}
    found = list(echo_cut.echo_diffs({"text": " out", "logprobs": lps},
                                    {"text": " other", "logprobs": echoed}, "choices.0.", ""))
    assert ("choices.0.logprobs.tokens.0", " out", " other") in found
    assert ("choices.0.echo_prefix", None, {"text": "", "logprob_entries": 2}) in found
    assert not [d for d in found if d[0].endswith(("echo_prompt", "text_offset.0"))]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_stream_of_a_list_prompt_echoes_its_own_prompt_as_sent(tito: replay.Tito,
                                                                  index: int) -> None:
    """A stream is one prompt's: of a list of prompts it echoes the string whose render gave
    its prompt ids, as sent (vLLM's completions echo ``res.prompt``); tito had decoded the ids,
    showing the BOS with ``skip_special_tokens`` false (``<s> The weather``: fuzz seed 512 case
    64, mistral-v3-hf) and losing a Metaspace leading space with the default."""
    prompts = [" The weather", "x", "Hello"]
    status, rendered = tito.post("/v1/completions/render",
                                 {"model": "mistral-v3-hf", "prompt": prompts, "max_tokens": 4})
    assert status == 200
    ids = rendered[index]["token_ids"]
    assert ids[0] == 1  # (the BOS render added)
    for skip in (False, True):
        settings = {"model": "mistral-v3-hf", "prompt": prompts, "echo": True,
                    "skip_special_tokens": skip, "max_tokens": 4}
        chunk = {"request_id": "cmpl-s", "choices": [
            {"index": 0, "token_ids": [1183], "finish_reason": "length"}]}
        status, got = tito.post("/v1/completions/derender", {
            "model": "mistral-v3-hf", "stream": True, "generate_chunk": chunk,
            "completion_request": settings, "prompt_token_ids": ids, "stream_state": None})
        assert status == 200, got
        text = got["chunk"]["choices"][0]["text"]
        assert text.startswith(prompts[index]) and not text.startswith("<s>"), (skip, text)
        assert text[len(prompts[index]):] == " The"
