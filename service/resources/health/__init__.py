"""``/healthz`` and ``/readyz``."""
