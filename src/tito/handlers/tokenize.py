"""Lambda entry point for ``POST /tokenize`` and ``POST /detokenize``.

Template: ``Handler: tito.handlers.tokenize.handler``.
"""

from tito.handlers._lambda import make_handler

handler = make_handler(["tokenize"])
