"""Boards of the built-in games as text, one module per game with a ``render(view) -> list[str]``.

They are declared as entry points (group ``airship.boards`` in ``pyproject.toml``) and loaded by
:func:`services.replay.render.render_board` on first use.
"""
