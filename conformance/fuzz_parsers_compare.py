"""How :mod:`fuzz_parsers` compares a vLLM 0.33.0 parser result with tito's: the kinds of
difference (:func:`compare`) and the value tests :mod:`fuzz_parsers_classify` judges them with
(same call, arguments holding more, values typed from the schema, text only added).

Why a module of its own: these know no format, only results (``{reasoning, content, calls}``,
arguments as JSON text); the classifier's per-format rules stay readable apart from them.
"""

from __future__ import annotations

import json


def _json_equal(a: str, b: str) -> bool:
    try:
        return json.loads(a) == json.loads(b)
    except (ValueError, TypeError):
        return False


def _keys(args: str) -> list[str]:
    """The top-level keys of arguments that are a JSON object (else none)."""
    try:
        value = json.loads(args)
    except (ValueError, TypeError):
        return []
    return list(value) if isinstance(value, dict) else []


def _strip_keys(args: str) -> str:
    """vLLM's batch arguments with their keys stripped (as its stream writes them)."""
    try:
        value = json.loads(args)
    except (ValueError, TypeError):
        return args
    if not isinstance(value, dict):
        return args
    return json.dumps({k.strip(): v for k, v in value.items()}, ensure_ascii=False)


def _subsequence(short, long, same=None) -> bool:
    """Whether ``short``'s items (characters, calls) appear in ``long`` in order (``long`` only
    adds some); ``same``: the items' equality."""
    it = iter(long)
    if same is None:
        return all(c in it for c in short)
    return all(any(same(c, d) for d in it) for c in short)


def _subdict(want: str, got: str) -> bool:
    """Whether tito's arguments ``got`` hold all of vLLM's ``want`` and more (a value vLLM's
    batch dropped)."""
    try:
        w, g = json.loads(want), json.loads(got)
    except (ValueError, TypeError):
        return False
    return isinstance(w, dict) and isinstance(g, dict) and all(
        k in g and _typed(w[k], g[k]) for k in w)


def _same_call(a: list, b: list) -> bool:
    return a[0] == b[0] and (a[1] == b[1] or _json_equal(a[1], b[1]))


def _kept_call(a: list, b: list) -> bool:
    """vLLM's call ``a`` is tito's ``b``, or ``b`` only keeps values vLLM's batch dropped
    (``value_kept``: a parameter whose closing markup is misspelt)."""
    return _same_call(a, b) or a[0] == b[0] and _subdict(a[1], b[1])


def _typed_equal(want: str, got: str) -> bool:
    """Whether vLLM's batch arguments ``want`` are tito's ``got`` with values typed from the
    tool's schema (granite / kimi_k2 / mistral's batch: ``42`` as ``"42"`` for a string,
    ``"42"`` as ``42`` for an integer, ``"null"`` as ``null`` for a nullable one, ``1e-0`` as
    ``1``), which their streams do only while the bytes already sent stay a prefix."""
    try:
        return _typed(json.loads(want), json.loads(got))
    except (ValueError, TypeError):
        return False


def _typed(w, g) -> bool:
    if isinstance(w, dict) and isinstance(g, dict):
        return w.keys() == g.keys() and all(_typed(w[k], g[k]) for k in w)
    if isinstance(w, list) and isinstance(g, list):
        return len(w) == len(g) and all(_typed(a, b) for a, b in zip(w, g))
    if w == g and type(w) is type(g) or (isinstance(w, (int, float)) and isinstance(g, (int, float))
                                         and not isinstance(w, bool) and not isinstance(g, bool)
                                         and w == g):
        return True
    if isinstance(w, str) and not isinstance(g, str):
        return w in (json.dumps(g), str(g))  # a string property: the model wrote another type
    # a typed property the model wrote as a string (``"42"`` for an integer, ``"null"``)
    return isinstance(g, str) and g in (json.dumps(w, ensure_ascii=False), str(w))


def _bracket_cut(wc: list, gc: list, gcont: str) -> bool:
    """Whether tito's calls are vLLM's but for arguments vLLM took whole and not JSON, which
    tito's end early at a bracket (its scanner counts brackets, not their kinds: a ``]`` closes
    a ``{``), the rest of them in tito's content."""
    cut = len(wc) == len(gc)
    for (wn, wa), (gn, ga) in zip(wc, gc) if cut else ():
        if wn != gn:
            return False
        if wa != ga and not _json_equal(wa, ga):
            rest = wa[len(ga) :].strip()
            if _json_equal(wa, wa) or not wa.startswith(ga) or ga[-1:] not in ("]", "}") \
                    or not rest or rest not in gcont:
                return False
            cut = "done"
    return cut == "done"


def compare(want: dict, got: dict) -> list[str]:
    """The kinds of difference between a normalised vLLM result and tito's."""
    kinds = []
    for field in ("reasoning", "content"):
        if want.get(field) != got.get(field):
            kinds.append(field)
    wc, gc = want.get("calls") or [], got.get("calls") or []
    if len(wc) != len(gc):
        kinds.append("n_calls")
    else:
        for (wn, wa), (gn, ga) in zip(wc, gc):
            if wn != gn:
                kinds.append("name")
            elif wa != ga:
                kinds.append("args_bytes" if _json_equal(wa, ga) else "args")
    return sorted(set(kinds))
