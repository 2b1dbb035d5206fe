"""Chat adapters of the built-in games, one module per game.

They are declared as entry points (group ``airship.chat`` in ``pyproject.toml``) and loaded by
:func:`services.chat.adapter.get_adapter` on first use. Adding a game: a module here with a
:class:`~services.chat.generic.DefaultAdapter` (or ``NaturalAdapter``) subclass, and its entry point.
"""
