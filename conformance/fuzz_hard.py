"""A seeded mutation fuzzer of every route's hand-checked fast paths against the validated path.

Why: the render and derender functions serve plain ASGI apps (``RenderApp``, ``DerenderApp``)
whose fast paths (orjson body parsing, the streamed body check, the chat body, the render wire
dicts) bypass pydantic; a 500 or a silent divergence hides there. The reference is the FastAPI
app (pydantic for every body) and, for derender, ``DerenderApp`` with its fast path switched off.

Seeds: the valid bodies in ``events/*.json`` (and ``events/streams``), the conformance goldens'
requests, and streamed states made by the app itself. Each case mutates one seed a few times
(keys dropped or duplicated, wrong types, huge/negative/float/bool numbers, NaN/Infinity literals,
deep nesting, long strings, lone surrogates, truncated JSON, wrong content type, mutated
``stream_state`` strings) and checks: status < 500, errors in OpenAI's shape, the plain app's
answer equal to the reference's (random ids and clocks aside), and < 1 s of CPU per request.

    PYTHONPATH=src python3 conformance/fuzz_hard.py --seed 1 -n 2000
"""

from __future__ import annotations

import argparse
import copy
import fnmatch
import json
import math
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tito.adapters.app import create_app
from tito.adapters.asgi import DerenderApp
from tito.adapters.asgi_render import RENDER_ENDPOINTS, RenderApp
from tito.models.registry import get_registry

ROOT = Path(__file__).resolve().parent.parent
DERENDER = ["chat_derender", "completions_derender", "responses_derender"]
#: random ids: a response's (16 hex digits), a tool call's derived from it (24 after
#: ``chatcmpl-tool-``: seed 189 case 990, a batch without ``request_id``, diverged by the 8 left
#: when only 16 were replaced), uuid-style (32)
_IDS = re.compile(rb"[0-9a-f]{32}|[0-9a-f]{24}|[0-9a-f]{16}")
_CLOCK = re.compile(rb'"(created|created_at)":\s?[0-9]+')
#: a Mistral tool-call id (9 alphanumerics) derives from the response id, random when the body
#: names no request_id (seed 909 case 728); other formats' call ids are hex, caught by _IDS
_MISTRAL_CALL_ID = re.compile(rb'"id":\s?"[A-Za-z0-9]{9}"')


def seeds() -> list[tuple[str, Any]]:
    """(path, body) from the events and the goldens (JSON bodies only)."""
    out: list[tuple[str, Any]] = []
    for path in sorted((ROOT / "events").rglob("*.json")):
        try:
            event = json.loads(path.read_text())
            body = json.loads(event["body"])
            route = event.get("rawPath") or event["requestContext"]["http"]["path"]
        except (KeyError, TypeError, ValueError):
            continue
        if isinstance(body, dict):
            out.append((route, body))
    for path in sorted((ROOT / "conformance" / "goldens").glob("*.json")):
        cases = json.loads(path.read_text()).get("cases", {})
        for case in (cases.values() if isinstance(cases, dict) else cases):
            if isinstance(case, dict) and isinstance(case.get("request"), dict) and case.get("path"):
                out.append((case["path"], case["request"]))
    return out


WEIRD: list[Any] = [None, True, False, 0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**30, 1.5, -0.0,
                    1e308, 1e-320, "", "x" * 5000, "\ud800", "\udc00x", "é\u0000", [], {},
                    [[[[[[]]]]]], {"a": {"b": {"c": {}}}}, "NaN", "1", "true", [None], [1.5],
                    {"": None}, ["\ud83d"], 3.0, 2.5e10]
LITERALS = [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1e999", b"123456789012345678901234567890",
            b"1.0", b"-0", b"true", b'"\\ud800"', b'"\\udfff\\ud800"']


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``obj`` (keys and list indexes), the empty path first, in depth-first
    order: the places a mutation can hit (shared with tests/test_fuzz_endpoints.py). Walked
    without recursion: a deep value put inside another (500 levels each) is deeper than the
    interpreter's stack (seed 303 ended in a RecursionError here)."""
    out: list[tuple[Any, ...]] = []
    todo: list[tuple[tuple[Any, ...], Any]] = [(prefix, obj)]
    while todo:
        where, item = todo.pop()
        out.append(where)
        if isinstance(item, dict):
            todo += [(where + (k,), v) for k, v in reversed(item.items())]
        elif isinstance(item, list):
            todo += [(where + (i,), v) for i, v in reversed(list(enumerate(item)))]
    return out


