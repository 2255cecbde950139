"""The reference web client at ``/play`` (static files) and its route."""
