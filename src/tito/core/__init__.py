"""Sans-I/O core: pure functions over explicit, JSON-serializable state.

Nothing in this package imports FastAPI, Mangum, boto3 or anything that performs I/O.
"""
