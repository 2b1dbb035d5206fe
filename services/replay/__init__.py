"""Replay tools: match log files, upcasting of old events, stepping through a match, verifying a log.

- :mod:`files` reads and writes match logs (JSON lines or msgpack, with an optional metadata header);
- :mod:`upcast` upgrades events written in older schema versions on read;
- :mod:`stepper` rebuilds the state, views and board text at any version, and drives interactive mode;
- :mod:`verify` replays a log through ``evolve`` and ``decide`` and names the first version that differs;
- :mod:`render` turns views into text, generically or with a game's own renderer;
- :mod:`transfer` moves a match between an event store and files (``airship export`` / ``import``).
"""
