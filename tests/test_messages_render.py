"""``POST /v1/messages/render`` against vLLM 0.33.0's answers, field by field.

Why: the goldens (``conformance/goldens/render_messages*.json``, recorded by
``conformance/record_messages.py`` from the real render server: qwen3 tokenizer, qwen3 reasoning
parser, hermes tools) are the reference; tito's answer to each stored request is normalized as
the chat render goldens are (``conformance.replay``: engine defaults dropped, request ids by
prefix, timestamps) and compared. Differences must be in ``DEVIATIONS`` (each with its reason)
or in the chat render's own list (``conformance.replay.DEVIATIONS``: ``derender_context``, stop
strings kept for derender, error wording...). ``render_messages_chatml.json`` was recorded with
a ChatML ``--chat-template`` that takes system messages anywhere and ignores
``reasoning_effort``: vLLM's per-model probes then keep inline system messages in place and
turn disabled thinking into effort ``low``; tito renders those cases with the same template.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import replay  # noqa: E402
from tito.adapters.app import create_app  # noqa: E402
from tito.errors import TitoError  # noqa: E402
from tito.models import get_registry  # noqa: E402
from tito.protocol.anthropic import AnthropicMessagesRequest  # noqa: E402
from tito.service.messages import render_messages_request  # noqa: E402

GROUPS = ("render_messages", "render_messages_errors", "render_messages_chatml")

#: Intended differences of the Messages route (on top of the chat render's).
DEVIATIONS = [
    replay.Deviation("render_messages*", "*", "*chat_template_kwargs.cohere_format",
                     "vLLM's CLI adds its Cohere renderer's default (cohere_format: cmd4) to "
                     "every model's template kwargs; tito does not invent it (as chat render)"),
    replay.Deviation("render_messages", "stop_sequences", "sampling_params.output_text_buffer_length",
                     "stop strings stay in tito's derender (as chat render), so the engine needs "
                     "no text buffer for them"),
    replay.Deviation("render_messages", "*", "sampling_params.extra_args*",
                     "kv_transfer_params also ride in sampling_params.extra_args (engines before "
                     "0.33 read them there; as chat render); the top-level field matches vLLM"),
]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(endpoints=["messages_render"]))


def _golden(group: str) -> dict[str, Any]:
    return json.loads((replay.GOLDENS / f"{group}.json").read_text())


class _ChatmlClient:
    """The service with the served qwen3 model under the recorded ChatML template (the route
    only adds body validation, which the other groups cover)."""

    def __init__(self, template: str) -> None:
        self.model = dataclasses.replace(get_registry().get("qwen3"), chat_template=template)

    def post(self, _path: str, body: dict[str, Any]) -> tuple[int, Any]:
        try:
            request = AnthropicMessagesRequest.model_validate(body)
            return 200, render_messages_request(request, model=self.model).model_dump(mode="json")
        except TitoError as exc:
            return exc.status, {"error": {"message": exc.message, "type": exc.type,
                                          "param": exc.param, "code": exc.status}}


def _answer(client: Any, case: dict[str, Any]) -> tuple[int, Any]:
    if isinstance(client, _ChatmlClient):
        return client.post(case["path"], case["request"])
    r = client.post(case["path"], content=json.dumps(case["request"]),
                    headers={"content-type": "application/json"})
    return r.status_code, r.json()


def _diffs(client: Any, group: str, name: str, case: dict[str, Any]) -> list[
        tuple[str, Any, Any, replay.Deviation | None]]:
    status, answer = _answer(client, case)
    found = [] if status == case["status"] else [("status", case["status"], status)]
    want, got = replay.normalize(case["response"]), replay.normalize(answer)
    if status == 200 and case["status"] == 200:
        want, got = replay.normalize_render(want), replay.normalize_render(got)
    found += list(replay.diff(want, got))
    out = []
    for path, a, b in found:
        out.append((path, a, b, _deviation(group, name, path, a)))
    return out


def _deviation(group: str, name: str, path: str, vllm: Any) -> replay.Deviation | None:
    import fnmatch

    for d in DEVIATIONS:
        if fnmatch.fnmatchcase(group, d.group) and fnmatch.fnmatchcase(name, d.case) and \
                fnmatch.fnmatchcase(path, d.path):
            return d
    return replay.deviation_for(group, name, path, vllm)


@pytest.mark.parametrize("group", GROUPS)
def test_goldens_are_vllm_0_33(group: str) -> None:
    data = _golden(group)
    assert data["vllm"]["version"].startswith("0.33.0")
    assert len(data["cases"]) >= (10 if group.endswith("chatml") else 30)


@pytest.mark.parametrize("group", GROUPS)
def test_tito_matches_vllm(client: TestClient, group: str) -> None:
    data = _golden(group)
    target = _ChatmlClient(data["chat_template"]) if "chat_template" in data else client
    unexplained = []
    for name, case in data["cases"].items():
        unexplained += [f"{name} {p}: vllm={json.dumps(a)[:200]} tito={json.dumps(b)[:200]}"
                        for p, a, b, dev in _diffs(target, group, name, case) if dev is None]
    assert not unexplained, f"{len(unexplained)} unexplained:\n" + "\n".join(unexplained[:40])


def test_the_comparison_can_fail(client: TestClient) -> None:
    """A changed golden value is reported: the differ is not vacuous."""
    case = json.loads(json.dumps(_golden("render_messages")["cases"]["tool_choice_tool"]))
    case["response"]["token_ids"][-2] += 1
    case["response"]["parse_context"]["parallel_tool_calls"] = False
    found = [p for p, _, _, dev in _diffs(client, "render_messages", "tool_choice_tool", case)
             if dev is None]
    last = len(case["response"]["token_ids"]) - 2
    assert found == ["parse_context.parallel_tool_calls", f"token_ids.{last}"]


def test_every_deviation_is_used(client: TestClient) -> None:
    """No stale entry in DEVIATIONS: each still explains a real difference."""
    used = set()
    for group in GROUPS:
        data = _golden(group)
        target = _ChatmlClient(data["chat_template"]) if "chat_template" in data else client
        for name, case in data["cases"].items():
            used |= {id(dev) for *_, dev in _diffs(target, group, name, case) if dev is not None}
    assert [d.case for d in DEVIATIONS if id(d) not in used] == []
