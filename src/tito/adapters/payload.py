"""Lambda's payload limit, measured as Lambda measures it: the body inside the event.

Why not the body's own size: a synchronous invocation takes at most 6 MB (6 MiB) of *event* and
returns at most 6 MB of *answer*, and both carry the HTTP body as a JSON string. API Gateway's
event and Lambda's Python runtime (3.12+: ``ensure_ascii=False``) escape that string: every
``"`` and ``\\`` becomes two bytes, and so do the ``\\n``, ``\\r``, ``\\t`` a JSON text may hold
between tokens; UTF-8 stays as it is. Logprobs JSON is 10-15% quotes, so a 5.5 MB body is
already over. :func:`event_bytes` is that escaped size; the functions' 413s (request and
answer) and the client's split decision (:mod:`tito.adapters.batch_split`) all compare it with
the same limit, by default :data:`MAX_EVENT_BODY_BYTES` (Lambda's 6 MB less room for the rest of
the event), so a call the client sends whole is one the function takes.
"""

from __future__ import annotations

__all__ = ["ENVELOPE_BYTES", "LAMBDA_PAYLOAD_BYTES", "MAX_EVENT_BODY_BYTES", "event_bytes",
           "over_limit"]

#: Lambda's limit on a synchronous invocation's event and on its answer (6 MB = 6 MiB).
LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024
#: Room for what the event or the proxy answer holds besides the body: API Gateway's headers and
#: request context (~1-3 kB), the answer's status and headers (~150 bytes).
ENVELOPE_BYTES = 8 * 1024
#: The largest body, escaped as the event carries it, that fits a Lambda payload.
MAX_EVENT_BODY_BYTES = LAMBDA_PAYLOAD_BYTES - ENVELOPE_BYTES

#: The bytes a JSON string escape doubles (valid JSON holds no other control bytes)
_DOUBLED = b'"\\\n\r\t'


def event_bytes(body: bytes) -> int:
    """The bytes ``body`` takes once carried in a Lambda event or proxy answer (a JSON string:
    ``"``, ``\\``, newline, carriage return and tab escaped to two bytes, UTF-8 kept)."""
    return 2 * len(body) - len(body.translate(None, _DOUBLED))


def over_limit(body: bytes, limit: int) -> bool:
    """Is :func:`event_bytes` of ``body`` over ``limit``? Counted only when it could be (an
    escape at most doubles a byte), so small bodies cost one comparison."""
    return 2 * len(body) > limit and event_bytes(body) > limit
