"""The IRC bridge: a channel is a match table.

- :mod:`protocol`: IRC lines (RFC 1459/2812 framing) parsed and written, long text split to fit a line;
- :mod:`connection`: one client connection over a socket (register, PING/PONG, send with flood control);
- :mod:`tables`: what the bridge does with what people write (``!new``, ``!join``, game commands) and
  what it tells them (public events to the channel, each seat's private view by private message);
- :mod:`bridge`: the bot that ties a connection to the tables, with a thread that posts updates.
"""
