"""What every game package uses the same way: options, seat counts, command bodies, fast state copies.

A game's wire shapes live in its package's ``schemas.py`` (the one definition). At run time a game

- checks options and the seat count with :func:`check_options` (one rejection wording for all games);
- reads each command body with :func:`parse_body`: the body is validated against the command's
  schema model (strict: no coercion, no unknown fields) before any rule looks at it, so a handler
  receives typed fields and a malformed body is a :class:`BadCommand` naming the field;
- keeps its state in NamedTuples made fast to copy with :func:`fast_replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from services.games.errors import BadCommand, BadOptions

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T", bound=tuple[Any, ...])


def check_options(model: type[M], title: str, min_seats: int, max_seats: int,
                  options: Mapping[str, Any], seats: int) -> M:
    """The validated options, or :class:`BadOptions` with one line naming the problem."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not min_seats <= seats <= max_seats:
        raise BadOptions(f"{title} is for {min_seats} to {max_seats} players, not {seats!r}")
    if not isinstance(options, Mapping):
        raise BadOptions(f"options for {title} must be a mapping of name to value")
    try:
        return model.model_validate(dict(options))
    except ValidationError as e:
        raise BadOptions(f"bad options for {title}: {first_error(e)}") from None


def parse_body(models: Mapping[str, type[M]], command_type: str, body: Any) -> M:
    """The command body validated against its schema model, or :class:`BadCommand`."""
    model = models.get(command_type)
    if model is None:
        raise BadCommand(f"unknown command '{command_type}'; expected one of {', '.join(models)}")
    if not isinstance(body, dict) and not isinstance(body, Mapping):
        raise BadCommand("the command body must be a mapping")
    try:  # the core validator directly: half the cost of model_validate's wrapper on this hot path
        return model.__pydantic_validator__.validate_python(body)  # type: ignore[no-any-return]
    except ValidationError as e:
        raise BadCommand(first_error(e)) from None


def first_error(error: ValidationError) -> str:
    """One line for a person: the first problem and where it is."""
    problem = error.errors(include_url=False)[0]
    where = ".".join(str(p) for p in problem["loc"])
    message = "unknown field" if problem["type"] == "extra_forbidden" else problem["msg"]
    return f"'{where}': {message}" if where else str(message)


def fast_replace(cls: type[T]) -> type[T]:
    """Give a NamedTuple class a ``_replace`` about twice as fast as the generic one (which goes
    through ``_make`` and its length check). Reducers replace a state once or more per event;
    profiling the replay fold showed the generic one as its main cost. Usable as a class decorator
    applied after the class is built: ``State = fast_replace(State)`` or ``@fast_replace``."""
    fields: tuple[str, ...] = getattr(cls, "_fields")  # noqa: B009
    index = {name: i for i, name in enumerate(fields)}
    new = tuple.__new__

    def _replace(self: T, **changes: Any) -> T:
        values = list(self)
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError:
            raise ValueError(f"Got unexpected field names: {[n for n in changes if n not in index]!r}") from None
        return new(cls, values)

    setattr(cls, "_replace", _replace)  # noqa: B010  (NamedTuple forbids defining _replace in the class body)
    return cls


def public_players(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``players`` list of a (public) view, for a game's standing in the replay chart."""
    players = view.get("players")
    return [p for p in players if isinstance(p, Mapping)] if isinstance(players, list) else []
