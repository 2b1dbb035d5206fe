"""The chat frontend core, independent of any chat network.

- :mod:`adapter`: the :class:`~services.chat.adapter.ChatAdapter` protocol a game implements to look good
  in chat (a game's own adapter is the ``chat`` of its registration), and ``get_adapter``;
- :mod:`generic`: the default adapter, which works for any game from its legal commands;
- :mod:`chatform`: the generic ``type key=value`` chat form of commands;
- :mod:`session`: one seat driven over the client library: text in, commands out, text back;
- :mod:`terminal`: ``airship chat``, the session on stdin/stdout.

A network bridge (IRC, Matrix...) needs only a :class:`~services.chat.session.ChatSession` per seat:
feed it each line the player writes (``answer``) and post what ``news`` returns (its prompt first).
"""
