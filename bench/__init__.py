"""Benchmarks that print figures (``make bench``). Nothing here asserts a time."""
