"""The console for a front end's staff at ``/console``."""
