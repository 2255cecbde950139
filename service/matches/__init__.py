"""Matches: create, view, move, resign, hint, history; seats, clocks and the match store."""
