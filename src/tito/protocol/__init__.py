"""tito's wire models (pydantic v2), named as vLLM names them.

Why one package re-exporting everything: callers write ``from tito.protocol import X`` with X the
vLLM class name, and never need to know which submodule holds it.

Why lazily (PEP 562): defining the ~90 models costs each cold start tens of ms of CPU, and a
function uses a few submodules (a chat derender function never touches the Responses or tokenize
models). A name is looked up in the submodules in :data:`_SUBMODULES` order, importing each
until one exports it (each ``__all__``); ``__all__`` here, and ``dir()``, import them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers
    from tito.protocol.anthropic import *  # noqa: F403
    from tito.protocol.chat import *  # noqa: F403
    from tito.protocol.common import *  # noqa: F403
    from tito.protocol.completion import *  # noqa: F403
    from tito.protocol.derender import *  # noqa: F403
    from tito.protocol.generate_request import *  # noqa: F403
    from tito.protocol.generate_response import *  # noqa: F403
    from tito.protocol.responses import *  # noqa: F403
    from tito.protocol.tokenize import *  # noqa: F403

#: The submodules, cheapest first: each imports those it builds on (generate_response -> chat ->
#: common). ``engine`` only re-exports the two ``generate_*`` modules (the names' old home), so
#: it comes after them and a name is never looked up through it.
_SUBMODULES = ("common", "chat", "completion", "generate_request", "generate_response", "engine",
               "derender", "tokenize", "responses", "anthropic")


def __getattr__(name: str) -> Any:
    if name == "__all__":
        names = sorted({n for sub in _SUBMODULES for n in _submodule(sub).__all__})
        globals()["__all__"] = names
        return names
    if not name.startswith("__"):
        for sub in _SUBMODULES:
            module = _submodule(sub)
            if name in module.__all__:
                value = globals()[name] = getattr(module, name)
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})


def _submodule(sub: str) -> Any:
    return importlib.import_module(f"{__name__}.{sub}")
