"""A stream state this process did not issue, decoded in one pass for a hand-read call.

Why a module of its own: on a serverless deployment any sandbox serves any chunk, so most
states a warm sandbox is sent were issued by another one and are decoded and checked on every
call. :func:`tito.service.stream_state.decode` does that through layers (the ``tito`` object
checked into a ``TitoState``, the window rebuilt by ``detokenizer.state_from_tokens`` with its
placeholder rules, the vLLM fields converted again), which cost a streamed call more than its
core step. :func:`decode_checked` is that decode for the common case only, in one function: a
state whose vLLM fields :func:`tito.service.stream_body.read` already checked (every field
present, exact JSON types, bounds), a ``tito`` object of the exact types and bounds
``TitoState`` declares, a window of vocabulary strings only (no ``""`` placeholder), settings and
choice state as ``stream_state_fast`` decodes them. Anything else (or anything it would refuse:
a bad signature, an expired or foreign state) is None, and ``decode`` then decodes it and gives
the error it always did. What it returns equals ``decode``'s
(``tests/test_stream_state_call.py`` compares both on real and tampered states).

A signed state is checked as an unsigned one is, after its signature. Its HMAC proves only that
a tito holding the same secret wrote it: the secret is the deployment's, shared by every
function (a chat state may be sent to the completions function, a state of one model to
another's) and by every release (one of another release may write other fields under the same
``tito.v``), so the checks against this model, endpoint and release still decide. They are
also not what a miss costs: the signature's canonical JSON and HMAC, twice per call (verify,
then sign), cost more than all of them; the work cut from a miss is the repeated kind (a
thinking block's parser state validated again for each count, the window's strings read
through the tokenizer, the meta dumped again: ``stream_state_fast``, ``Vocab.exact_tokens``).
"""

from __future__ import annotations

import hmac
import time
from typing import Any

from tito.core.detok_state import MAX_WINDOW, DetokState
from tito.core.pipeline import ChoiceConfig, ChoiceState
from tito.core.vocab import Vocab
from tito.service.stream_state import StreamMeta, _sign, _tito_fast
from tito.service.stream_state_fast import _choice_from
from tito.service.stream_state_kept import _secret, _ttl_seconds

__all__ = ["decode_checked"]

_construct_detok = DetokState._construct


def decode_checked(vocab: Vocab, raw: dict[str, Any], model: str
                   ) -> tuple[StreamMeta, ChoiceConfig, ChoiceState] | None:
    """``stream_state.decode(vocab, raw, model=model, sent=<every field>)`` for a state that
    :func:`tito.service.stream_body.read` took (see the module header), or None (``decode``
    then decodes it, and refuses it as it would)."""
    tito = raw["tito"]
    if tito is None:
        return None
    fast = _tito_fast(tito)
    if fast is None:
        return None
    meta = fast[0]
    if meta.model != model:
        return None
    key = _secret()
    if key is not None:
        sig = tito.get("sig")
        if sig is None or not sig.isascii():
            return None
        # the state without its signature is ``raw`` with ``sig`` taken out of its ``tito`` for
        # the signing, then put back (its place among the keys is not read: the signature's
        # JSON sorts them, the decode reads each by name): no copy of either object
        del tito["sig"]
        try:
            expected = _sign(raw, key)
        finally:
            tito["sig"] = sig
        if not hmac.compare_digest(sig, expected):
            return None
    ttl = _ttl_seconds()
    if ttl is not None and time.time() - meta.created > ttl:
        return None
    tokens, prefix, read = raw["prev_tokens"], raw["prefix_offset"], raw["read_offset"]
    if not prefix <= read <= len(tokens) <= MAX_WINDOW or "" in tokens:
        return None  # ("": vLLM's placeholder, which decode drops)
    window = vocab.token_ids(tokens)
    if None in window:  # a string not of this vocabulary: decode's error
        return None
    state = _choice_from(fast[2], _construct_detok(window, prefix, read), raw["held_text"],
                         raw["logprob_text_offset"], raw["logprob_context_token_ids"],
                         raw["role_sent"])
    if state is None:
        return None
    return meta, fast[1], state
