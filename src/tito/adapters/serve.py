"""``tito serve``: every endpoint in one local server (uvicorn), on the shipped models."""

from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str]) -> int:
    """Parse ``--host/--port`` and run uvicorn until interrupted."""
    parser = argparse.ArgumentParser(prog="tito serve", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)

    import uvicorn

    from tito.adapters.app import create_app
    from tito.models import get_registry
    from tito.settings import SettingsError, check_environment

    logging.basicConfig(level=args.log_level.upper())
    try:
        check_environment()
    except SettingsError as exc:
        print(f"tito serve: {exc}", file=sys.stderr)
        return 2
    registry = get_registry()  # load the models before accepting traffic
    logging.getLogger("tito").info(
        "serving models %s (default %s)", registry.names(), registry.default_name
    )
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)
    return 0
