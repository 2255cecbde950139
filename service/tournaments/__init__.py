"""Tournaments: Swiss, arena and duplicate events of a front end's players, created and joined
through the API and run by ``basra worker``."""
