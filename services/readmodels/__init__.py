"""The read-model kit: what every model built from the match logs needs, so a new one is its questions only.

- :mod:`services.readmodels.consumer`: :class:`FeedConsumer`, the loop over the partition feeds in the model's own
  consumer group (read, claim what another consumer left, acknowledge after the model applied a batch, back off
  on errors, a periodic sweep, lag and pending gauges, heartbeat for the health probe, leave the group on exit);
- :mod:`services.readmodels.sources`: the finished matches, wherever they are: Redis (meta, whole log, seat
  links, the partitions' finished sets) and the archive directory, as one :class:`FinishedMatch` shape.

The ratings ladder (:mod:`services.ratings`) is built on it; docs/read-models.md is the recipe, with a checklist.
"""
