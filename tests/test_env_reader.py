"""``tito.settings.env_reader`` keeps the last value it decoded: it must still see every change.

Why: the reader returns the text it decoded last while ``os.environ``'s stored object is the
same one (a variable set again stores a new object); and ``stream_state_kept._secret`` keeps
the secret's bytes the same way. A stale value here would sign with an old secret or read a
removed limit, so every sequence of sets and deletes must read as ``os.environ.get`` does.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tito.service import stream_state_kept
from tito.settings import env_reader

NAME = "TITO_TEST_ENV_READER"
VALUES = st.one_of(st.none(), st.sampled_from(["a", "b", "a", "é", "", "x" * 40]),
                   st.text(max_size=8).filter(lambda s: "\x00" not in s))


@settings(max_examples=100, deadline=None)
@given(st.lists(VALUES, max_size=12))
def test_reader_follows_every_change(steps: list[str | None]) -> None:
    read = env_reader(NAME)
    try:
        for value in steps:
            if value is None:
                os.environ.pop(NAME, None)
            else:
                os.environ[NAME] = value
            assert read() == os.environ.get(NAME)
            assert read() == os.environ.get(NAME)  # (the kept value: the same answer)
    finally:
        os.environ.pop(NAME, None)


def test_secret_bytes_follow_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TITO_STATE_SECRET", raising=False)
    assert stream_state_kept._secret() is None
    for secret in ("k" * 40, "k" * 40, "é" * 33, "z" * 40):
        monkeypatch.setenv("TITO_STATE_SECRET", secret)
        assert stream_state_kept._secret() == secret.encode()
        assert stream_state_kept._secret() == secret.encode()
    monkeypatch.setenv("TITO_STATE_SECRET", "")
    assert stream_state_kept._secret() is None
    monkeypatch.delenv("TITO_STATE_SECRET")
    assert stream_state_kept._secret() is None
