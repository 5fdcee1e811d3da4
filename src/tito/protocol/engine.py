"""Engine-side shapes, the old home: what render hands to ``/inference/v1/generate``
(:mod:`tito.protocol.generate_request`) and what generate returns
(:mod:`tito.protocol.generate_response`).

Why this module stays: ``from tito.protocol.engine import X`` was the public path for these names
before the split; it re-exports both modules' names unchanged. New code imports from the two
modules (or from :mod:`tito.protocol`, which finds a name in them before it looks here).
"""

from tito.protocol.generate_request import *  # noqa: F403
from tito.protocol.generate_request import __all__ as _request_names
from tito.protocol.generate_response import *  # noqa: F403
from tito.protocol.generate_response import __all__ as _response_names

__all__ = [*_request_names, *_response_names]
