"""tito: token in, token out.

Render (OpenAI request -> prompt token ids + sampling params) and derender (engine token ids ->
OpenAI responses, batch or one streamed chunk at a time with client-carried state) for
disaggregated LLM serving, packaged as AWS Lambda functions.
"""

__version__ = "0.1.0"
