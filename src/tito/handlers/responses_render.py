"""Lambda entry point for the ``responses_render`` endpoint.

Template: ``Handler: tito.handlers.responses_render.handler`` (see ``chat_render`` for why one
module per endpoint).
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["responses_render"])
