"""Lambda entry point for the ``responses_derender`` endpoint.

Template: ``Handler: tito.handlers.responses_derender.handler`` (see ``chat_render`` for why one
module per endpoint).
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["responses_derender"])
