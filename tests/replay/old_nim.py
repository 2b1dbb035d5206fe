"""How nim's events looked at schema version 0 (the fixture ``fixtures/nim_v0.jsonl``), and its upcaster.

Version 0 envelopes had no ``schema_version``, named ``visible_to`` ``seats`` (upgraded by the built-in
upcaster) and did not record commands; nim's ``Taken`` said ``count`` where it now says ``n`` (upgraded
by the game's own upcaster below, the way a real game registers one).
"""

from __future__ import annotations

from schemas.upcast import UPCASTERS, RawEvent


@UPCASTERS.register(0, game="nim", event_type="Taken")
def taken_count_to_n(raw: RawEvent) -> RawEvent:
    body = dict(raw["body"])
    if "count" in body:
        body["n"] = body.pop("count")
    return {**raw, "body": body}
