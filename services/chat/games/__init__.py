"""Helpers for the chat adapters of the games (each game's adapter is the module ``chat.py`` of its package,
named in its registration): :mod:`natural`, an adapter base reading shorthand commands, and :mod:`words`,
reading item lists and prefixes out of chat text.
"""
