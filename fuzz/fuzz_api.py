"""The long fuzzing run behind the README's reliability figures (one command).

    python fuzz/fuzz_api.py [--examples 1500] [--states 2000] [--events 1000]

1. schemathesis over tito's OpenAPI document: ``--examples`` positive and negative cases per
   operation, each checked for a 5xx, an undocumented status code and a response that does not
   match its schema;
2. ``--states`` mutations of a mid-stream state (one field replaced by junk or removed), signed
   (``TITO_STATE_SECRET`` set: every changed state must be refused) and unsigned (never a 5xx);
3. ``--events`` mutated Lambda events through a function handler (never an exception or a 5xx).

Prints one JSON object with the counts. ``tests/test_fuzz_openapi.py`` and
``tests/test_fuzz_events_states.py`` run the same properties with few examples in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]
os.environ.setdefault("POWERTOOLS_LOG_DEDUPLICATION_DISABLED", "1")


def fuzz_openapi(examples: int) -> dict[str, Any]:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

    from tito.adapters.app import create_app
    from tito.models import get_registry

    get_registry()
    checks = (not_a_server_error, status_code_conformance, content_type_conformance,
              response_schema_conformance)
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            @settings(max_examples=examples // 2, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                try:
                    response = case.call(timeout=120)
                except Exception as exc:  # noqa: BLE001 - an exception in the app is a 500
                    statuses[500] += 1
                    failures.append(f"{operation.label}: raised {type(exc).__name__}: "
                                    f"{str(exc)[:300]}")
                    return
                statuses[response.status_code] += 1
                try:
                    case.validate_response(response, checks=checks)
                except Exception as exc:  # noqa: BLE001 - counted and reported, not raised
                    failures.append(f"{operation.label}: {str(exc)[:300]}")

            try:
                run()
            except Unsatisfiable:  # e.g. no invalid request exists for GET /health
                pass
    return {"requests": sum(statuses.values()),
            "server_errors": sum(n for s, n in statuses.items() if s >= 500),
            "statuses": dict(sorted(statuses.items())), "check_failures": len(failures),
            "first_failures": failures[:5]}


def _mutations(obj: Any, count: int, *, root: bool = True) -> list[Any]:
    from hypothesis import HealthCheck, given, settings
    from test_fuzz_events_states import mutation

    out: list[Any] = []

    @settings(max_examples=count, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(value=mutation(obj, root=root))
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out


def fuzz_states(count: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient
    from test_fuzz_events_states import DERENDER, FIRST, NEXT_CHUNK

    from tito.adapters.app import create_app

    report: dict[str, Any] = {}
    for signed in (False, True):
        if signed:
            os.environ["TITO_STATE_SECRET"] = "fuzz-" + "k" * 32
        client = TestClient(create_app(), raise_server_exceptions=False)
        state = client.post(DERENDER, json=FIRST).json()["stream_state"]

        def call(s: Any) -> Any:
            return client.post(DERENDER, json={"stream": True, "model": "qwen3",
                                               "stream_state": s, "generate_chunk": NEXT_CHUNK})

        honest = call(state).json()
        honest_state = honest["stream_state"]
        statuses: Counter[int] = Counter()
        changed = rejected = same_output = 0
        for tampered in _mutations(state, count, root=False):
            resp = call(tampered)
            statuses[resp.status_code] += 1
            if tampered != state:
                changed += 1
                rejected += resp.status_code == 400
                same_output += resp.status_code == 200 and resp.json() == honest
        key = "signed" if signed else "unsigned"
        report[key] = {"states": sum(statuses.values()), "changed": changed,
                       "rejected": rejected, "accepted_with_honest_output": same_output,
                       "server_errors": sum(n for s, n in statuses.items() if s >= 500),
                       "statuses": dict(sorted(statuses.items()))}
    os.environ.pop("TITO_STATE_SECRET", None)
    return report


def fuzz_events(count: int) -> dict[str, Any]:
    from test_fuzz_events_states import _EVENT

    from tito.adapters.invoke import LocalLambdaContext
    from tito.handlers._lambda import make_handler

    handler = make_handler(["chat_derender"], load_models=False)
    context = LocalLambdaContext("fuzz")
    statuses: Counter[Any] = Counter()
    for event in _mutations(_EVENT, count):
        try:
            statuses[handler(event, context)["statusCode"]] += 1
        except Exception as exc:  # noqa: BLE001 - the property under test
            statuses[f"raised {type(exc).__name__}"] += 1
    return {"events": sum(statuses.values()),
            "server_errors_or_raised": sum(n for s, n in statuses.items()
                                           if not isinstance(s, int) or s >= 500),
            "statuses": {str(k): v for k, v in statuses.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1500, help="schemathesis cases per operation")
    parser.add_argument("--states", type=int, default=2000, help="mutated states, per signing mode")
    parser.add_argument("--events", type=int, default=1000, help="mutated Lambda events")
    args = parser.parse_args(argv)
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # Powertools' EMF lines
        events = fuzz_events(args.events)
    report = {"openapi": fuzz_openapi(args.examples), "states": fuzz_states(args.states),
              "lambda_events": events}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
