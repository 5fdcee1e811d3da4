"""What every ``tito`` subcommand's options share: help that shows each default, and the
``--host/--port/--log-level`` trio of the servers.

Why: a user reading ``tito gateway --help`` must see that it listens on 8080 without reading
the code, and the three servers (serve 8000, fake-engine 8100, gateway 8080) must describe
their common options the same way.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["LOG_LEVELS", "add_server_options", "new_parser"]

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


class _DefaultsFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` to an option's help when it has a meaningful default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text  # the help says it in its own words
            or default in (None, False, "", [], argparse.SUPPRESS)
            or isinstance(action, argparse._HelpAction | argparse._VersionAction)
            or not action.option_strings
        ):
            return text
        if isinstance(default, list | tuple):
            default = ",".join(str(d) for d in default)
        return f"{text} (default: {default})".lstrip()


def new_parser(prog: str, description: str, **kwargs: Any) -> argparse.ArgumentParser:
    """An ``ArgumentParser`` whose help shows every option's default."""
    return argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=_DefaultsFormatter, **kwargs
    )


def add_server_options(
    parser: argparse.ArgumentParser, *, port: int, log_level: str = "info"
) -> None:
    """``--host``, ``--port`` and ``--log-level`` for a server subcommand."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0 for every interface)")
    parser.add_argument("--port", type=int, default=port, help="TCP port to listen on")
    parser.add_argument("--log-level", default=log_level, choices=LOG_LEVELS,
                        type=str.lower, help="uvicorn and tito log level")
