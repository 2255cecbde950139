"""``/v1/variants``."""
