"""Modern World: the game's own tests (its rules, from the rule texts' examples; playouts; its bench)."""
