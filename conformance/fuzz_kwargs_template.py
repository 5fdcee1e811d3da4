"""The ``chat_template`` inside ``chat_template_kwargs`` draw of ``fuzz_render.py``.

Why: vLLM 0.33 reads a template there on every chat-like route -- its ``validate_chat_template``
refuses it (not null) unless the server trusts request templates, before anything else on the
Responses render, after its request checks on the chat render and ``/tokenize``; a trusted
server renders with it -- and tito has code for each of those places
(``render_chat_parts.check_request_template`` and the callers), which the fuzzer's own
``chat_template_kwargs`` values never reached.

What is drawn (:func:`add_kwargs_template`, on a body already built): now and then, on a chat,
``/tokenize`` chat, Responses or Messages body whose ``chat_template_kwargs`` is absent or an
object, a ``chat_template`` key in it: a working template, a broken one, null, ``""`` or a
non-string. The draws come from the case's own generator for them (seeded from the case's
name), so every other draw of a case -- and so each case an earlier seed generated -- stays
what it was.
"""

from __future__ import annotations

import random
from typing import Any

#: the routes whose bodies take ``chat_template_kwargs``
ROUTES = ("/v1/chat/completions/render", "/tokenize", "/v1/responses/render",
          "/v1/messages/render")
#: the share of those bodies that get a template in their kwargs
SHARE = 0.1
TEMPLATES: list[Any] = ["{{ messages[0].content }}", "{% bad", None, "", 5,
                        "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"]


def add_kwargs_template(r: random.Random, path: str, body: dict[str, Any]) -> None:
    """Put a drawn ``chat_template`` into ``body``'s ``chat_template_kwargs`` (a share of the
    bodies of :data:`ROUTES` only; a ``/tokenize`` body only when it has messages)."""
    if r.random() >= SHARE or path not in ROUTES:
        return
    if path == "/tokenize" and "messages" not in body:
        return
    kwargs = body.get("chat_template_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        return
    body["chat_template_kwargs"] = {**(kwargs or {}),
                                    "chat_template": TEMPLATES[r.randrange(len(TEMPLATES))]}
