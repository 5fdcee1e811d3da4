"""The ``tito`` command: serve the endpoints locally, invoke a Lambda handler, and friends.

Each subcommand lives in its own adapter module and is imported only when used, so ``tito --help``
stays fast and a missing optional dependency only affects its own subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tito import __version__

#: subcommand -> (module with ``main(argv) -> int``, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("tito.adapters.serve",
              "serve every endpoint locally on the shipped models (port 8000)"),
    "invoke": ("tito.adapters.invoke",
               "run a Lambda handler on event files (or the sam build output: --build-dir)"),
    "fake-engine": ("tito.adapters.fake_engine", "test double for the GPU engine (port 8100)"),
    "gateway": ("tito.adapters.gateway",
                "OpenAI server over render, generate, derender (port 8080)"),
    "replay": ("tito.adapters.replay", "replay a captured engine stream through derender"),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tito`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="tito",
        description="tito: token in, token out. Stateless render/derender for disaggregated "
        "LLM serving.",
    )
    parser.add_argument("command", choices=sorted(SUBCOMMANDS), help="what to do")
    parser.add_argument("-V", "--version", action="version", version=f"tito {__version__}")
    if args and args[0] in ("-V", "--version"):
        parser.parse_args(args[:1])  # prints the version and exits 0
    if not args or args[0] in ("-h", "--help"):
        parser.print_help()
        print("\ncommands (tito COMMAND --help for each one's options and defaults):")
        for name, (_, text) in sorted(SUBCOMMANDS.items()):
            print(f"  {name:12s} {text}")
        return 0 if args else 2
    if args[0] not in SUBCOMMANDS:
        parser.parse_args(args[:1])  # prints the usage error and exits 2
    module = importlib.import_module(SUBCOMMANDS[args[0]][0])
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
