"""Example bots written with the SDK."""
