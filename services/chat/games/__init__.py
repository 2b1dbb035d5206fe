"""Chat adapters of the built-in games; importing this package registers them (``get_adapter`` does so).

Adding a game: a module here with a :class:`~services.chat.generic.DefaultAdapter` subclass decorated with
``@register_adapter(GAME_NAME)`` (see :mod:`.moderne_zeiten`), and one import line below.
"""

from __future__ import annotations

from services.chat.games import mad_zeppelin, modern_world, moderne_zeiten  # noqa: F401  (register their adapters)
