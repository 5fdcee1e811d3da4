"""Lambda entry point for the ``completions_derender`` endpoint.

Template: ``Handler: tito.handlers.completions_derender.handler``.

Why a module of its own: Lambda imports exactly this module at init, which builds an app holding
only this endpoint's routes (plus ``/health`` and ``/v1/models``) and loads the models once.
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["completions_derender"])
