"""Bots: players that see only their own seat's view and the commands they may send."""
