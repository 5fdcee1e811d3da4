"""Schemathesis over tito's own OpenAPI document: every operation, valid and invalid bodies.

Why: a schema-driven fuzzer finds the inputs a hand-written list misses, and it only works when
the document tells the truth (400/404/413 with the error schema, no 422). The checks: never a
5xx, only documented status codes, responses matching their schema. ``fuzz/fuzz_api.py`` runs
the same with many more examples and reports the figures quoted in the README.
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tito.adapters.app import create_app  # noqa: E402
from tito.models import get_registry  # noqa: E402

get_registry()  # load the models now: the first request must not pay for it

CHECKS = (not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance)

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], deterministic=True
)


@schema.parametrize()
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
          database=None)
def test_every_operation_answers_as_documented(case) -> None:
    response = case.call(timeout=120)
    case.validate_response(response, checks=CHECKS)


def test_document_lists_the_real_responses() -> None:
    doc = create_app().openapi()
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert "422" not in op["responses"], (method, path)
            if method == "post":
                for code in ("400", "404", "413"):
                    ref = op["responses"][code]["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorResponse"), (path, code)
