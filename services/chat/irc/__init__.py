"""The IRC bridge: a channel is a match table.

- :mod:`protocol`: IRC lines (RFC 1459/2812 framing, IRCv3 tags) parsed and written, long text cut between
  sentences to fit a line;
- :mod:`connection`: one client connection over a socket (register, ask for the account capabilities,
  PING/PONG);
- :mod:`seats`: who sits in a seat (account, or nick and user@host while on IRC, and a claim code);
- :mod:`store`: the tables kept in a file (0600, atomic), so a restarted bridge carries on;
- :mod:`outbox`: the send queue, one per table served in turn, under the server's flood limit;
- :mod:`tables`: what the bridge does with what people write (``!new``, ``!join``, game commands) and
  what it tells them (the prompt first, the moves to the channel, each seat's own changes privately);
- :mod:`bridge`: the bot that ties a connection to the tables, connecting again when the server goes away.
"""
