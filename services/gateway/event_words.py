"""The game's own sentence for an event, for a subscription with ``texts`` (the web table's list of what
happened): the words its chat adapter tells a chat table ("seat 2 throws Coal overboard (pays 2 gold)."), so a
person reads the game, not the event's field names. The sentence is rendered from the event as the subscriber
sees it (redacted for its seat), so it says no more than the event does. A game without a chat adapter of its
own, or whose adapter fails on an event, gives no sentence: the client words the event itself."""

from __future__ import annotations

from schemas.envelopes import EventEnvelope
from services.games.registry import registration_of
from services.logs import error_text, get_logger

log = get_logger("gateway")


def event_text(game: str, event: EventEnvelope) -> str | None:
    """The sentence ('' when the game tells nothing of the event), or None when the game has none to give."""
    try:
        adapter = registration_of(game).chat
        if adapter is None:
            return None
        said = adapter.render_event(event)
    except Exception as e:  # a game's words failing must not stop the socket: the client words the event
        log.warning("event text failed", game=game, type=event.type, error=error_text(e))
        return None
    return said or ""
