"""Lambda entry point for the ``messages_render`` endpoint (``POST /v1/messages/render``).

Template: ``Handler: tito.handlers.messages_render.handler`` (see ``chat_render`` for why one
module per endpoint).
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["messages_render"])
