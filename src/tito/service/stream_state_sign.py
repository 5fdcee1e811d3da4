"""A stream state's signature: HMAC-SHA256 over its canonical JSON (``TITO_STATE_SECRET``).

Why a module of its own: :mod:`tito.service.stream_state` encodes, decodes and checks the
state; signing is one self-contained piece of that (the canonical JSON is written by
:mod:`tito.service.stream_state_fast`, the signature computed here), used by its encode and
decode and by the one-pass decode of a call (:mod:`tito.service.stream_state_call`). The
HMAC is computed from two precomputed SHA-256 states per secret (RFC 2104's inner and outer
keyed hashes), which a signed call copies instead of keying an ``hmac.HMAC`` anew.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tito.service.stream_state_fast import _canonical, _canonical_utf8

__all__ = ["_mac", "_sign"]


#: the secret -> the SHA-256 states of its HMAC's inner and outer hashes with their padded key
#: hashed (RFC 2104): keying costs more than hashing a state, and copying these two is cheaper
#: than copying an ``hmac.HMAC`` (``tests/test_stream_state_issued.py`` checks the signatures
#: against the standard library's)
_KEYED: dict[bytes, tuple[Any, Any]] = {}


def _sign(obj: dict[str, Any], key: bytes, *, ascii_form: bool = False) -> str:
    """HMAC-SHA256 of the canonical JSON (its UTF-8 form; ``ascii_form``: the escaped one),
    hex."""
    return _mac(_canonical(obj) if ascii_form else _canonical_utf8(obj), key)


def _mac(data: bytes, key: bytes) -> str:
    """HMAC-SHA256 of ``data`` (a state's canonical JSON, written by the caller), hex."""
    keyed = _KEYED.get(key)
    if keyed is None:
        if len(_KEYED) > 4:  # (a rotated secret)
            _KEYED.clear()
        block = (hashlib.sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")
        keyed = _KEYED[key] = (hashlib.sha256(block.translate(_IPAD)),
                               hashlib.sha256(block.translate(_OPAD)))
    inner, outer = keyed[0].copy(), keyed[1].copy()
    inner.update(data)
    outer.update(inner.digest())
    return outer.hexdigest()


_IPAD = bytes(x ^ 0x36 for x in range(256))  #: byte -> byte XOR the inner pad
_OPAD = bytes(x ^ 0x5C for x in range(256))
