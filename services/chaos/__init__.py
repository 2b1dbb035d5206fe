"""``airship chaos``: bot matches through worker processes that are killed at random (and optionally a
Redis that is restarted), then a check of every guarantee. See :mod:`services.chaos.run`."""
