"""Benchmarks (scripts, not tests): `python -m bench.run` writes BENCHMARKS.md."""
