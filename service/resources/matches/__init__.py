"""``/v1/matches``."""
