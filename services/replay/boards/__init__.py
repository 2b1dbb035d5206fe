"""Boards of the built-in games as text, registered with :func:`services.replay.render.register_renderer`.

One module per game; importing this package registers them all (``render_board`` does so on first use).
"""

from __future__ import annotations

from services.replay.boards import mad_zeppelin, modern_world, moderne_zeiten  # noqa: F401  (register their renderers)