def _value(rng: random.Random, old: Any) -> Any:
    r = rng.random()
    if isinstance(old, bool) and r < 0.3:
        return rng.choice([0, 1, "true", None])
    if isinstance(old, int) and r < 0.5:
        return rng.choice([old + 1, -old - 1, float(old), old * 2**40, bool(old), str(old), 2**64])
    if isinstance(old, float) and r < 0.5:  # (the goldens' requests hold NaN / Infinity too)
        return rng.choice([int(old) if math.isfinite(old) else old, -old, old * 1e300, str(old),
                           1e-310])
    if isinstance(old, str) and r < 0.5:
        return rng.choice([old * 200, old[:-1], old + "\ud800", "", old.upper(), old[::-1],
                           old[: len(old) // 2], None])
    if isinstance(old, list) and r < 0.5:
        # (a copy: an element of WEIRD put in a body by reference grew with later mutations
        # in place, case after case, until deepcopy overflowed the stack: seed 129)
        return rng.choice([old * 3, old[:1], [], [old], old + [copy.deepcopy(rng.choice(WEIRD))]])
    if isinstance(old, dict) and r < 0.5:
        return rng.choice([{}, [old], {**old, "x": 1}])
    if r < 0.6:
        deep: Any = 0
        for _ in range(rng.choice([10, 100, 500])):
            deep = rng.choice([[deep], {"a": deep}])
        return deep
    return copy.deepcopy(rng.choice(WEIRD))


def mutate(rng: random.Random, body: Any) -> Any:
    body = copy.deepcopy(body)
    for _ in range(rng.randint(1, 3)):
        where = rng.choice(paths(body))
        if not where:
            if rng.random() < 0.1:
                body = _value(rng, body)
            continue
        target = body
        for key in where[:-1]:
            target = target[key]
        how = rng.random()
        if how < 0.2 and isinstance(target, dict):
            del target[where[-1]]
        elif how < 0.3 and isinstance(target[where[-1]], dict):
            target[where[-1]][rng.choice(["tito", "x", "stream", "index", "type", "role"])] = \
                copy.deepcopy(rng.choice(WEIRD))
        else:
            target[where[-1]] = _value(rng, target[where[-1]])
    return body


def _dumps(body: Any, ensure_ascii: bool) -> str:
    """``json.dumps``, also for values nested past the interpreter's stack (two deep mutations
    inside each other): those are written without recursion."""
    try:
        return json.dumps(body, ensure_ascii=ensure_ascii)
    except RecursionError:
        pass
    out: list[str] = []
    todo: list[Any] = [body]
    while todo:
        item = todo.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict) and item:
            parts: list[Any] = [_Raw("{")]
            for n, (k, v) in enumerate(item.items()):
                parts += [_Raw((", " if n else "") + json.dumps(str(k), ensure_ascii=ensure_ascii)
                               + ": "), v]
            todo += reversed([*parts, _Raw("}")])
        elif isinstance(item, list) and item:
            parts = [_Raw("[")]
            for n, v in enumerate(item):
                parts += [_Raw(", ")] if n else []
                parts.append(v)
            todo += reversed([*parts, _Raw("]")])
        else:
            out.append(json.dumps(item, ensure_ascii=ensure_ascii))
    return "".join(out)


class _Raw:
    """Text :func:`_dumps` writes as it is."""

    def __init__(self, text: str) -> None:
        self.text = text


def _encode(rng: random.Random, body: Any) -> tuple[bytes, str]:
    """The body's bytes (sometimes broken at the byte level) and a content type."""
    raw = _dumps(body, rng.random() < 0.5).encode("utf-8", "surrogatepass")
    r = rng.random()
    if r < 0.05:
        raw = raw[: rng.randrange(max(1, len(raw)))]
    elif r < 0.15:
        # a number or string literal swapped for NaN/Infinity/huge/lone surrogate
        spots = [m.start() for m in re.finditer(rb"(?<=[:\[,] )-?[0-9]+(\.[0-9]+)?|(?<=[:\[,])-?[0-9]+", raw)]
        if spots:
            at = rng.choice(spots)
            end = at + 1
            while end < len(raw) and raw[end:end + 1] in b"0123456789.eE+-":
                end += 1
            raw = raw[:at] + rng.choice(LITERALS) + raw[end:]
    elif r < 0.2 and raw.startswith(b"{") and len(raw) > 2:
        # a duplicated key: the first key again, last wins for json, first kept by nobody
        first = raw[1:].split(b",", 1)[0]
        raw = b"{" + first + b", " + raw[1:]
    elif r < 0.22:
        raw = raw.replace(b'"', b"'", 1)
    ctype = rng.choice(["application/json"] * 12 + ["text/plain", "", "application/json; charset=utf-8",
                                                     "application/x-www-form-urlencoded"])
    return raw, ctype


def _norm(content: bytes) -> bytes:
    return _MISTRAL_CALL_ID.sub(b'"id":"<id>"', _CLOCK.sub(rb'"\1":0', _IDS.sub(b"<id>", content)))


def _stack_bound(ref: Any, raw: bytes) -> bool:
    """Whether the FastAPI reference's "error parsing the body" is its stack running out: a body
    ``json`` reads here, nested near the interpreter's recursion limit, where the reference's own
    frames (Starlette's middleware, the test client's thread) leave ``json.loads`` fewer levels
    than tito's parser reads (orjson: 1,024), so the two answers differ by where the stack ends,
    not by a rule (seed 132 case 1432: 977 levels). ``json`` decides here with room on the stack
    (the caller's own depth, pytest's included, is no limit of the body's)."""
    if ref.status_code != 400 or b"There was an error parsing the body" not in ref.content:
        return False
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 2000)
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return False
    finally:
        sys.setrecursionlimit(limit)
    return True


def _shape(resp: Any) -> str | None:
    if resp.status_code >= 500:
        return "5xx"
    if resp.status_code >= 400:
        try:
            err = resp.json()["error"]
            assert set(err) >= {"message", "type", "param", "code"} and isinstance(err["message"], str)
        except Exception:  # noqa: BLE001 - any failure here is the finding
            return "error shape"
    return None


class Apps:
    """The reference (FastAPI) and the plain apps, built once."""

    def __init__(self) -> None:
        # every model loaded before the first timed request: the registry loads a model on its
        # first use (issue 15's lazy cold start), over a second of CPU for gpt-oss, which is
        # no request's own cost (seed 111's case 35 was gpt-oss's first request)
        get_registry().load_all()
        self.ref = TestClient(create_app(), raise_server_exceptions=False)
        self.render = TestClient(RenderApp(sorted(RENDER_ENDPOINTS)), raise_server_exceptions=False)
        self.derender = TestClient(DerenderApp(DERENDER), raise_server_exceptions=False)
        slow = DerenderApp(DERENDER)
        slow._fast = {}  # the plain app without its fast path: pydantic for every body
        self.validated = TestClient(slow, raise_server_exceptions=False)

    def check(self, path: str, raw: bytes, ctype: str) -> list[tuple[str, str]]:
        """(kind, detail) of every finding for one request (empty: all well)."""
        headers = {"content-type": ctype} if ctype else {}
        derender = path.endswith("/derender")
        clients = ([("ref", self.ref), ("lean", self.derender), ("validated", self.validated)]
                   if derender else [("ref", self.ref), ("lean", self.render)])
        out: list[tuple[str, str]] = []
        answers = {}
        for name, client in clients:
            t0 = time.process_time()
            resp = client.post(path, content=raw, headers=headers)
            cpu = time.process_time() - t0
            answers[name] = resp
            for kind in [_shape(resp), "slow" if cpu > 1.0 else None]:
                if kind:
                    out.append((f"{kind} {name} {path}", f"cpu={cpu:.2f}s {resp.status_code} "
                                f"{resp.content[:300]!r}"))
        # the fast path against the validated path: byte for byte (derender: the plain app
        # without its fast path; render: the FastAPI app)
        base = answers["validated" if derender else "ref"]
        lean = answers["lean"]
        stack = _stack_bound(answers["ref"], raw)
        if stack and not derender:
            return out
        if (lean.status_code, _norm(lean.content)) != (base.status_code, _norm(base.content)):
            out.append((f"diverges lean {path}", f"{base.status_code} {base.content[:300]!r}"
                        f" != {lean.status_code} {lean.content[:300]!r}"))
        if derender and not stack and answers["ref"].status_code != lean.status_code:
            out.append((f"status differs from fastapi {path}",
                        f"{answers['ref'].status_code} != {lean.status_code}"))
        return out


def streamed_seeds(apps: Apps, pool: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Continuations: the state a first streamed call returns, fed back (the fast path's input)."""
    out = []
    for path, body in pool:
        if path.endswith("/derender") and body.get("stream") and body.get("generate_chunk"):
            resp = apps.derender.post(path, json=dict(body, stream_state=None))
            if resp.status_code == 200:
                out.append((path, dict(body, stream_state=resp.json()["stream_state"])))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=500)
    ap.add_argument("--show", type=int, default=3, help="examples printed per kind")
    ap.add_argument("--paths", default="*", help="fnmatch pattern of the routes to fuzz "
                    "(e.g. '/v1/responses/*')")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    apps = Apps()
    pool = seeds()
    pool += streamed_seeds(apps, pool)
    pool = [(path, body) for path, body in pool if fnmatch.fnmatchcase(path, args.paths)]
    found: Counter[str] = Counter()
    routes: Counter[str] = Counter()
    for i in range(args.n):
        path, body = rng.choice(pool)
        raw, ctype = _encode(rng, mutate(rng, body))
        routes[path] += 1
        for kind, detail in apps.check(path, raw, ctype):
            found[kind] += 1
            if found[kind] <= args.show:
                print(f"[{i}] {kind}: {detail}\n  body={raw[:400]!r} ctype={ctype!r}")
    print(f"\n{args.n} cases from {len(pool)} seeds, routes: {dict(routes)}")
    for key, count in sorted(found.items()):
        print(f"  {count:5d}  {key}")
    print("no findings" if not found else f"{sum(found.values())} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
