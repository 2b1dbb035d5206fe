"""Wire contracts: pydantic v2 models for envelopes and for each game's commands, events and views.

JSON Schema files generated from them live in ``schemas/json`` (``airship schemas export``).
"""
