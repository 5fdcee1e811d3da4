"""Lambda entry point for the ``chat_render`` endpoint.

Template: ``Handler: tito.handlers.chat_render.handler``.

Why a module of its own: Lambda imports exactly this module at init, which builds an app holding
only this endpoint's routes (plus ``/health`` and ``/v1/models``) and loads the models once.
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["chat_render"])
