"""Shared fixtures: real tokenizers from the shipped model folders, Lambda context, events.

Environment for AWS and Powertools is set before any app import so nothing can reach real AWS.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import os
import pathlib
from collections.abc import Iterator

import pytest

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_SESSION_TOKEN", "testing")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "tito")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Tito")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "1")
os.environ.setdefault("POWERTOOLS_LOG_DEDUPLICATION_DISABLED", "1")

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODELS_DIR = ROOT / "layers" / "tokenizer" / "models"
EVENTS_DIR = ROOT / "events"
os.environ.setdefault("TITO_MODELS_DIR", str(MODELS_DIR))

MODEL_NAMES = ("qwen3", "mistral-v3", "gpt2")  #: the `vocabs` fixture's tokenizers
#: every shipped model folder (gpt-oss's 12 MB tokenizer has its own fixture, `gpt_oss`)
SHIPPED_MODELS = (*MODEL_NAMES, "gpt-oss")


@pytest.fixture(scope="session")
def vocabs():
    """name -> Vocab for the three shipped tokenizers (loaded once per test session)."""
    from tito.core.vocab import Vocab

    out = {}
    for name in MODEL_NAMES:
        cfg = json.loads((MODELS_DIR / name / "tito.json").read_text())
        tok_cfg = json.loads((MODELS_DIR / name / "tokenizer_config.json").read_text())
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(MODELS_DIR / name / "tokenizer.json"))
        eos = tok.token_to_id(tok_cfg["eos_token"]) if tok_cfg.get("eos_token") else None
        bos = tok.token_to_id(tok_cfg["bos_token"]) if tok_cfg.get("bos_token") else None
        out[name] = Vocab(tok, eos_token_id=eos, bos_token_id=bos,
                          extra_eos_token_ids=cfg.get("extra_eos_token_ids", []))
    return out


@dataclasses.dataclass
class FakeLambdaContext:
    """What Powertools' Logger and Mangum read from a Lambda context."""

    function_name: str = "tito-test"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:tito-test"
    aws_request_id: str = "52fdfc07-2182-154f-163f-5f0f9a621d72"
    log_group_name: str = "/aws/lambda/tito-test"
    log_stream_name: str = "2026/11/30/[$LATEST]0123456789"
    function_version: str = "$LATEST"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


@pytest.fixture
def lambda_context() -> FakeLambdaContext:
    return FakeLambdaContext()


@pytest.fixture
def load_event():
    return lambda name: json.loads((EVENTS_DIR / name).read_text())


@pytest.fixture(scope="session")
def harmony_encoding(tmp_path_factory):
    """openai-harmony's gpt-oss encoding, offline (o200k_base.tiktoken rebuilt from
    gpt-oss's tokenizer.json, see tests/harmony_ref.py)."""
    pytest.importorskip("openai_harmony")
    from harmony_ref import harmony_encoding as load

    return load(tmp_path_factory.mktemp("tiktoken"))


@pytest.fixture(scope="session")
def gpt_oss():
    """The shipped gpt-oss model folder as a ServedModel."""
    from tito.models.served import load_model

    return load_model(MODELS_DIR / "gpt-oss")


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """Everything the Powertools logger writes during the test (its handler keeps the stdout it
    was created with, which capsys does not see)."""
    from tito.handlers._lambda import logger

    handler = logger.registered_handler
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    previous = handler.setStream(buffer)
    try:
        yield buffer
    finally:
        handler.setStream(previous)
