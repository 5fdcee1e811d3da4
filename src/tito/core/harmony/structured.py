"""Structured outputs on gpt-oss: the constraint applies to the ``final`` channel only.

Why: a JSON schema, regex or choice constraining the whole output would forbid harmony's own
structure (``<|channel|>analysis<|message|>...``). vLLM 0.33 (``vllm/parser/harmony.py``,
``_adjust_output_format``) turns the request's constraint into an xgrammar structural tag::

    sequence(
      optional(sequence(tag("<|channel|>analysis<|message|>", any_text, "<|end|>"),
                        const_string("<|start|>assistant"))),
      tag("<|channel|>final<|message|>", CONSTRAINT, ["<|end|>", ""]))

where a JSON constraint (``json``, ``json_object``) accepts both ``<|channel|>final json`` and
``<|channel|>final <|constrain|>json`` headers, and a request's own structural tag puts its
``format`` there. This module writes that tag as the same JSON text vLLM sends to the engine.
An EBNF ``grammar`` goes there as it is, a Lark one converted to EBNF as xgrammar prints it
(:mod:`tito.core.lark_convert`; a Lark grammar tito does not port, with `%json` for
instance, is passed through unchanged, the documented deviation). Tool calls (required / named
/ strict) are :mod:`tito.core.parsers.tools.structural`'s ``harmony`` format, which keeps this
tag as the or-format's other branch for ``auto``.
"""

from __future__ import annotations

import json
from typing import Any

from tito.core.parsers.tools.structural import constraint_format
from tito.core.parsers.tools.structural_dump import dump_format
from tito.core.parsers.tools.structural_formats import harmony_preamble
from tito.core.parsers.tools.structural_nodes import one_of, sequence, tag
from tito.core.structured_check import NESTING_MESSAGE, too_deep
from tito.core.tag_model import legacy_tag_format, structural_tag_model_error
from tito.errors import BadRequest

__all__ = ["harmony_constraint_format", "harmony_structured_outputs"]

_END = ["<|end|>", ""]
_KINDS = ("json_object", "json", "regex", "choice", "grammar", "structural_tag")


def _final(constrain: str, content: dict[str, Any]) -> dict[str, Any]:
    return tag(f"<|channel|>final{constrain}<|message|>", content, _END)


def harmony_constraint_format(structured: dict[str, Any] | None) -> dict[str, Any] | None:
    """The constraint's xgrammar format as vLLM 0.33's harmony parser reads it
    (``structured_outputs_to_format``): :func:`constraint_format`'s checks, then a request's
    own structural tag read into xgrammar's models (:mod:`tito.core.tag_model`): a tag they
    refuse is vLLM's 400, no param (a Responses body's ``{"format": 5}``, a format of an unknown
    type or without one; tito rendered them, or crashed on the last). A legacy tag
    (``structures`` + ``triggers``) is vLLM's ``TriggeredTagsFormat`` of its structures
    (:func:`legacy_tag_format`), checked and dumped by the same models (a ``schema`` of
    ``"yes"`` is ``true``; ``triggers: null`` or a ``begin`` of ``5`` their 400: tito passed
    the legacy form through unchecked). The tag's JSON text is parsed once, here: the parsed
    value is what :func:`constraint_format` reads."""
    raw = (structured or {}).get("structural_tag")
    if structured is None or raw is None or any(
            structured.get(k) not in (None, False) for k in _KINDS[:-1]):
        return constraint_format(structured)
    parsed = raw
    if isinstance(raw, str):  # (a chat body's tag was checked with the body)
        if too_deep(raw, structural_tag=True):
            raise BadRequest(NESTING_MESSAGE, param=None)
        try:
            parsed = json.loads(raw)
        except ValueError as exc:  # vLLM's json.loads error, its 400
            raise BadRequest(str(exc), param=None) from None
    if not isinstance(parsed, dict):
        error = structural_tag_model_error(parsed)
    elif "structures" in parsed:
        try:
            fmt = legacy_tag_format(parsed)
        except KeyError as exc:  # (vLLM's KeyError: its 500)
            raise BadRequest(f"a legacy structural tag needs its key {exc}", param=None) \
                from None
        except TypeError as exc:
            raise BadRequest(str(exc), param=None) from None
        error = structural_tag_model_error({"format": fmt})
        if error is None:
            return dump_format(fmt)
    else:
        error = structural_tag_model_error(parsed)
    if error is not None:
        raise BadRequest(f"1 validation error for StructuralTag: {error}", param=None)
    return constraint_format({**structured, "structural_tag": parsed})


def harmony_structured_outputs(structured: dict[str, Any] | None) -> dict[str, Any] | None:
    """The engine's ``structured_outputs`` for a harmony model (see the module header)."""
    if not structured:
        return structured
    fmt = harmony_constraint_format(structured)
    if fmt is None:
        return structured
    if fmt["type"] == "json_schema":  # the format whole (a tag's own style, any_order, ...)
        final = one_of([_final(c, fmt) for c in (" json", " <|constrain|>json")])
    else:
        final = _final("", fmt)
    out = {k: v for k, v in structured.items() if k not in _KINDS}
    tag_ = {"type": "structural_tag", "format": sequence(harmony_preamble("analysis"), final)}
    try:
        out["structural_tag"] = json.dumps(tag_)
    except RecursionError:  # a schema nested near the body parser's limit, a few levels deeper
        raise BadRequest("structured output constraint is nested too deeply to write as a "
                         "structural tag", param="response_format") from None
    return out
