"""Ratings: players with identity across matches, and a ladder per game as a rebuildable read model.

- :mod:`services.ratings.model`: the rating maths (Weng-Lin Bayesian rating, Plackett-Luce model: 2 to 6
  seats, ties), pure.
- :mod:`services.ratings.players`: registered players and their API keys (stored hashed), and the Redis scripts
  the gateway runs to link a seat to a player when it is joined with the player's key.
- :mod:`services.ratings.ladder`: what a finished match contributes (a :class:`~services.ratings.ladder.RatedMatch`)
  and the ladder, a pure function of the set of rated matches of a game.
- :mod:`services.ratings.store`: the read model in Redis (rated matches, standings, histories).
- :mod:`services.ratings.projector`: ``airship ratings projector``, fed by the partition feeds.
- :mod:`services.ratings.rebuild`: ``airship ratings rebuild``, from every finished match in Redis and the archive.
- :mod:`services.ratings.pairing`: the arena's queue, in which registered players wait to be paired into rated
  matches (the gateway's ``/arena`` routes; ``airship arena`` is a bot that keeps playing them).

docs/read-models.md explains the design, with this package as the worked example.
"""
