"""tito's wire models (pydantic v2), named as vLLM names them.

Why one package re-exporting everything: callers write ``from tito.protocol import X`` with X the
vLLM class name, and never need to know which submodule holds it.
"""

from tito.protocol.chat import *  # noqa: F403
from tito.protocol.chat import __all__ as _chat_all
from tito.protocol.common import *  # noqa: F403
from tito.protocol.common import __all__ as _common_all
from tito.protocol.completion import *  # noqa: F403
from tito.protocol.completion import __all__ as _completion_all
from tito.protocol.derender import *  # noqa: F403
from tito.protocol.derender import __all__ as _derender_all
from tito.protocol.engine import *  # noqa: F403
from tito.protocol.engine import __all__ as _engine_all
from tito.protocol.responses import *  # noqa: F403
from tito.protocol.responses import __all__ as _responses_all
from tito.protocol.tokenize import *  # noqa: F403
from tito.protocol.tokenize import __all__ as _tokenize_all

__all__ = sorted({*_common_all, *_chat_all, *_completion_all, *_engine_all, *_derender_all,
                  *_responses_all, *_tokenize_all})
