"""The base of the per-game adapters that read natural forms (``bid 5``, ``play 3 aviation``...)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.chat.adapter import ChatError, CommandDict
from services.chat.games.words import words
from services.chat.generic import DefaultAdapter


class NaturalAdapter(DefaultAdapter):
    """Reads a line into words and hands them to the game's ``read``; what cannot be read, and every error
    reading raises, becomes a reply saying what is legal now. Never raises at a player."""

    def tokens(self, text: str) -> list[str]:
        return words(text)

    def parse(self, text: str, legal: Sequence[Mapping[str, Any]]) -> CommandDict | ChatError:
        try:
            help_ = self.describe_legal(legal)
            tokens = self.tokens(text)
            if not tokens:
                return ChatError(f"Write a command. {help_}")
            if not legal:
                return ChatError("You have nothing to do right now (it is not your turn, or the match is over).")
            return self.read(tokens, legal, help_)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            return ChatError(f"Cannot read that ({e}). {self.describe_legal(legal)}")

    def read(self, tokens: list[str], legal: Sequence[Mapping[str, Any]], help_: str) -> CommandDict | ChatError:
        """The command the words name (``tokens`` is never empty, ``legal`` never empty)."""
        raise NotImplementedError
