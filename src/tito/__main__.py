"""``python -m tito``: the same as the ``tito`` command (works without the script on PATH)."""

from tito.cli import main

raise SystemExit(main())
