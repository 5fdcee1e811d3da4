"""A streaming response that closes its generator when the client goes away.

Why: Starlette cancels the sending task on disconnect but leaves the body generator suspended
until the garbage collector finalizes it. For the gateway that means the engine keeps generating
for nobody; for the fake engine, that the abort is recorded late. Closing the generator runs its
``finally`` blocks (abort the engine request) right away.
"""

from __future__ import annotations

from typing import Any

import anyio
from fastapi.responses import StreamingResponse


class ClosingStreamingResponse(StreamingResponse):
    """:class:`StreamingResponse` whose body generator is closed however the response ends."""

    async def stream_response(self, send: Any) -> None:
        try:
            await super().stream_response(send)
        finally:
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()
