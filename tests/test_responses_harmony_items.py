"""gpt-oss Responses items whose text is not a string: a 400 in OpenAI's error shape, never a
500 (the harmony conversion joins the texts; found when reviewing it)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tito.adapters.app import create_app

HI = {"role": "user", "content": "hi"}
BAD = [{"type": "input_text", "text": 5}]


@pytest.mark.parametrize("item", [
    {"role": "system", "content": BAD},
    {"role": "developer", "content": BAD},
    {"role": "user", "content": BAD},
    {"type": "reasoning", "id": "r", "summary": [], "content": [{"type": "reasoning_text",
                                                              "text": 5}]},
])
def test_non_string_text_is_a_400(item: dict) -> None:
    with TestClient(create_app()) as client:
        r = client.post("/v1/responses/render",
                        json={"model": "gpt-oss", "input": [HI, item]})
    assert 400 <= r.status_code < 500, r.text
    assert set(r.json()["error"]) >= {"message", "type", "code"}
