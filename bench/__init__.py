"""Benchmarks (``make bench``); kept out of the test suite."""
