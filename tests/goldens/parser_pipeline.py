"""tito's side of the parser goldens: a case through the whole per-choice pipeline.

Why a module of its own: ``tests/test_parsers_goldens.py`` and the differential fuzzer
(``conformance/fuzz_parsers.py``, run with vLLM's python, which has no pytest) drive tito the
same way. A case (``parser_cases``' shape) runs through the detokenizer, reasoning and tool
stages on the Qwen3 tokenizer with the format's markers added as *special* tokens, chunked as
asked, the state round-tripping through JSON between calls, the last chunk finishing with
``length``.
"""

from __future__ import annotations

import pathlib

from parser_cases import markers_for
from tokenizers import AddedToken, Tokenizer

from tito.core.parsers import INKLING_REASONING_PARSERS, MUSE_REASONING_PARSERS, marker_special_ids
from tito.core.parsers.reasoning import get_reasoning_parser
from tito.core.parsers.tools._schema import tool_params
from tito.core.pipeline import ChoiceConfig, ChoiceState, start_choice, step_choice
from tito.core.vocab import Vocab

QWEN3 = pathlib.Path(__file__).resolve().parents[2] / "layers" / "tokenizer" / "models" / "qwen3"


def make_vocab(markers: tuple[str, ...]) -> Vocab:
    tok = Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
    if markers:
        tok.add_special_tokens([AddedToken(m, special=True, normalized=False) for m in markers])
    return Vocab(tok, eos_token_id=tok.token_to_id("<|im_end|>"))


_VOCABS: dict[tuple[str, ...], Vocab] = {}


def vocab_for(case: dict) -> Vocab:
    key = tuple(markers_for(case))
    if key not in _VOCABS:
        _VOCABS[key] = make_vocab(key)
    return _VOCABS[key]


def config_for(case: dict) -> ChoiceConfig:
    rp = case["reasoning"]
    # (Muse's and Inkling's routers have no switch)
    muse = rp in MUSE_REASONING_PARSERS or rp in INKLING_REASONING_PARSERS
    enabled = get_reasoning_parser(rp).enabled_from_kwargs(case.get("kwargs")) \
        if rp and not muse else True
    # the request's choice of markers (k2_horizon's reasoning_effort), as the service makes it
    variant = get_reasoning_parser(rp).variant_from_kwargs(case.get("kwargs")) \
        if rp and not muse else ""
    tp = case["tool"]
    return ChoiceConfig(
        # as the service configures a parser stream: special tokens skipped except the markers
        skip_special_tokens=True,
        keep_special_ids=marker_special_ids(vocab_for(case), tp, rp),
        reasoning_parser=rp,
        reasoning_enabled=enabled,
        reasoning_variant=variant,
        tool_parser=tp,
        tool_choice="auto" if tp else "none",
        tool_params=tool_params(case["tools"]) if tp else None,
    )


def run(case: dict, sizes: list[int]) -> dict:
    """The case through the pipeline, chunked by ``sizes`` (cycled); the joined result."""
    vocab, cfg = vocab_for(case), config_for(case)
    ids = vocab.encode(case["text"])
    state = start_choice(vocab, cfg, vocab.encode(case["prompt"]) if "prompt" in case else [])
    reasoning, content, names, args, call_ids = [], [], {}, {}, {}
    i = k = 0
    while True:
        n = sizes[k % len(sizes)]
        k += 1
        chunk = ids[i : i + n]
        i += n
        final = i >= len(ids)
        state = ChoiceState.model_validate_json(state.model_dump_json())
        state, out = step_choice(
            vocab, cfg, state, chunk, finish_reason="length" if final else None, response_id="r"
        )
        reasoning.append(out.reasoning)
        content.append(out.text)
        for d in out.tool_calls:
            if d.name is not None:
                assert d.index not in names
                names[d.index], call_ids[d.index] = d.name, d.id
            args[d.index] = args.get(d.index, "") + d.arguments
        if final:
            break
    return {
        "reasoning": "".join(reasoning) or None,
        "content": "".join(content) or None,
        "calls": [[names[j], args[j]] for j in sorted(names)],
        "ids": [call_ids[j] for j in sorted(names)],
    }


def norm(result: dict) -> dict:
    return {
        "reasoning": result["reasoning"] or None,
        "content": (result["content"] or "").strip() or None,
        "calls": [list(c) for c in result["calls"]],
    }
