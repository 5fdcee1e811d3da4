"""Derender bounds: what a request or a client-carried stream state may hold (each a 400).

Why a module of its own: the batch and streamed derenders (:mod:`tito.service.derender`,
:mod:`tito.service.derender_stream`, the Responses derender) check the same limits of spec 3.1
before any decoding (ids within ``max_model_len`` and the vocabulary, logprob counts within
``max_logprobs``, choice counts) and a carried state's settings against what this model and
endpoint can issue; written once, here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from tito.core.parsers.reasoning import ReasoningState, get_reasoning_parser, initial
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.parsers import (
    INKLING_REASONING_PARSERS,
    INKLING_TOOL_PARSERS,
    MUSE_REASONING_PARSERS,
    MUSE_TOOL_PARSERS,
    is_inkling,
    is_muse,
)
from tito.core.pipeline_parsers import muse_tools, parses_tools, tool_parser_for
from tito.core.sampling import MAX_N_SEQUENCES  # choices per response, responses per request
from tito.errors import BadRequest, quote
from tito.models import ServedModel

__all__ = ["_check_choice_count", "_check_ids", "_check_logprobs", "_check_response",
           "_check_wire_state", "check_routers", "wire_config_checked"]


def _check_ids(model: ServedModel, ids: Sequence[int] | None, param: str) -> None:
    if not ids:
        return
    limit = model.config.max_model_len
    if len(ids) > limit:
        raise BadRequest(
            f"{param} has {len(ids)} token ids, more than max_model_len ({limit})", param=param
        )
    size = model.vocab_size or model.vocab.size  # padded rows decode to "" (vLLM)
    if max(ids) < size:  # (at C speed: the usual case)
        return
    bad = next((i for i in ids if i >= size), None)
    if bad is not None:
        raise BadRequest(
            f"{param} contains token id {bad}, outside the vocabulary of model "
            f"{model.name!r} (size {size})",
            param=param,
        )


def _check_logprobs(model: ServedModel, logprobs: Any, param: str) -> None:
    if logprobs is None or logprobs.content is None:
        return
    limit = model.config.max_model_len
    if len(logprobs.content) > limit:
        raise BadRequest(
            f"{param}.content length {len(logprobs.content)} exceeds max_model_len ({limit})",
            param=f"{param}.content",
        )
    max_lp = model.config.max_logprobs
    if max_lp < 0:
        return
    # the engine sends the sampled token first, then the top-k: k = max_logprobs and a sampled
    # token outside them is max_logprobs + 1 entries, a valid output (vLLM's batch derender
    # refuses it, its stream takes it)
    for entry in logprobs.content:  # dicts (integer-id shape) or models (legacy shape)
        top = entry.get("top_logprobs") if type(entry) is dict else entry.top_logprobs
        n = len(top or ())
        if n > max_lp + 1:
            raise BadRequest(
                f"{param}.content top_logprobs count {n} exceeds max_logprobs ({max_lp}) "
                "and the sampled token",
                param=f"{param}.content",
            )


def _check_choice_count(n: int, what: str, param: str) -> None:
    if n > MAX_N_SEQUENCES:
        raise BadRequest(
            f"{what} count {n} exceeds the limit of {MAX_N_SEQUENCES}", param=param
        )


def _check_response(model: ServedModel, resp: Any, param: str) -> None:
    if getattr(resp, "output_mode", "tokens") != "tokens":
        raise BadRequest(
            "derender accepts only output_mode 'tokens' generate responses", param=param
        )
    _check_choice_count(len(resp.choices), "choices", f"{param}.choices")
    for i, choice in enumerate(resp.choices):
        _check_ids(model, choice.token_ids, f"{param}.choices.{i}.token_ids")
        _check_logprobs(model, choice.logprobs, f"{param}.choices.{i}.logprobs")
    limit = model.config.max_model_len
    if resp.prompt_logprobs is not None and len(resp.prompt_logprobs) > limit:
        raise BadRequest(
            f"prompt_logprobs length {len(resp.prompt_logprobs)} exceeds max_model_len ({limit})",
            param=f"{param}.prompt_logprobs",
        )
    _check_ids(model, getattr(resp, "prompt_token_ids", None), f"{param}.prompt_token_ids")


def _check_wire_state(
    model: ServedModel, cfg: ChoiceConfig, state: ChoiceState, *, completion: bool,
    issued: bool = False,
) -> None:
    """A client-carried state must hold settings this model and endpoint can issue.

    Why: an unsigned state can say anything. Its settings are checked against what
    :mod:`tito.service.config` can derive for this model and endpoint (the parsers are the
    model's, never the client's choice), and its parser phases against the format's phases, so
    a tampered state is a 400 or decodes as some honest request would have. ``issued``: the
    state is one this process issued for this model (:func:`tito.service.stream_state_kept.issued`),
    made by the pipeline from a state that passed these checks: only its settings are checked
    against the endpoint (another endpoint of ``tito serve`` may be sent it). A reasoning
    state issued before its format read a call end (no call-end ids) takes this model's:
    ``state.reasoning`` is replaced by that upgraded copy.
    """
    checked = _config_checked(model, cfg, completion)
    if issued:
        return
    size = model.vocab_size  # the model's rows: padded ids are valid output
    if state.pending is not None and state.pending >= size:
        raise _not_issued("pending is not a token id of this model", "st.pending")
    for i in state.lp_context:
        if not 0 <= i < size:
            raise _not_issued("logprob context ids are outside the vocabulary", "st.lp_context")
    check_routers(cfg, state.muse, state.inkling)
    if state.tools is None and state.reasoning is None:
        return
    bad = _not_issued
    if state.tools is not None:
        if not parses_tools(cfg):
            raise bad("a tool parser state without tools", "st.tools")
        if state.tools.phase not in tool_parser_for(cfg).phases:
            raise bad(f"unknown tool parser phase '{quote(state.tools.phase)}'", "st.tools.phase")
    if state.reasoning is not None:
        if cfg.reasoning_parser is None:
            raise bad("a reasoning state without a reasoning parser", "st.reasoning")
        markers = checked[2]
        if markers is None:
            markers = checked[2] = _marker_ids(model.vocab, cfg.reasoning_parser,
                                               cfg.reasoning_variant)
        found = _markers_of(state.reasoning)
        if found != markers:
            if found[:_CALL_END] != markers[:_CALL_END] or found[_CALL_END:] != _NO_CALL_END:
                raise bad("reasoning marker ids are not this model's", "st.reasoning")
            # a state issued before its format had a call end (gemma4, glm45/47, ling3: issue
            # 10): it takes this model's, as the state issued now would hold (else a stream in
            # flight across that deploy would end with this 400)
            reasoning = state.reasoning.model_copy()
            reasoning.call_end_id, reasoning.call_end_ids = markers[_CALL_END], list(
                markers[_CALL_END + 1])
            state.reasoning = reasoning


#: the parser names that run a channel router (a state's check reads the routers' states then)
_ROUTER_TOOLS = MUSE_TOOL_PARSERS | INKLING_TOOL_PARSERS
_ROUTER_REASONING = MUSE_REASONING_PARSERS | INKLING_REASONING_PARSERS


def check_routers(cfg: ChoiceConfig, muse: Any, inkling: Any) -> None:
    """The channel routers' states (Muse's :mod:`tito.core.parsers.muse`, Inkling's
    :mod:`tito.core.parsers.inkling`): each only for its own parsers and always there for
    them, with a call parser's state exactly when the request takes calls, in one of that
    parser's phases, and a tool message / block open only then. Why: a router state without
    its parsers, or a call parser's state the request cannot have, would be stepped by code
    that never made it (a 500, or calls the request did not offer)."""
    if (muse is None and inkling is None and cfg.tool_parser not in _ROUTER_TOOLS
            and cfg.reasoning_parser not in _ROUTER_REASONING):
        return  # (the usual model: two set lookups)
    for name, label, state, ours, field in (
            ("muse", "Muse", muse, is_muse(cfg.tool_parser, cfg.reasoning_parser), "kind"),
            ("inkling", "Inkling", inkling, is_inkling(cfg.tool_parser, cfg.reasoning_parser),
             "phase")):
        if state is None and not ours:
            continue
        if state is None or not ours:
            raise _not_issued(f"the {label} router's state does not go with these parsers",
                              f"st.{name}")
        parser = muse_tools(cfg)
        if (state.tools is None) != (parser is None):
            raise _not_issued("a call parser state without calls, or none with them",
                              f"st.{name}.tools")
        if parser is None and getattr(state, field) == "tool":
            raise _not_issued("a tool message without a call parser", f"st.{name}.{field}")
        if (state.tools is not None and parser is not None
                and state.tools.phase not in parser.phases):
            raise _not_issued(f"unknown tool parser phase '{quote(state.tools.phase)}'",
                              f"st.{name}.tools.phase")


def _config_checked(model: ServedModel, cfg: ChoiceConfig, completion: bool) -> list[Any]:
    """The :data:`_CFG_CHECKED` entry of settings that passed :func:`_check_wire_config` for
    this model and endpoint (checked now if not yet; its error raised)."""
    key = (id(cfg), id(model), completion)
    checked = _CFG_CHECKED.get(key)
    if checked is None or checked[0] is not cfg or checked[1] is not model:
        _check_wire_config(model, cfg, completion)  # (a stream's settings: once per process)
        if len(_CFG_CHECKED) >= _MAX_CFG_CHECKED:
            _CFG_CHECKED.clear()
        # (kept alive: ids not reused; the markers' ids asked for by a reasoning state only:
        # a format without markers, harmony's, has none to ask for)
        checked = _CFG_CHECKED[key] = [cfg, model, None]
    return checked


def wire_config_checked(model: ServedModel, cfg: ChoiceConfig,
                        completion: bool) -> list[Any] | None:
    """:func:`_config_checked`, None for settings it refuses (the caller's general path then
    gives the error)."""
    try:
        return _config_checked(model, cfg, completion)
    except BadRequest:
        return None


def _not_issued(message: str, param: str) -> BadRequest:
    return BadRequest(f"stream_state was not issued for this stream: {message}",
                      param=f"stream_state.tito.{param}")


#: (id of a ChoiceConfig, id of a model, completion endpoint) -> [those settings, that model,
#: the reasoning markers' ids once a reasoning state asked for them]: the settings passed
#: :func:`_check_wire_config` for them. Settings are never changed once
#: built, and a stream's states carry the same object (kept as issued, or decoded through
#: ``stream_state_fast``'s cache), so each stream's are checked once per process.
_CFG_CHECKED: dict[tuple[int, int, bool], list[Any]] = {}
_MAX_CFG_CHECKED = 256


def _check_wire_config(model: ServedModel, cfg: ChoiceConfig, completion: bool) -> None:
    """:func:`_check_wire_state`'s checks of the settings alone."""
    bad = _not_issued
    if cfg.completion != completion:
        kind = "completions" if cfg.completion else "chat"
        raise bad(f"it is a {kind} stream state", "cfg.completion")
    reasoning = None if completion else model.config.reasoning_parser
    if cfg.reasoning_parser not in (None, reasoning):
        raise bad("reasoning_parser is not this model's", "cfg.reasoning_parser")
    tool_parser = model.config.tool_parser if cfg.tool_choice != "none" else None
    if cfg.tool_parser != tool_parser or (completion and cfg.tool_choice != "none"):
        raise bad("tool settings are not this model's", "cfg.tool_parser")
    if (cfg.tool_choice == "named") != bool(cfg.named_tool):
        raise bad("named_tool goes with tool_choice 'named'", "cfg.named_tool")


def _markers_of(st: ReasoningState) -> tuple[Any, ...]:
    """A reasoning state's marker fields: its markers' single ids and id sequences (multi-id
    markers: Kimi K3's, PLaMo 3's), the tool call start that ends its block and, last, the call
    end after which it may open again (gemma4's, GLM's)."""
    return (st.start_id, st.end_id, st.start_ids, st.end_ids, st.implicit_end_ids,
            st.implicit_end, st.implicit_end_id, st.call_end_id, st.call_end_ids)


#: where :func:`_markers_of` puts the call end (its last two fields), and what they hold in a
#: state issued before the call end was read (the fields' defaults)
_CALL_END = len(_markers_of(ReasoningState())) - 2
_NO_CALL_END = _markers_of(ReasoningState())[_CALL_END:]


@lru_cache(maxsize=64)
def _marker_ids(vocab: Any, reasoning_parser: str, variant: str = "") -> tuple[Any, ...]:
    """:func:`_markers_of` the state this format starts with in ``vocab`` (once per pair),
    with the request's choice of markers (``variant``): a state whose markers differ was not
    issued for this stream (it would count or split on other ids)."""
    return _markers_of(initial(get_reasoning_parser(reasoning_parser, variant), vocab, []))